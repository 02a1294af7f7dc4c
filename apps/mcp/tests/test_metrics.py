"""What the MCP door counts for operators (in-process, through `serve` with the real credential
scheme): tool calls by outcome, sessions opened, ended and expired. tests/test_multiprocess.py
reads the same counters summed over three web processes."""

from datetime import timedelta

from django.utils import timezone
from prometheus_client import REGISTRY

from apps.mcp.models import McpSession
from apps.mcp.sessions import digest_of, sessions_purge
from apps.mcp.testing import Door, pat_and_key


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def calls(tool: str, outcome: str) -> float:
    return value("atrium_tool_calls_total", door="mcp", tool=tool, outcome=outcome)


def test_tool_calls_sessions_and_their_outcomes_are_counted(people):
    door = Door(pat_and_key("member@acme.example"))
    opened, ended = (
        value("atrium_mcp_sessions_total", event="initialized"),
        value("atrium_mcp_sessions_total", event="ended"),
    )
    before = {
        "ok": calls("createContact", "ok"),
        "tool_error": calls("getContact", "tool_error"),
        "not_found": calls("unknown", "not_found"),
        "seconds": value("atrium_tool_call_duration_seconds_count", door="mcp", tool="createContact"),
    }

    door.initialize()
    created = door.call(
        "createContact", {"contact": {"firstName": "Counted", "email": "counted@example.com"}}
    )
    refused = door.call("getContact", {"contactId": "seven"})
    unknown = door.call("noSuchTool", {})
    deleted = door.send("DELETE")

    assert created["result"]["isError"] is False
    assert refused["result"]["isError"] is True
    assert "error" in unknown
    assert deleted.status == 204
    assert calls("createContact", "ok") == before["ok"] + 1
    assert calls("getContact", "tool_error") == before["tool_error"] + 1
    assert calls("unknown", "not_found") == before["not_found"] + 1  # never the name a caller made up
    assert (
        value("atrium_tool_call_duration_seconds_count", door="mcp", tool="createContact")
        == before["seconds"] + 1
    )
    assert value("atrium_mcp_sessions_total", event="initialized") == opened + 1
    assert value("atrium_mcp_sessions_total", event="ended") == ended + 1


def test_a_session_found_idle_too_long_ends_and_is_counted_expired_once(people, settings):
    settings.MCP_SESSION_CACHE_SECONDS = 0  # its row is aged under the process: nothing kept
    door = Door(pat_and_key("member@acme.example"))
    session_id = door.initialize()
    assert door.call("listContacts", {})["result"]["isError"] is False
    expired = value("atrium_mcp_sessions_total", event="expired")

    idle = timedelta(seconds=settings.MCP_SESSION_IDLE_SECONDS + 1)
    McpSession.objects.filter(digest=digest_of(session_id)).update(last_seen_at=timezone.now() - idle)
    first = door.send("POST", {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    again = door.send("POST", {"jsonrpc": "2.0", "id": 4, "method": "tools/list"})

    assert (first.status, again.status) == (404, 404)
    assert first.body["error"]["message"].startswith("Session not found")
    assert value("atrium_mcp_sessions_total", event="expired") == expired + 1
    assert McpSession.objects.get(digest=digest_of(session_id)).ended_at is not None


def test_the_purge_counts_as_expired_the_idle_sessions_nobody_came_back_to(people, settings):
    door = Door(pat_and_key("member@acme.example"))
    forgotten, deleted, recent = door.initialize(), door.initialize(), door.initialize()
    assert door.send("DELETE").status == 204  # the last one opened: `recent` ended by its client
    long_ago = timezone.now() - timedelta(seconds=settings.MCP_SESSION_IDLE_SECONDS, days=8)
    McpSession.objects.filter(digest__in=[digest_of(forgotten), digest_of(deleted)]).update(
        last_seen_at=long_ago
    )
    McpSession.objects.filter(digest=digest_of(deleted)).update(ended_at=long_ago)
    expired = value("atrium_mcp_sessions_total", event="expired")

    removed = sessions_purge()

    assert removed == 2
    assert value("atrium_mcp_sessions_total", event="expired") == expired + 1
    mine = [digest_of(forgotten), digest_of(deleted), digest_of(recent)]
    assert list(McpSession.objects.filter(digest__in=mine).values_list("digest", flat=True)) == [
        digest_of(recent)
    ]
