"""What the group-account tools answer (camelCase JSON)."""

from datetime import datetime
from typing import Any

from pydantic import Field

from apps.catalogue.shapes import Out, PersonRef
from apps.contacts import related
from apps.contacts.related import LinkedContactOut
from apps.contacts.shapes import ContactRef
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
        count = getattr(account, "contact_count", None)
        return cls(
            id=account.pk,
            name=account.name,
            kind=account.kind,
            industry=account.industry,
            owner=PersonRef.of(account.owner) if account.owner_id else None,
            contacts=count if count is not None else account.contact_links.count(),
            tags=list(account.tags),
            updated_at=account.updated_at,
        )


class GroupAccountOut(Out):
    id: int
    name: str
    kind: str = Field(description="customer, prospect, supplier, partner or other")
    description: str
    industry: str
    website: str
    email_domains: list[str]
    organisation: ContactRef | None = Field(description="The organisation as a contact")
    owner: PersonRef | None
    tags: list[str]
    contacts: list[LinkedContactOut] = Field(description="Linked contacts you may see")
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, account: GroupAccount, actor: Any) -> "GroupAccountOut":
        return cls(
            id=account.pk,
            name=account.name,
            kind=account.kind,
            description=account.description,
            industry=account.industry,
            website=account.website,
            email_domains=list(account.email_domains),
            organisation=ContactRef.of(organisation) if (organisation := account.organisation) else None,
            owner=PersonRef.of(account.owner) if account.owner_id else None,
            tags=list(account.tags),
            contacts=[LinkedContactOut.of(row) for row in related.visible(actor, account.contact_links)],
            created_at=account.created_at,
            updated_at=account.updated_at,
        )
