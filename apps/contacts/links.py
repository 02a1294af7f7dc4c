"""Where later areas plug into contacts.

Contacts link to documents and files, show upcoming calendar events, and search e-mails, but
those live in other areas (Documents, Files, Calendars, Email Inbox). Each of those areas
registers a provider here from its `AppConfig.ready()`:

    from apps.contacts import links
    links.register_link_target(DocumentTarget())      # kind "document", area "documents"
    links.register_event_source(CalendarEvents())     # area "calendars"
    links.register_message_source(InboxMessages())    # area "inbox"

A provider is used only where its area is installed. With none, the tools that need it answer a
clear tool error (AREA_NOT_AVAILABLE), never an empty success. The links themselves
(`ContactLink`: kind + target id + the title at link time) are stored by contacts, so a document
area only has to say which items exist and which the person may see.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from apps.accounts.access import current_workspace


@dataclass(frozen=True)
class LinkedItem:
    id: int
    title: str
    url: str = ""
    mime_type: str = ""
    size: int | None = None
    updated_at: datetime | None = None


class LinkTarget(Protocol):
    kind: str  # "document" or "file" (ContactLink.Kind)
    area: str  # the area key that must be installed

    def resolve(self, *, actor: Any, target_ids: list[int]) -> dict[int, LinkedItem]:
        """The items among `target_ids` that exist and that `actor` may see."""
        ...


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
        self, *, actor: Any, contact: Any, start: datetime, end: datetime, limit: int
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

    def search(self, *, actor: Any, addresses: list[str], query: str, limit: int, offset: int) -> MessagePage:
        """Messages from or to any of `addresses` matching `query` (empty: all), newest first."""
        ...


_link_targets: dict[str, LinkTarget] = {}
_event_sources: list[EventSource] = []
_message_sources: list[MessageSource] = []


def register_link_target(target: LinkTarget) -> None:
    _link_targets[target.kind] = target


def register_event_source(source: EventSource) -> None:
    if source not in _event_sources:
        _event_sources.append(source)


def register_message_source(source: MessageSource) -> None:
    if source not in _message_sources:
        _message_sources.append(source)


def _installed(area: str) -> bool:
    workspace = current_workspace()
    return workspace is not None and workspace.has_area(area)


def link_target(kind: str) -> LinkTarget | None:
    target = _link_targets.get(kind)
    return target if target is not None and _installed(target.area) else None


def event_sources() -> list[EventSource]:
    return [source for source in _event_sources if _installed(source.area)]


def message_sources() -> list[MessageSource]:
    return [source for source in _message_sources if _installed(source.area)]


# --- what every area with contacts asks the providers (contacts, group accounts...) ---------------


def calendars() -> list[EventSource]:
    """The installed event sources; AREA_NOT_AVAILABLE when there is none."""
    from apps.contacts.errors import AreaNotInstalled

    sources = event_sources()
    if not sources:
        raise AreaNotInstalled(
            "No calendar is available in this workspace (the Calendars area is not installed), so there "
            "are no events to show. Tell the user; do not retry."
        )
    return sources


def upcoming_events(
    *, actor: Any, contacts: list[Any], start: datetime, end: datetime, limit: int
) -> list[UpcomingEvent]:
    """The events between start and end in which any of `contacts` takes part, each once,
    soonest first; AREA_NOT_AVAILABLE when no calendar is installed."""
    sources = calendars()
    found: dict[tuple[str, int, datetime], UpcomingEvent] = {}
    for source in sources:
        for contact in contacts:
            for event in source.upcoming(actor=actor, contact=contact, start=start, end=end, limit=limit):
                found.setdefault((event.area, event.id, event.starts_at), event)
    return sorted(found.values(), key=lambda event: event.starts_at)[:limit]


def mailboxes() -> list[MessageSource]:
    """The installed message sources; AREA_NOT_AVAILABLE when there is none."""
    from apps.contacts.errors import AreaNotInstalled

    sources = message_sources()
    if not sources:
        raise AreaNotInstalled(
            "No mailbox is connected in this workspace (the Email Inbox area is not installed), so there "
            "are no e-mails to search. Tell the user; do not retry."
        )
    return sources


def search_messages(*, actor: Any, addresses: list[str], query: str, limit: int, offset: int) -> MessagePage:
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
def providers(
    *,
    targets: list[LinkTarget] = (),  # type: ignore[assignment]
    events: list[EventSource] = (),  # type: ignore[assignment]
    messages: list[MessageSource] = (),  # type: ignore[assignment]
) -> Iterator[None]:
    """Registers providers for the duration of a block (tests of the plug-in contract)."""
    saved = (dict(_link_targets), list(_event_sources), list(_message_sources))
    for target in targets:
        register_link_target(target)
    for source in events:
        register_event_source(source)
    for message_source in messages:
        register_message_source(message_source)
    try:
        yield
    finally:
        _link_targets.clear()
        _link_targets.update(saved[0])
        _event_sources[:] = saved[1]
        _message_sources[:] = saved[2]
