"""Sessions kept in each web process (apps.mcp.sessions): a live session is not read from the
database on every request, ending it is seen at once by a process that keeps it, the catalogue's
state of a session is never kept, and without Redis the database decides. In-process, through
`serve` with the real credential scheme."""

from typing import Annotated

import pytest
import redis
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.permissions import CataloguePerm
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Done
from apps.catalogue.testing import temporary_tools
from apps.mcp import sessions, streams
from apps.mcp.models import McpSession
from apps.mcp.sessions import StoredSessionState, digest_of
from apps.mcp.testing import Door, pat_and_key

PING = {"jsonrpc": "2.0", "id": 9, "method": "ping"}


@pytest.fixture
def door(people):  # type: ignore[no-untyped-def]
    door = Door(pat_and_key("member@acme.example"))
    door.initialize()
    return door


def session_reads(captured: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in captured.captured_queries if "mcp_mcpsession" in query["sql"]]


def kept_by_another_process(digest: str):  # type: ignore[no-untyped-def]
    """What this process keeps of the session, to put back as if another process had kept it."""
    return sessions._kept[(connection.schema_name, digest)]


def test_a_live_session_is_read_once_then_kept(door):
    assert door.send("POST", PING).status == 200  # read from the database, then kept

    with CaptureQueriesContext(connection) as captured:
        assert door.send("POST", PING).status == 200
        assert door.call("listContacts", {})["result"]["isError"] is False

    assert session_reads(captured) == []


def test_a_session_ended_elsewhere_is_not_found_at_once_where_it_is_kept(door):
    digest = digest_of(door.headers["mcp-session-id"])
    assert door.send("POST", PING).status == 200
    kept = kept_by_another_process(digest)

    # Ended by an erasure request (or a DELETE through another process)...
    sessions.sessions_end(McpSession.objects.filter(digest=digest))
    sessions._kept[(connection.schema_name, digest)] = kept

    # ...this process, which kept it, answers 404 on its next request.
    reply = door.send("POST", PING)
    assert reply.status == 404
    assert reply.body["error"]["message"].startswith("Session not found")


def test_delete_ends_it_everywhere_and_a_second_delete_is_404(door):
    assert door.send("POST", PING).status == 200

    assert door.send("DELETE").status == 204
    assert door.send("POST", PING).status == 404
    assert door.send("DELETE").status == 404


@tool("readSessionNote", permission=CataloguePerm.DISCOVER, title="Read a session note", register_it=False)
def read_session_note(ctx: ToolContext, *, key: Annotated[str, Field(description="The key")]) -> Done:
    """Answers what the session holds under `key`."""
    return Done(message=repr(ctx.session.get(key)))


def test_the_catalogue_state_of_a_kept_session_is_always_read_fresh(door):
    digest = digest_of(door.headers["mcp-session-id"])
    assert door.send("POST", PING).status == 200  # kept from now on

    # Another process records something for the session (a mandatory first call, a confirmation).
    StoredSessionState(sessions._load(digest)).set("note", "from elsewhere")

    with temporary_tools(read_session_note):
        answer = door.call("readSessionNote", {"key": "note"})
    assert answer["result"]["structuredContent"]["message"] == "'from elsewhere'"


class NoRedis:
    def exists(self, *keys: str) -> int:
        raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:1. Connection refused.")


def test_without_redis_a_kept_session_is_read_from_the_database(door, monkeypatch):
    digest = digest_of(door.headers["mcp-session-id"])
    assert door.send("POST", PING).status == 200
    kept = kept_by_another_process(digest)
    asked = []
    monkeypatch.setattr(streams, "redis_client", lambda: asked.append(1) or NoRedis())
    monkeypatch.setattr(sessions, "_redis_out_until", 0.0)

    with CaptureQueriesContext(connection) as captured:
        assert door.send("POST", PING).status == 200
        assert door.send("POST", PING).status == 200
    assert len(session_reads(captured)) == 2
    assert len(asked) == 1  # not asked again for REDIS_RETRY_SECONDS: each try may cost a time-out

    # Ended while Redis is out of reach: the mark is lost, the database still says so.
    McpSession.objects.filter(digest=digest).update(ended_at=kept[1].last_seen_at)
    sessions._kept[(connection.schema_name, digest)] = kept
    assert door.send("POST", PING).status == 404
