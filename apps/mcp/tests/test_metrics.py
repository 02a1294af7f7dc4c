"""What the MCP door counts for operators (in-process, through `serve` with the real credential
scheme): tool calls by outcome, sessions opened and ended. tests/test_multiprocess.py reads the
same counters summed over three web processes."""

import json

from prometheus_client import REGISTRY

from apps.mcp.handlers import Request, serve
from apps.mcp.testing import ACCEPT_BOTH, PROTOCOL_VERSION, pat_and_key


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def calls(tool: str, outcome: str) -> float:
    return value("atrium_tool_calls_total", door="mcp", tool=tool, outcome=outcome)


class Door:
    def __init__(self, credentials: dict[str, str]) -> None:
        self.headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
        self.headers.update({name.lower(): value for name, value in credentials.items()})

    def send(self, method: str, message: dict | None = None):  # type: ignore[no-untyped-def]
        body = json.dumps(message).encode() if message is not None else b""
        return serve(Request(method, "http", "127.0.0.1", dict(self.headers), {}, body))

    def call(self, name: str, arguments: dict) -> dict:
        reply = self.send(
            "POST",
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            },
        )
        return reply.body


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

    reply = door.send(
        "POST",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "t"}},
        },
    )
    door.headers.update(
        {"mcp-session-id": reply.headers["Mcp-Session-Id"], "mcp-protocol-version": PROTOCOL_VERSION}
    )
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
