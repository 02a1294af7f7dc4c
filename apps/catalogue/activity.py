"""Activity of other areas as every area's tools show it (Contacts, Group Accounts, Files...):
the upcoming calendar events and the e-mails of some contacts, and what is shown of a linked
document or file (`carried`: a record's documents and files). The sources behind them plug in
through `apps.core.kinds` (items) and `apps.core.kinds.sources` (events, e-mails); this module
turns what they give into the answers the tools return, so every area answers alike."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Any

from django.utils import timezone
from pydantic import Field

from apps.catalogue.shapes import Out, Page, PersonRef, page_of
from apps.core import kinds
from apps.core.actors import Actor
from apps.core.errors import AreaNotAvailable
from apps.core.kinds import attachments, sources
from apps.core.kinds.attachments import Attached

Days = Annotated[int, Field(ge=1, le=365, description="How far ahead")]
HowManyEvents = Annotated[int, Field(ge=1, le=100, description="At most")]
EmailQuery = Annotated[str, Field(max_length=200, description="Words; empty lists all")]


class LinkedItemOut(Out):
    """What every answer about a linked document or file shows of the item itself; each area adds
    when and by whom it was linked (contacts: LinkOut, other records: AttachedItemOut)."""

    kind: str = Field(description="document or file")
    id: int
    title: str
    available: bool = Field(description="False: gone or hidden")
    url: str
    mime_type: str
    size: int | None


class AttachedItemOut(LinkedItemOut):
    """A file or document attached to a record of any area, as the caller may see it now."""

    attached_at: datetime
    attached_by: PersonRef | None


@dataclass(frozen=True)
class Carried:
    """The documents and files a record carries, as the reader may see them now, newest link
    first, and the areas among documents and files that are not installed here."""

    documents: list[Attached]
    files: list[Attached]
    unavailable_areas: list[str]


def carried(*, actor: Actor, record: Any) -> Carried:
    found = attachments.attachments_of(actor=actor, record=record)
    return Carried(
        documents=[item for item in found if item.kind == "document"],
        files=[item for item in found if item.kind == "file"],
        unavailable_areas=[
            area
            for area in ("documents", "files")
            if kinds.describe(actor=actor, item_kind=area[:-1], ids=[]) is None
        ],
    )


class UpcomingEventOut(Out):
    id: int
    title: str
    starts_at: datetime
    ends_at: datetime | None
    location: str
    url: str
    area: str


class EmailOut(Out):
    id: int
    subject: str
    sender: str
    recipients: list[str]
    sent_at: datetime
    snippet: str
    url: str
    area: str


@dataclass(frozen=True)
class Upcoming:
    """The events found between `start` and `end`."""

    start: datetime
    end: datetime
    events: list[UpcomingEventOut]


def upcoming(*, actor: Actor, contacts: list[Any], days: int, limit: int) -> Upcoming:
    """The calendar events within the next `days` in which any of `contacts` takes part, each
    once, soonest first. AREA_NOT_AVAILABLE when no calendar is installed, even without contacts."""
    sources.calendars()
    start = timezone.now()
    end = start + timedelta(days=days)
    found = (
        sources.upcoming_events(actor=actor, contacts=contacts, start=start, end=end, limit=limit)
        if contacts
        else []
    )
    return Upcoming(start=start, end=end, events=[UpcomingEventOut.model_validate(event) for event in found])


def email_page(*, actor: Actor, addresses: list[str], query: str, limit: int, offset: int) -> Page[EmailOut]:
    """The e-mails from or to any of `addresses` that match `query` (empty: all), newest first,
    the page at `offset`. AREA_NOT_AVAILABLE when no mailbox is installed."""
    page = sources.search_messages(actor=actor, addresses=addresses, query=query, limit=limit, offset=offset)
    items = [EmailOut.model_validate(message) for message in page.items]
    return page_of(items, total=page.total, limit=limit, offset=offset)


# --- sections of an examine answer, which says what it could not show instead of failing --------


class Section(Out):
    available: bool
    reason: str = Field(description="Why not, if not available")


class EventsSection(Section):
    events: list[UpcomingEventOut]


def events_section(*, actor: Actor, contacts: list[Any], days: int = 30, limit: int = 10) -> EventsSection:
    """The upcoming events of `contacts`, or why there are none to show (no calendar installed)."""
    try:
        found = upcoming(actor=actor, contacts=contacts, days=days, limit=limit)
    except AreaNotAvailable as error:
        return EventsSection(available=False, reason=str(error.message), events=[])
    return EventsSection(available=True, reason="", events=found.events)
