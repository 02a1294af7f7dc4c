"""Sessions kept in each web process (apps.mcp.sessions): a live session is not read from the
database on every request, ending it is seen at once by a process that keeps it (told through
Redis, apps.mcp.endings, or checked in Redis while not told), the catalogue's state of a session
is never kept, and without Redis the database decides. In-process, through `serve` with the real
credential scheme; the listener runs on an event loop of its own, as in a web process."""

import threading
import time
from typing import Annotated

import pytest
import redis
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.permissions import CataloguePerm
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Done
from apps.catalogue.testing import temporary_tools
from apps.core import kept
from apps.mcp import endings, sessions, streams
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
    McpSession.objects.filter(digest=digest).update(ended_at=kept[2].last_seen_at)
    sessions._kept[(connection.schema_name, digest)] = kept
    assert door.send("POST", PING).status == 404


class CountingRedis:
    """The real client, counting the end-mark checks asked of it."""

    def __init__(self) -> None:
        self.checks = 0
        self.client = streams.redis_client()

    def exists(self, *keys: str) -> int:
        self.checks += 1
        return self.client.exists(*keys)


def wait_for(condition, seconds: float = 5.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def test_while_told_of_endings_a_kept_session_costs_no_round_trip(door, told, monkeypatch):
    counting = CountingRedis()
    monkeypatch.setattr(streams, "redis_client", lambda: counting)
    assert door.send("POST", PING).status == 200  # read from the database, kept, trusted

    with CaptureQueriesContext(connection) as captured:
        for _ in range(3):
            assert door.send("POST", PING).status == 200

    assert counting.checks == 0
    assert session_reads(captured) == []


def test_a_session_ended_by_another_process_is_refused_as_soon_as_this_one_is_told(door, told, monkeypatch):
    digest = digest_of(door.headers["mcp-session-id"])
    key = (connection.schema_name, digest)
    assert door.send("POST", PING).status == 200
    assert door.send("POST", PING).status == 200
    assert key in sessions._kept

    # This thread ends it as another process would: without keeping it, so without forgetting it
    # here. The listener's thread forgets as told (and may be told before the context ends).
    here, forget = threading.current_thread(), sessions._forget
    with monkeypatch.context() as other_process:
        other_process.setattr(
            sessions, "_forget", lambda keys: None if threading.current_thread() is here else forget(keys)
        )
        sessions.sessions_end(McpSession.objects.filter(digest=digest))

    assert wait_for(lambda: key not in sessions._kept), "this process was not told"
    reply = door.send("POST", PING)
    assert reply.status == 404
    assert reply.body["error"]["message"].startswith("Session not found")


def test_a_session_verified_while_an_end_was_told_is_checked_again(door, told, monkeypatch):
    counting = CountingRedis()
    monkeypatch.setattr(streams, "redis_client", lambda: counting)
    stamp = told.stamp()
    assert door.send("POST", PING).status == 200
    assert sessions._kept[(connection.schema_name, digest_of(door.headers["mcp-session-id"]))][3] == stamp

    # Some other session ends meanwhile (any message changes the epoch)...
    monkeypatch.setattr(streams, "redis_client", lambda: counting.client)
    sessions._mark_ended(["0" * 64])
    assert wait_for(lambda: told.stamp() != stamp)
    monkeypatch.setattr(streams, "redis_client", lambda: counting)

    # ...so what was verified before is checked in Redis once, then trusted again.
    for _ in range(3):
        assert door.send("POST", PING).status == 200
    assert counting.checks == 1


def test_without_the_listener_a_kept_session_is_checked_in_redis_on_every_request(door, monkeypatch):
    assert sessions.watch.stamp() is None  # no event loop listens in this test
    counting = CountingRedis()
    monkeypatch.setattr(streams, "redis_client", lambda: counting)
    assert door.send("POST", PING).status == 200

    for _ in range(3):
        assert door.send("POST", PING).status == 200
    assert counting.checks == 3


def test_when_the_listener_loses_redis_nothing_kept_is_trusted_until_it_is_back(door, told, monkeypatch):
    assert door.send("POST", PING).status == 200
    before = told.stamp()
    # Redis drops the listener's connection (a restart, a network cut): messages may be lost.
    # Only this process's: the other test processes' listeners share the server.
    client = streams.redis_client()
    listeners = [found["id"] for found in client.client_list() if found["name"] == endings.client_name()]
    assert listeners
    for listener in listeners:
        client.client_kill_filter(_id=listener)
    assert wait_for(lambda: told.stamp() is None or told.stamp() != before)

    counting = CountingRedis()
    monkeypatch.setattr(streams, "redis_client", lambda: counting)
    assert door.send("POST", PING).status == 200
    assert counting.checks == 1  # checked, not trusted

    assert wait_for(lambda: told.stamp() is not None), "the listener did not subscribe again"
    assert door.send("POST", PING).status == 200  # checked once more under the new epoch
    checks = counting.checks
    assert door.send("POST", PING).status == 200
    assert counting.checks == checks  # trusted again


def test_a_kept_session_read_again_is_kept_anew_while_live_and_forgotten_once_ended(door, told):
    digest = digest_of(door.headers["mcp-session-id"])
    assert door.send("POST", PING).status == 200
    key = (connection.schema_name, digest)
    before = sessions._kept[key]

    sessions._renew(key)
    after = sessions._kept[key]
    assert after is not before and after[3] == told.stamp()  # kept anew, trusted
    assert after[2].last_seen_at >= before[2].last_seen_at

    # Ended without a word to this process (its mark and message lost).
    McpSession.objects.filter(digest=digest).update(ended_at=timezone.now())
    sessions._renew(key)
    assert key not in sessions._kept
    assert door.send("POST", PING).status == 404


def test_a_session_read_again_while_an_end_is_told_is_not_kept(door, told, monkeypatch):
    digest = digest_of(door.headers["mcp-session-id"])
    assert door.send("POST", PING).status == 200
    key = (connection.schema_name, digest)
    load = sessions._load

    def read_as_an_end_is_told(digest: str):  # type: ignore[no-untyped-def]
        row = load(digest)
        told._told[kept.ENDED] += 1  # the end of some session told while this one was read
        return row

    monkeypatch.setattr(sessions, "_load", read_as_an_end_is_told)
    sessions._renew(key)
    assert key not in sessions._kept  # the next request reads it itself
