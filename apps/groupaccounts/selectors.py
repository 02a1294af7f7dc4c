"""Reads about group accounts beyond what the access model gives (apps.core.records: everyone
whose role allows groupaccounts.view sees every live account, `GroupAccount.objects.restrict`)."""

from typing import Any

from django.db.models import Count, Q, QuerySet

from apps.contacts import api as contacts_api
from apps.core import search
from apps.groupaccounts.models import GroupAccount

# What searchGroupAccounts looks in (apps.core.search): the account, and its linked contacts that
# the actor may see (a private contact's name finds nothing for someone who may not see it).
SEARCHED = ("name", "description", "industry", "website", "email_domains[]", "tags[]")
SEARCHED_CONTACT = ("first_name", "last_name", "email")


def searched(actor: Any, rows: QuerySet[GroupAccount], query: str | None) -> QuerySet[GroupAccount]:
    people = contacts_api.contacts(actor)

    def linked(word: str) -> Q:
        return Q(contact_links__contact__in=people.filter(search.holds(word, SEARCHED_CONTACT)))

    return search.matching(rows, query, SEARCHED, also=linked).distinct()


def with_counts(rows: QuerySet[GroupAccount]) -> QuerySet[GroupAccount]:
    return rows.annotate(contact_count=Count("contact_links", distinct=True))


def contacts_of(actor: Any, account: GroupAccount) -> list[Any]:
    """The account's contacts the actor may see: its organisation contact, then its people."""
    people = [row.contact for row in contacts_api.visible(actor, account.contact_links)]
    if account.organisation_id:
        organisation = contacts_api.contacts(actor).filter(pk=account.organisation_id).first()
        if organisation is not None and organisation not in people:
            people.insert(0, organisation)
    return people


def addresses_of(contacts: list[Any]) -> list[str]:
    return list(dict.fromkeys(address.lower() for contact in contacts for address in contact.addresses))
