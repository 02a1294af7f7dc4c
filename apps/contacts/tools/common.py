"""What the Contacts area's tools share: argument types and output shapes."""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.activity import LinkedItemOut, UpcomingEventOut
from apps.catalogue.shapes import From, Out, PersonRef, id_field

ContactId = Annotated[int, id_field("searchContacts")]
Kind = Literal["person", "organisation"]
Stage = Literal["lead", "prospect", "customer", "partner", "supplier", "former"]
Visibility = Literal["workspace", "private"]

Text100 = Annotated[str, Field(max_length=100)]
Text200 = Annotated[str, Field(max_length=200)]


class CreditCheckOut(Out):
    contact_id: int
    provider: str
    reference: str
    purpose: str
    score: int | None
    band: str
    summary: str
    checked_at: datetime


class LinkOut(LinkedItemOut):
    """A link as apps.core.kinds.attachments shows it now (a contact's links are ContactLink rows,
    which the contact kind's store gives it)."""

    linked_at: Annotated[datetime, From("attached_at")]
    linked_by: Annotated[PersonRef | None, From("attached_by")]


class UpcomingEventsOut(Out):
    contact_id: int
    start: datetime
    end: datetime
    events: list[UpcomingEventOut]
