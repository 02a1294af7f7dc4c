"""Reads about group accounts: everyone whose role allows groupaccounts.view sees every account
that is not archived; anything else is "not found"."""

from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext as _

from apps.contacts import related
from apps.core.actors import can
from apps.core.errors import Forbidden
from apps.groupaccounts import errors
from apps.groupaccounts.models import GroupAccount
from apps.groupaccounts.permissions import GroupAccountsPerm


def account_visible(*, actor: Any, include_archived: bool = False) -> QuerySet[GroupAccount]:
    if not can(actor, GroupAccountsPerm.VIEW):
        return GroupAccount.objects.none()
    rows = GroupAccount.objects.select_related("owner", "organisation")
    return rows if include_archived else rows.filter(deleted_at__isnull=True)


def with_counts(rows: QuerySet[GroupAccount]) -> QuerySet[GroupAccount]:
    return rows.annotate(contact_count=Count("contact_links", distinct=True))


def account_get(*, actor: Any, account_id: int) -> GroupAccount:
    account = account_visible(actor=actor).filter(pk=account_id).first()
    if account is None:
        raise errors.GroupAccountNotFound(account_id)
    return account


def account_for_attachments(actor: Any, account_id: int, for_edit: bool) -> GroupAccount:
    """A group account as a record files and documents attach to (apps.core.kinds.attachments):
    attaching changes the account, so it needs the right to change group accounts."""
    account = account_get(actor=actor, account_id=account_id)
    if for_edit and not can(actor, GroupAccountsPerm.EDIT):
        raise Forbidden(_("Your role may see group accounts but not change their links."))
    return account


def account_search(*, actor: Any, query: str) -> QuerySet[GroupAccount]:
    """Every word in the name, description, industry, website, domains or tags, or in the name or
    address of a linked contact."""
    rows = account_visible(actor=actor)
    for word in query.split()[:8]:
        rows = rows.filter(
            Q(name__icontains=word)
            | Q(description__icontains=word)
            | Q(industry__icontains=word)
            | Q(website__icontains=word)
            | Q(email_domains__contains=[word.lower()])
            | Q(tags__contains=[word.lower()])
            | Q(contact_links__contact__first_name__icontains=word)
            | Q(contact_links__contact__last_name__icontains=word)
            | Q(contact_links__contact__email__icontains=word)
        )
    return rows.distinct()


def contacts_of(actor: Any, account: GroupAccount) -> list[Any]:
    """The account's contacts the actor may see: its organisation contact, then its people."""
    people = [row.contact for row in related.visible(actor, account.contact_links)]
    if account.organisation_id:
        organisation = related.contacts(actor).filter(pk=account.organisation_id).first()
        if organisation is not None and organisation not in people:
            people.insert(0, organisation)
    return people


def addresses_of(contacts: list[Any]) -> list[str]:
    return list(dict.fromkeys(address.lower() for contact in contacts for address in contact.addresses))
