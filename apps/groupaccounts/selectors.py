"""Reads about group accounts beyond what the access model gives (apps.core.records: everyone
whose role allows groupaccounts.view sees every live account, `GroupAccount.objects.restrict`)."""

from typing import Any

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from apps.contacts import api as contacts_api
from apps.core import search
from apps.groupaccounts.models import GroupAccount, GroupAccountContact

# What searchGroupAccounts looks in (apps.core.search): the account, and its linked contacts that
# the actor may see (a private contact's name finds nothing for someone who may not see it).
SEARCHED = ("name", "description", "industry", "website", "email_domains[]", "tags[]")
SEARCHED_CONTACT = ("first_name", "last_name", "email")


def searched(actor: Any, rows: QuerySet[GroupAccount], query: str | None) -> QuerySet[GroupAccount]:
    people = contacts_api.contacts(actor)

    def linked(word: str) -> Q:
        return Q(contact_links__contact__in=people.filter(search.holds(word, SEARCHED_CONTACT)))

    return search.matching(rows, query, SEARCHED, also=linked).distinct()


def with_counts(actor: Any, rows: QuerySet[GroupAccount]) -> QuerySet[GroupAccount]:
    """`rows` with `contact_count`: the linked contacts the actor may see (another person's private
    contact is neither listed nor counted), counted apart from `rows`' own filters (a search by one
    contact's name still counts them all)."""
    links = GroupAccountContact.objects.filter(
        account=OuterRef("pk"), contact__in=contacts_api.contacts(actor)
    )
    counted = Subquery(links.order_by().values("account").annotate(n=Count("pk")).values("n"))
    return rows.annotate(contact_count=Coalesce(counted, 0))


def organisation_of(actor: Any, account: GroupAccount) -> Any:
    """The account's organisation contact if the actor may see it (live, and not another person's
    private one), else None."""
    if not account.organisation_id:
        return None
    return contacts_api.contacts(actor).filter(pk=account.organisation_id).first()


def with_organisations(actor: Any, accounts: list[GroupAccount]) -> list[GroupAccount]:
    """`accounts`, each with `shown_organisation`: `organisation_of` for a page of them, in one read."""
    ids = {account.organisation_id for account in accounts if account.organisation_id}
    seen: dict[int | None, Any] = (
        {contact.pk: contact for contact in contacts_api.contacts(actor).filter(pk__in=ids)} if ids else {}
    )
    for account in accounts:
        account.shown_organisation = seen.get(account.organisation_id)  # type: ignore[attr-defined]
    return accounts


def contacts_of(actor: Any, account: GroupAccount) -> list[Any]:
    """The account's contacts the actor may see: its organisation contact, then its people."""
    people = [row.contact for row in contacts_api.visible(actor, account.contact_links)]
    organisation = organisation_of(actor, account)
    if organisation is not None and organisation not in people:
        people.insert(0, organisation)
    return people


def addresses_of(contacts: list[Any]) -> list[str]:
    return list(dict.fromkeys(address.lower() for contact in contacts for address in contact.addresses))
