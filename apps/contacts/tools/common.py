"""What the Contacts area's tools share: argument types, output shapes and small helpers."""

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from django.utils import timezone
from pydantic import Field

from apps.catalogue.shapes import Out
from apps.contacts import links
from apps.contacts.models import Contact, CreditCheck
from apps.contacts.shapes import PersonRef

ContactId = Annotated[int, Field(ge=1, le=2**63 - 1, description="The contact's id")]
Kind = Literal["person", "organisation"]
Stage = Literal["lead", "prospect", "customer", "partner", "supplier", "former"]
Visibility = Literal["everyone", "private"]

Text100 = Annotated[str, Field(max_length=100)]
Text200 = Annotated[str, Field(max_length=200)]
Tag = Annotated[str, Field(min_length=1, max_length=50)]

Days = Annotated[int, Field(ge=1, le=365, description="How far ahead to look, in days")]
HowManyEvents = Annotated[int, Field(ge=1, le=100, description="How many events at most")]


class UpcomingEventOut(Out):
    id: int
    title: str
    starts_at: datetime
    ends_at: datetime | None
    location: str
    url: str
    area: str


class CreditCheckOut(Out):
    contact_id: int
    provider: str
    reference: str = Field(description="The bureau's reference of the report")
    purpose: str
    score: int | None
    band: str
    summary: str
    checked_at: datetime

    @classmethod
    def of(cls, check: CreditCheck) -> "CreditCheckOut":
        return cls(
            contact_id=check.contact_id,
            provider=check.provider,
            reference=check.reference,
            purpose=check.purpose,
            score=check.score,
            band=check.band,
            summary=check.summary,
            checked_at=check.checked_at,
        )


class LinkOut(Out):
    kind: str = Field(description="document or file")
    id: int
    title: str
    available: bool = Field(description="False when the item was removed or you may no longer read it")
    url: str
    mime_type: str
    size: int | None
    linked_at: datetime
    linked_by: PersonRef | None


class EmailOut(Out):
    id: int
    subject: str
    sender: str
    recipients: list[str]
    sent_at: datetime
    snippet: str
    url: str
    area: str


class UpcomingEventsOut(Out):
    contact_id: int
    start: datetime
    end: datetime
    events: list[UpcomingEventOut]


def upcoming_of(actor: Any, contact: Contact, days: int, limit: int) -> UpcomingEventsOut:
    """The calendar events `contact` takes part in within the next `days` (needs the Calendars area)."""
    start = timezone.now()
    end = start + timedelta(days=days)
    found = links.upcoming_events(actor=actor, contacts=[contact], start=start, end=end, limit=limit)
    return UpcomingEventsOut(
        contact_id=contact.pk,
        start=start,
        end=end,
        events=[UpcomingEventOut.model_validate(event) for event in found],
    )
