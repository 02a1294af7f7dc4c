"""Other areas as an area's tests stand them in: items (documents, files) described, and sources
of events and e-mails (apps.core.kinds.sources), over data the test gives them, in place of the
areas' own for a block; and a workspace without some areas. For tests only.

    with areas(Mailbox("contacts", messages=[...])), without_areas("calendars"):
        ...

A stand-in belongs to an area (`area`) that must be installed in the test's workspace: the one
whose tests use it, usually.
"""

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from apps.core import kinds
from apps.core.kinds import Item
from apps.core.kinds.sources import Message, MessagePage, UpcomingEvent, registered


@dataclass
class Items:
    """Documents or files: id -> item; `hidden` are ids the actor may not see."""

    kind_key: str
    area: str
    items: dict[int, Item] = field(default_factory=dict)
    hidden: set[int] = field(default_factory=set)

    def describe(self, *, actor: Any, ids: list[int]) -> dict[int, Item]:
        return {i: self.items[i] for i in ids if i in self.items and i not in self.hidden}

    def kind(self) -> kinds.Kind:
        return replace(kinds.registered(self.kind_key), area=self.area, describe=self.describe)


@dataclass
class Calendar:
    area: str
    # contact id -> events
    events: dict[int, list[UpcomingEvent]] = field(default_factory=dict)

    def upcoming(
        self, *, actor: Any, contact: Any, start: datetime, end: datetime, limit: int
    ) -> list[UpcomingEvent]:
        found = [event for event in self.events.get(contact.pk, []) if start <= event.starts_at <= end]
        return sorted(found, key=lambda event: event.starts_at)[:limit]


@dataclass
class Mailbox:
    area: str
    messages: list[Message] = field(default_factory=list)

    def search(self, *, actor: Any, addresses: list[str], query: str, limit: int, offset: int) -> MessagePage:
        wanted = {address.lower() for address in addresses}
        found = [
            message
            for message in self.messages
            if ({message.sender.lower(), *(r.lower() for r in message.recipients)} & wanted)
            and (not query or query.lower() in f"{message.subject} {message.snippet}".lower())
        ]
        found.sort(key=lambda message: message.sent_at, reverse=True)
        return MessagePage(items=found[offset : offset + limit], total=len(found))


@contextlib.contextmanager
def without_areas(*keys: str) -> Iterator[None]:
    """The active workspace without these areas installed, for the block (the test's transaction
    rolls the row back; the object in memory is put back here)."""
    from apps.core.workspaces import current_workspace

    workspace: Any = current_workspace()
    assert workspace is not None
    saved = list(workspace.installed_areas)
    workspace.installed_areas = [key for key in saved if key not in keys]
    workspace.save(update_fields=["installed_areas"])
    try:
        yield
    finally:
        workspace.installed_areas = saved
        workspace.save(update_fields=["installed_areas"])


@contextlib.contextmanager
def areas(*providers: Any) -> Iterator[None]:
    items = [p.kind() for p in providers if isinstance(p, Items)]
    events = [p for p in providers if isinstance(p, Calendar)]
    messages = [p for p in providers if isinstance(p, Mailbox)]
    with kinds.standing_in(*items), registered(events=events, messages=messages):
        yield
