"""Other areas as the tests stand them in: items (documents, files) described, and sources of
events and e-mails (apps.core.kinds.sources), over data the test gives them, in place of the
areas' own for a block (Email Inbox does not exist yet)."""

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from django.test import override_settings

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
    area: str = "contacts"
    # contact id -> events
    events: dict[int, list[UpcomingEvent]] = field(default_factory=dict)

    def upcoming(
        self, *, actor: Any, contact: Any, start: datetime, end: datetime, limit: int
    ) -> list[UpcomingEvent]:
        found = [event for event in self.events.get(contact.pk, []) if start <= event.starts_at <= end]
        return sorted(found, key=lambda event: event.starts_at)[:limit]


@dataclass
class Mailbox:
    area: str = "contacts"
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


def documents(**items: str) -> Items:
    # The contacts area stands in for the Documents area's key: it is installed in the demo.
    return Items(
        "document",
        "contacts",
        {int(key[1:]): Item(int(key[1:]), title) for key, title in items.items()},
    )


def files(**items: str) -> Items:
    return Items(
        "file",
        "contacts",
        {
            int(key[1:]): Item(
                int(key[1:]), title, url=f"/files/{key[1:]}", mime_type="application/pdf", size=1024
            )
            for key, title in items.items()
        },
    )


# --- a credit bureau on loopback, speaking apps.contacts.credit's protocol ------------------------


class Bureau:
    """A credit bureau HTTP server on 127.0.0.1: answers by the subject's name."""

    KEY = "bureau-test-key"

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        bureau = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                bureau.requests.append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
                )
                if self.path != "/v1/checks":
                    return self._answer(404, {"error": "no such endpoint"})
                if self.headers.get("Authorization") != f"Bearer {Bureau.KEY}":
                    return self._answer(401, {"error": "bad key"})
                subject = body["subject"]
                name = subject["name"]
                if "Unknown" in name:
                    return self._answer(404, {"error": "no file"})
                if not subject.get("country"):
                    return self._answer(422, {"error": "country is required"})
                if "Busy" in name:
                    return self._answer(503, {"error": "busy"})
                self._answer(
                    200,
                    {
                        "reference": f"rep-{body['reference']}",
                        "score": 712,
                        "band": "B",
                        "summary": f"{subject['type']} in {subject['country']}, no defaults",
                        "checked_at": "2026-01-15T10:00:00+00:00",
                    },
                )

            def _answer(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "Bureau":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def bureau_configured(key: str = Bureau.KEY) -> Iterator[Bureau]:
    with (
        Bureau() as bureau,
        override_settings(ATRIUM_CREDIT_BUREAU_URL=bureau.url, ATRIUM_CREDIT_BUREAU_KEY=key),
    ):
        yield bureau


@contextlib.contextmanager
def without_areas(*keys: str) -> Iterator[None]:
    """The active workspace without these areas installed, for the block (the test's transaction
    rolls the row back; the object in memory is put back here)."""
    from apps.core.workspaces import current_workspace

    workspace = current_workspace()
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
