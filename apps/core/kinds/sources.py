"""Where areas learn about one another's activity with people: the upcoming events in which a
contact takes part (Calendars), the e-mails from or to some addresses (Email Inbox). (Sending
mail is the mail app's own public module, apps.mail.api.)

An area that holds such activity registers a source from its declaration (apps.core.areas:
`Area(event_sources=[CalendarEvents()])`). A source is used only where its area is installed;
with none, the tools that need one answer AREA_NOT_AVAILABLE, never an empty success.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

from apps.core import workspaces
from apps.core.actors import Actor
from apps.core.errors import AreaNotAvailable, NoCalendar, NoMailbox


@dataclass(frozen=True)
class UpcomingEvent:
    id: int
    title: str
    starts_at: datetime
    ends_at: datetime | None = None
    location: str = ""
    url: str = ""
    area: str = ""


class EventSource(Protocol):
    area: str

    def upcoming(
        self, *, actor: Actor | None, contact: Any, start: datetime, end: datetime, limit: int
    ) -> list[UpcomingEvent]:
        """Events between start and end in which the contact takes part, soonest first."""
        ...


@dataclass(frozen=True)
class Message:
    id: int
    subject: str
    sender: str
    recipients: list[str]
    sent_at: datetime
    snippet: str = ""
    url: str = ""
    area: str = ""


@dataclass(frozen=True)
class MessagePage:
    items: list[Message] = field(default_factory=list)
    total: int = 0


class MessageSource(Protocol):
    area: str

    def search(
        self, *, actor: Actor | None, addresses: list[str], query: str, limit: int, offset: int
    ) -> MessagePage:
        """Messages from or to any of `addresses` matching `query` (empty: all), newest first."""
        ...


_event_sources: list[EventSource] = []
_message_sources: list[MessageSource] = []


def register_event_source(source: EventSource) -> None:
    if source not in _event_sources:
        _event_sources.append(source)


def register_message_source(source: MessageSource) -> None:
    if source not in _message_sources:
        _message_sources.append(source)


S = TypeVar("S", EventSource, MessageSource)


def _installed(sources: list[S], none: type[AreaNotAvailable]) -> list[S]:
    """Those of `sources` whose area the current workspace has; `none` (AREA_NOT_AVAILABLE) when
    there is none."""
    installed = [source for source in sources if workspaces.has_area(source.area)]
    if not installed:
        raise none()
    return installed


def calendars() -> list[EventSource]:
    """The installed event sources; AREA_NOT_AVAILABLE when there is none."""
    return _installed(_event_sources, NoCalendar)


def upcoming_events(
    *, actor: Actor | None, contacts: list[Any], start: datetime, end: datetime, limit: int
) -> list[UpcomingEvent]:
    """The events between start and end in which any of `contacts` takes part, each once,
    soonest first; AREA_NOT_AVAILABLE when no calendar is installed."""
    found: dict[tuple[str, int, datetime], UpcomingEvent] = {}
    for source in calendars():
        for contact in contacts:
            for event in source.upcoming(actor=actor, contact=contact, start=start, end=end, limit=limit):
                found.setdefault((event.area, event.id, event.starts_at), event)
    return sorted(found.values(), key=lambda event: event.starts_at)[:limit]


def mailboxes() -> list[MessageSource]:
    """The installed message sources; AREA_NOT_AVAILABLE when there is none."""
    return _installed(_message_sources, NoMailbox)


def search_messages(
    *, actor: Actor | None, addresses: list[str], query: str, limit: int, offset: int
) -> MessagePage:
    """Messages from or to any of `addresses` across the mailboxes, newest first; the page at
    `offset`. AREA_NOT_AVAILABLE when no mailbox is installed."""
    total, found = 0, []
    for source in mailboxes():
        page = source.search(
            actor=actor, addresses=addresses, query=query.strip(), limit=offset + limit, offset=0
        )
        total += page.total
        found += page.items
    found.sort(key=lambda message: message.sent_at, reverse=True)
    return MessagePage(items=found[offset : offset + limit], total=total)


@contextmanager
def registered(
    *, events: Sequence[EventSource] = (), messages: Sequence[MessageSource] = ()
) -> Iterator[None]:
    """Registers sources for the duration of a block (tests of the plug-in contract)."""
    saved = (list(_event_sources), list(_message_sources))
    for source in events:
        register_event_source(source)
    for message_source in messages:
        register_message_source(message_source)
    try:
        yield
    finally:
        _event_sources[:] = saved[0]
        _message_sources[:] = saved[1]
