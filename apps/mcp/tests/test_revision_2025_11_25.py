"""What MCP 2025-11-25 changes at the endpoint (apps.mcp.versions), in raw HTTP against a live web
process: each behaviour for a client that negotiated 2025-11-25, and the behaviour of before for
one that offered 2025-06-18."""

import json
from typing import Any

import httpx
import pytest

from apps.mcp.testing import ACCEPT_BOTH

pytestmark = pytest.mark.live


def _sse(response: httpx.Response) -> list[dict[str, Any]]:
    """The events of an event-stream body: {"id", "retry", "data"} (data parsed, "" when empty)."""
    events, block = [], {}
    for line in response.iter_lines():
        if line == "":
            if block:
                events.append(block)
            block = {}
        elif line.startswith(":"):
            continue
        else:
            name, _sep, value = line.partition(": ")
            block[name] = value
    for event in events:
        event["data"] = json.loads(event["data"]) if event.get("data") else ""
    return events


def _post_stream(mcp, message: dict[str, Any], stop_after: int | None = None) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    """POSTs `message` and reads its event stream (only its first `stop_after` events, then hangs
    up, when given)."""
    events: list[dict[str, Any]] = []
    with (
        httpx.Client(base_url=str(mcp.http.base_url), timeout=30) as http,
        http.stream("POST", "/api/mcp", json=message, headers=mcp.headers(Accept=ACCEPT_BOTH)) as response,
    ):
        assert response.headers["content-type"] == "text/event-stream", response.read()
        block: dict[str, str] = {}
        for line in response.iter_lines():
            if line == "":
                if block:
                    data = block.get("data")
                    events.append({**block, "data": json.loads(data) if data else ""})
                    if stop_after is not None and len(events) >= stop_after:
                        break
                block = {}
            elif not line.startswith(":"):
                name, _sep, value = line.partition(":")
                block[name] = value.removeprefix(" ")
    return events


def _resume(mcp, last_event_id: str) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    headers = mcp.headers(Accept="text/event-stream", **{"Last-Event-ID": last_event_id})
    with httpx.Client(base_url=str(mcp.http.base_url), timeout=30) as http:
        response = http.get("/api/mcp", headers=headers)
    assert response.status_code == 200, response.text
    return _sse(response)


# --- negotiation and icons ----------------------------------------------------------------------


def test_a_client_offering_2025_11_25_gets_it_with_the_servers_icon(mcp):
    result = mcp.initialize(version="2025-11-25").json()["result"]

    assert result["protocolVersion"] == "2025-11-25"
    info = result["serverInfo"]
    assert (info["name"], info["title"], info["version"]) == ("Acme Workspace", "Acme Workspace", "0.1.0")
    assert info["websiteUrl"] == mcp.server.url()
    assert info["icons"] == [
        {"src": f"{mcp.server.url()}/static/icons/atrium.svg", "mimeType": "image/svg+xml", "sizes": ["any"]}
    ]
    assert mcp.protocol_version == "2025-11-25"


def test_a_newer_or_unknown_version_gets_2025_11_25(mcp):
    assert mcp.initialize(version="2026-07-28").json()["result"]["protocolVersion"] == "2025-11-25"


def test_tools_carry_their_areas_icon_under_2025_11_25(mcp):
    mcp.initialize(version="2025-11-25")
    tools = {tool["name"]: tool for tool in mcp.request("tools/list").json()["result"]["tools"]}

    assert tools["whoAmI"]["icons"] == [
        {
            "src": f"{mcp.server.url()}/static/icons/areas/catalogue.svg",
            "mimeType": "image/svg+xml",
            "sizes": ["any"],
        }
    ]
    assert all(tool["icons"] for tool in tools.values())


def test_a_client_offering_2025_06_18_gets_exactly_what_it_got_before(mcp):
    result = mcp.initialize(version="2025-06-18").json()["result"]
    tools = mcp.request("tools/list").json()["result"]["tools"]

    assert result["protocolVersion"] == "2025-06-18"
    assert result["serverInfo"] == {"name": "Acme Workspace", "title": "Acme Workspace", "version": "0.1.0"}
    assert result["capabilities"] == {"tools": {"listChanged": True}}
    assert not any("icons" in tool for tool in tools)


def test_the_icons_are_served(mcp):
    mcp.initialize(version="2025-11-25")
    tool = mcp.request("tools/list").json()["result"]["tools"][0]

    response = httpx.get(tool["icons"][0]["src"])

    assert response.status_code == 200
    assert response.content.startswith(b"<svg")


def test_every_area_of_the_project_has_its_own_icon():
    from apps.core import permissions
    from apps.mcp import icons

    # "testarea" is registered by apps/accounts/tests/test_roles.py when it ran in this process.
    areas = [area for area in permissions.areas() if area.key != "testarea"]
    assert {area.key: icons.area_icon_path(area.key) for area in areas} == {
        area.key: f"icons/areas/{area.key}.svg" for area in areas
    }


# --- incremental scope consent ------------------------------------------------------------------


def test_a_read_token_calling_a_write_tool_gets_the_step_up_challenge(mcp):
    mcp.credentials = {"Authorization": "Bearer test:member@acme.example:mcp:read"}
    mcp.initialize(version="2025-11-25")

    response = mcp.call("rememberValue", {"value": 1})

    assert response.status_code == 403
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith('Bearer error="insufficient_scope", scope="mcp:read mcp:write"')
    assert f'resource_metadata="{mcp.server.url()}/.well-known/oauth-protected-resource"' in challenge
    assert response.json()["error"]["code"] == "INSUFFICIENT_SCOPE"
    # A read tool is served as before.
    assert mcp.call("whoAmI").status_code == 200


def test_a_tool_the_role_does_not_allow_stays_unknown_whatever_the_scope(mcp):
    mcp.credentials = {"Authorization": "Bearer test:member@acme.example:mcp:read"}
    mcp.initialize(version="2025-11-25")

    response = mcp.call("readCallLog")

    assert response.status_code == 200
    assert response.json()["error"]["message"] == "Unknown tool: readCallLog"


def test_under_2025_06_18_a_read_token_calling_a_write_tool_gets_unknown_tool_as_before(mcp):
    mcp.credentials = {"Authorization": "Bearer test:member@acme.example:mcp:read"}
    mcp.initialize(version="2025-06-18")

    response = mcp.call("rememberValue", {"value": 1})

    assert response.status_code == 200
    assert response.json()["error"] == {"code": -32602, "message": "Unknown tool: rememberValue"}


# --- elicitation --------------------------------------------------------------------------------


def _confirm_with(mcp, content: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:  # type: ignore[no-untyped-def]
    """Calls eraseEverything and answers its question with `content`; (question, result)."""
    asked: dict[str, Any] = {}
    message = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "eraseEverything"}}
    result: dict[str, Any] = {}
    with (
        httpx.Client(base_url=str(mcp.http.base_url), timeout=30) as http,
        http.stream("POST", "/api/mcp", json=message, headers=mcp.headers(Accept=ACCEPT_BOTH)) as response,
    ):
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: ":
                continue
            event = json.loads(line[6:])
            if event.get("method") == "elicitation/create":
                asked.update(event["params"])
                reply = {"action": "accept", "content": content}
                answer = {"jsonrpc": "2.0", "id": event["id"], "result": reply}
                assert mcp.post(answer).status_code == 202
            elif event.get("id") == 5:
                result.update(event["result"])
    return asked, result


def test_under_2025_11_25_a_confirmation_is_a_titled_choice_that_defaults_to_stop(mcp):
    mcp.initialize(version="2025-11-25", capabilities={"elicitation": {"form": {}}})

    asked, result = _confirm_with(mcp, {"decision": "allow"})

    decision = asked["requestedSchema"]["properties"]["decision"]
    assert decision["default"] == "stop"
    assert decision["oneOf"] == [
        {"const": "allow", "title": "Allow eraseEverything"},
        {"const": "stop", "title": "Stop: do nothing"},
    ]
    assert result["content"][0]["text"] == "erased (not really)"


def test_an_answer_that_does_not_fit_the_question_confirms_nothing(mcp):
    mcp.initialize(version="2025-11-25", capabilities={"elicitation": {}})

    _asked, result = _confirm_with(mcp, {"decision": "yes please"})

    assert result["isError"] is True
    assert "erased" not in result["content"][0]["text"]


def test_under_2025_06_18_a_confirmation_is_the_yes_no_field_of_before(mcp):
    mcp.initialize(version="2025-06-18", capabilities={"elicitation": {}})

    asked, result = _confirm_with(mcp, {"confirm": True})

    assert list(asked["requestedSchema"]["properties"]) == ["confirm"]
    assert result["content"][0]["text"] == "erased (not really)"


# --- resumable POST streams ---------------------------------------------------------------------


def _counting(steps: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "tools/call",
        "params": {
            "name": "countSlowly",
            "arguments": {"steps": steps, "pause": 0.2},
            "_meta": {"progressToken": "p"},
        },
    }


def test_a_post_stream_is_primed_numbered_and_resumed_after_a_dropped_connection(mcp):
    mcp.initialize(version="2025-11-25")

    first = _post_stream(mcp, _counting(5), stop_after=2)
    priming, progress = first
    stream = priming["id"].rsplit("-", 1)[0]
    assert priming["id"] == f"{stream}-0" and priming["data"] == "" and priming["retry"] == "1000"
    assert progress["id"] == f"{stream}-1" and progress["data"]["params"]["progress"] == 0

    rest = _resume(mcp, progress["id"])

    assert [event["id"] for event in rest] == [f"{stream}-{n}" for n in range(2, 2 + len(rest))]
    assert [event["data"]["params"]["progress"] for event in rest[:-1]] == [1, 2, 3, 4, 5]
    assert rest[-1]["data"]["id"] == 9
    assert rest[-1]["data"]["result"]["content"][0]["text"] == "counted to 5"


def test_a_tool_may_end_its_stream_early_and_the_client_fetches_the_answer(mcp):
    mcp.initialize(version="2025-11-25")
    message = {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "test_reconnection"}}

    events = _post_stream(mcp, message)
    resumed = _resume(mcp, events[-1]["id"])

    assert [event["data"] for event in events] == [""]
    assert resumed[-1]["data"]["result"]["content"][0]["text"] == "Reconnection test completed"


def test_under_2025_06_18_post_streams_carry_no_event_ids(mcp):
    mcp.initialize(version="2025-06-18")

    events = _post_stream(mcp, _counting(2))

    assert all("id" not in event for event in events)
    assert events[-1]["data"]["result"]["content"][0]["text"] == "counted to 2"
