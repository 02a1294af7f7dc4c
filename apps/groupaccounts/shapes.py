"""What the group-account tools answer (camelCase JSON)."""

from datetime import datetime
from typing import Any

from apps.catalogue.shapes import Out, PersonRef
from apps.contacts.api import ContactRef, LinkedContactOut
from apps.groupaccounts import selectors
from apps.groupaccounts.models import GroupAccount


class GroupAccountSummary(Out):
    id: int
    name: str
    kind: str
    industry: str
    owner: PersonRef | None
    contacts: int
    tags: list[str]
    updated_at: datetime

    @classmethod
    def of(cls, account: GroupAccount) -> "GroupAccountSummary":
        """`account` as `selectors.with_counts` gives it (its contacts the reader sees, counted)."""
        return cls.of_record(account, contacts=account.contact_count)  # type: ignore[attr-defined]


class GroupAccountOut(Out):
    id: int
    name: str
    kind: str
    description: str
    industry: str
    website: str
    email_domains: list[str]
    organisation: ContactRef | None
    owner: PersonRef | None
    tags: list[str]
    contacts: list[LinkedContactOut]
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, account: GroupAccount, actor: Any) -> "GroupAccountOut":
        return cls.of_record(
            account,
            organisation=selectors.organisation_of(actor, account),
            contacts=LinkedContactOut.many(actor, account),
        )
