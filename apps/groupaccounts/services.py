"""Writes about group accounts. Each checks the actor's permission itself and logs ids only."""

import logging
import re
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.contacts import api as contacts_api
from apps.core import clean, records, search
from apps.core.actors import require
from apps.core.errors import invalid
from apps.core.records import unique_name
from apps.groupaccounts.models import GroupAccount
from apps.groupaccounts.permissions import GroupAccountsPerm

FIELDS = (
    "name",
    "kind",
    "description",
    "industry",
    "website",
    "email_domains",
    "organisation",
    "owner",
    "tags",
)
logger = logging.getLogger(__name__)
WEBSITE_LIMIT = 200  # GroupAccount.website's column
DOMAIN = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")


def account_create(*, actor: Any, fields: dict[str, Any]) -> GroupAccount:
    return records.create(
        GroupAccount,
        actor=actor,
        permission=GroupAccountsPerm.EDIT,
        fields=fields,
        apply=_apply,
        owner=person(actor),
    )


def account_update(*, actor: Any, account: GroupAccount, fields: dict[str, Any]) -> list[str]:
    return records.update(
        account, actor=actor, permission=GroupAccountsPerm.EDIT, fields=fields, apply=_apply, names=FIELDS
    )


def account_delete(*, actor: Any, account: GroupAccount) -> GroupAccount:
    """Archives (soft-deletes) a group account; its links stay for when it is restored."""
    require(actor, GroupAccountsPerm.DELETE)
    account = GroupAccount.objects.fetch(actor, account.pk, "delete")
    account.trash(actor)
    logger.info("group account %s archived by %s", account.pk, actor.pk)
    return account


def account_restore(*, actor: Any, account: GroupAccount) -> GroupAccount:
    """Brings an archived group account back, unless a live one has taken its name since."""
    require(actor, GroupAccountsPerm.DELETE)
    account = GroupAccount.objects.fetch(actor, account.pk, "delete", trash=True)
    if account.deleted_at is None:
        raise invalid("group_account_id", _("group account {account} is not archived"), account=account.pk)
    unique_name(account, account.name, what="a group account", limit=200)
    account.untrash()
    logger.info("group account %s restored by %s", account.pk, actor.pk)
    return account


def _apply(actor: Any, account: GroupAccount, fields: dict[str, Any], creating: bool) -> None:
    if "name" in fields or creating:
        account.name = unique_name(account, fields.get("name"), what="a group account", limit=200)
    if "description" in fields:
        account.description = clean.long_text(fields["description"], field="description", limit=10_000)
    if "industry" in fields:
        account.industry = clean.text(fields["industry"], field="industry", limit=100)
    if fields.get("kind"):
        account.kind = fields["kind"]
    if "website" in fields:
        account.website = _website(fields["website"] or "")
    if "email_domains" in fields:
        account.email_domains = _domains(fields["email_domains"] or [])
    if "tags" in fields:
        account.tags = search.tags(fields["tags"])
    if "organisation_id" in fields:
        account.organisation = _organisation(actor, fields["organisation_id"])
    if "owner_email" in fields:
        owner = clean.person_by_email(fields["owner_email"]) if fields["owner_email"] else None
        account.owner = clean.able(owner, GroupAccountsPerm.EDIT, field="owner_email")


def _website(value: str) -> str:
    value = value.strip()
    if value and "://" not in value:
        value = f"https://{value}"
    if value:
        try:
            URLValidator(schemes=["http", "https"])(value)
        except ValidationError:
            raise invalid("website", _("{value!r} is not a web address"), value=value) from None
    # With the scheme put before it, a long address may no longer fit what the record keeps.
    return clean.text(value, field="website", limit=WEBSITE_LIMIT)


def _domains(values: list[str]) -> list[str]:
    domains = []
    for value in values:
        domain = value.strip().lower().removeprefix("@")
        if not DOMAIN.match(domain):
            raise invalid(
                "email_domains", _("{value!r} is not a domain name such as example.com"), value=value
            )
        domains.append(domain)
    return list(dict.fromkeys(domains))


def _organisation(actor: Any, contact_id: int | None) -> Any:
    return contacts_api.organisation(actor=actor, contact_id=contact_id) if contact_id is not None else None
