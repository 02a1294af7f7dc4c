"""MCP 2026-07-28 at the endpoint (apps.mcp.stateless), in raw HTTP against a live web process:
stateless requests with `_meta`, server/discover, the header checks and error codes, tools/list
with caching hints, confirmations as an InputRequiredResult, the catalogue's rules without a
session, progress, cancellation and subscriptions/listen. And that the 2025 revisions are served
as before beside it."""

import json
import socket
import threading
import time
from typing import Any

import httpx
import pytest

from apps.mcp.testing import ACCEPT_BOTH
from apps.mcp.tests.conftest import Mcp, caller_state, noted

pytestmark = pytest.mark.live

VERSION = "2026-07-28"
NAMED = {"tools/call": "name"}


def meta(capabilities: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities if capabilities is not None else {},
        "io.modelcontextprotocol/clientInfo": {"name": "atrium-tests", "version": "1"},
        **extra,
    }


class Stateless:
    """A 2026-07-28 client in raw HTTP: every request stands alone, with its `_meta` and the
    headers that mirror its body."""

    def __init__(self, mcp, capabilities: dict[str, Any] | None = None) -> None:  # type: ignore[no-untyped-def]
        self.mcp = mcp
        self.capabilities = capabilities if capabilities is not None else {}
        self.next_id = 100

    def headers(self, method: str, params: dict[str, Any], **extra: str) -> dict[str, str]:
        headers = {
            "Accept": ACCEPT_BOTH,
            "Content-Type": "application/json",
            **self.mcp.credentials,
            "MCP-Protocol-Version": VERSION,
            "Mcp-Method": method,
        }
        field = NAMED.get(method)
        if field is not None and isinstance(params.get(field), str):
            headers["Mcp-Name"] = params[field]
        headers.update(extra)
        return {name: value for name, value in headers.items() if value is not None}

    def message(self, method: str, params: dict[str, Any] | None = None, **meta_extra: Any) -> dict[str, Any]:
        self.next_id += 1
        params = dict(params or {})
        params.setdefault("_meta", meta(self.capabilities, **meta_extra))
        return {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}

    def send(self, method: str, params: dict[str, Any] | None = None, **headers: Any) -> httpx.Response:
        message = self.message(method, params)
        return self.mcp.http.post(
            "/api/mcp", json=message, headers=self.headers(method, message["params"], **headers)
        )

    def call(self, name: str, arguments: dict[str, Any] | None = None, **params: Any) -> dict[str, Any]:
        answer = self.send("tools/call", {"name": name, "arguments": arguments or {}, **params})
        assert answer.status_code == 200, answer.text
        assert "mcp-session-id" not in answer.headers
        return answer.json()


def events_of(response: httpx.Response) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: ")]


@pytest.fixture
def client(mcp):  # type: ignore[no-untyped-def]
    return Stateless(mcp)


# --- the first request ----------------------------------------------------------------------------


def test_a_2026_07_28_client_gets_it_on_its_first_request_without_a_session(client):
    answer = client.send("server/discover")

    assert answer.status_code == 200, answer.text
    assert "mcp-session-id" not in answer.headers
    result = answer.json()["result"]
    assert result["resultType"] == "complete"
    assert result["supportedVersions"] == ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]
    assert result["capabilities"] == {
        "tools": {"listChanged": True},
        "extensions": {"io.modelcontextprotocol/tasks": {}},  # test_tasks_extension.py
    }
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "Acme Workspace"
    assert "searchTools" in result["instructions"]
    assert result["cacheScope"] == "private" and result["ttlMs"] == 60_000


def test_a_tool_is_called_with_no_initialize(client):
    body = client.call("whoAmI")

    assert body["result"]["resultType"] == "complete"
    assert body["result"]["structuredContent"]["email"] == "member@acme.example"


def test_tools_list_is_the_same_for_the_same_credential_and_narrowing_and_says_how_long_it_keeps(client):
    first = client.send("tools/list").json()["result"]
    again = client.send("tools/list").json()["result"]
    narrowed = client.mcp.http.post(
        "/api/mcp?readonly=true",
        json=client.message("tools/list"),
        headers=client.headers("tools/list", {}),
    ).json()["result"]

    assert first == again
    assert (first["resultType"], first["cacheScope"], first["ttlMs"]) == ("complete", "private", 60_000)
    names = [tool["name"] for tool in first["tools"]]
    assert "eraseEverything" in names
    assert "eraseEverything" not in [tool["name"] for tool in narrowed["tools"]]
    assert all(tool["icons"] for tool in first["tools"])


# --- the envelope and the headers -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "problem"),
    [
        ({"_meta": None}, "params._meta"),
        ({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}, "protocolVersion"),
        ({"_meta": {"io.modelcontextprotocol/protocolVersion": VERSION}}, "clientCapabilities"),
    ],
)
def test_a_request_without_its_meta_is_refused_with_400_and_invalid_params(client, params, problem):
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": params}
    answer = client.mcp.http.post("/api/mcp", json=message, headers=client.headers("tools/list", {}))

    assert answer.status_code == 400
    error = answer.json()["error"]
    assert (answer.json()["id"], error["code"]) == (7, -32602)
    assert problem in error["message"]


@pytest.mark.parametrize(
    ("method", "params", "headers"),
    [
        ("tools/list", {}, {"Mcp-Method": None}),
        ("tools/list", {}, {"Mcp-Method": "prompts/list"}),
        ("tools/list", {}, {"Mcp-Method": "TOOLS/LIST"}),
        ("tools/call", {"name": "whoAmI"}, {"Mcp-Name": "readCallLog"}),
        ("tools/call", {"name": "whoAmI"}, {"Mcp-Name": None}),
        ("tools/list", {}, {"MCP-Protocol-Version": "2025-11-25"}),
    ],
)
def test_headers_that_do_not_mirror_the_body_are_a_header_mismatch(client, method, params, headers):
    answer = client.send(method, params, **headers)

    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == -32020


def test_a_body_of_2026_07_28_under_no_version_header_is_a_header_mismatch(client):
    answer = client.send("tools/list", {}, **{"MCP-Protocol-Version": None})

    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == -32020


def test_a_version_this_server_does_not_speak_lists_the_ones_it_does(client):
    message = client.message("server/discover")
    message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
    headers = client.headers("server/discover", {}, **{"MCP-Protocol-Version": "2099-01-01"})
    answer = client.mcp.http.post("/api/mcp", json=message, headers=headers)

    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == -32022
    assert error["data"] == {
        "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
        "requested": "2099-01-01",
    }


@pytest.mark.parametrize("method", ["initialize", "ping", "logging/setLevel", "resources/subscribe", "nope"])
def test_removed_and_unknown_methods_are_404_method_not_found(client, method):
    answer = client.send(method)

    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == -32601
    assert answer.json()["id"] == client.next_id


def test_get_and_delete_have_no_place_without_sessions(client):
    for verb in ("GET", "DELETE"):
        answer = client.mcp.http.request(
            verb,
            "/api/mcp",
            headers={
                **client.mcp.credentials,
                "Accept": "text/event-stream",
                "MCP-Protocol-Version": VERSION,
            },
        )
        assert answer.status_code == 405
        assert "subscriptions/listen" in answer.json()["error"]["message"]


def test_a_tool_that_needs_an_undeclared_capability_is_refused_naming_it(client):
    answer = client.send("tools/call", {"name": "test_missing_capability", "arguments": {}})

    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == -32021
    assert error["data"] == {"requiredCapabilities": {"sampling": {}}}


# --- confirmations: an InputRequiredResult ----------------------------------------------------------


def confirm(allow: bool) -> dict[str, Any]:
    return {"action": "accept", "content": {"decision": "allow" if allow else "stop"}}


def test_a_destructive_call_is_confirmed_by_answering_an_input_request(mcp):
    client = Stateless(mcp, {"elicitation": {"form": {}}})

    asked = client.call("eraseEverything")["result"]
    assert asked["resultType"] == "input_required"
    question = asked["inputRequests"]["confirm"]
    assert question["method"] == "elicitation/create"
    assert "eraseEverything" in question["params"]["message"]
    assert question["params"]["requestedSchema"]["properties"]["decision"]["default"] == "stop"

    done = client.call(
        "eraseEverything", inputResponses={"confirm": confirm(True)}, requestState=asked["requestState"]
    )
    assert done["result"]["resultType"] == "complete"
    assert done["result"]["content"][0]["text"] == "erased (not really)"

    # The same answer does not confirm a second run: the user is asked again.
    again = client.call(
        "eraseEverything", inputResponses={"confirm": confirm(True)}, requestState=asked["requestState"]
    )
    assert again["result"]["resultType"] == "input_required"


def test_a_declined_confirmation_does_nothing(mcp):
    client = Stateless(mcp, {"elicitation": {}})
    asked = client.call("eraseEverything")["result"]

    declined = client.call(
        "eraseEverything", inputResponses={"confirm": confirm(False)}, requestState=asked["requestState"]
    )

    assert declined["result"]["isError"] is True
    assert "declined" in declined["result"]["content"][0]["text"]


def test_a_request_state_altered_or_for_another_call_is_invalid_params(mcp):
    client = Stateless(mcp, {"elicitation": {}})
    asked = client.call("eraseEverything")["result"]
    other = client.call("test_input_required_result_request_state")["result"]

    for state in (asked["requestState"] + "x", other["requestState"]):
        refused = client.call(
            "eraseEverything", inputResponses={"confirm": confirm(True)}, requestState=state
        )
        assert refused["error"]["code"] == -32602
        assert "requestState" in refused["error"]["message"]


def test_input_responses_that_are_not_answers_are_invalid_params(mcp):
    client = Stateless(mcp, {"elicitation": {}})

    for responses in (None, [], {"confirm": 12}):
        answer = client.send(
            "tools/call", {"name": "eraseEverything", "arguments": {}, "inputResponses": responses}
        )
        if responses is None:
            assert answer.json()["result"]["resultType"] == "input_required"
        else:
            assert answer.json()["error"]["code"] == -32602


def test_without_elicitation_the_confirmation_token_works_across_requests_without_a_session(client):
    refused = client.call("eraseEverything")["result"]
    assert refused["isError"] is True
    text = refused["content"][0]["text"]
    token = text.split('"confirmationToken": "')[1].split('"')[0]

    done = client.call("eraseEverything", {"confirmationToken": token})["result"]
    assert done["content"][0]["text"] == "erased (not really)"
    # Once only.
    assert client.call("eraseEverything", {"confirmationToken": token})["result"]["isError"] is True


def test_the_token_of_one_credential_does_not_work_for_another(mcp_server, client):
    refused = client.call("eraseEverything")["result"]
    token = refused["content"][0]["text"].split('"confirmationToken": "')[1].split('"')[0]
    other = Mcp(mcp_server, email="admin@acme.example")
    try:
        answer = Stateless(other).call("eraseEverything", {"confirmationToken": token})["result"]
    finally:
        other.close()

    assert answer["isError"] is True
    assert "not valid for this call" in answer["content"][0]["text"]


# --- progress, cancellation, the stream of a listen ------------------------------------------------


def test_progress_streams_before_the_result(client):
    message = client.message(
        "tools/call", {"name": "countSlowly", "arguments": {"steps": 2}}, progressToken="p1"
    )
    with client.mcp.http.stream(
        "POST", "/api/mcp", json=message, headers=client.headers("tools/call", message["params"])
    ) as response:
        events = events_of(response)

    progress = [event for event in events if event.get("method") == "notifications/progress"]
    assert [event["params"]["progress"] for event in progress] == [0, 1, 2]
    assert events[-1]["result"]["resultType"] == "complete"
    assert not any("id" in event and "method" in event for event in events)


def test_a_client_cancels_its_call_by_closing_the_response(client, committed):
    message = client.message("tools/call", {"name": "waitForCancel", "arguments": {"seconds": 10}})
    message["id"] = f"close-{time.monotonic_ns()}"
    body = json.dumps(message).encode()
    headers = {**client.headers("tools/call", message["params"]), "Content-Length": str(len(body))}
    url = client.mcp.http.base_url
    request = (
        f"POST /api/mcp HTTP/1.1\r\nHost: {url.host}:{url.port}\r\n"
        + "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        + "\r\n"
    ).encode() + body
    state = caller_state()
    state.set("cancelled", None)
    # A raw socket: the answer is JSON, so no client library hands the response back (to close)
    # before it is complete.
    with socket.create_connection((url.host, url.port), timeout=10) as sock:
        sock.sendall(request)
        time.sleep(0.5)
    started = time.monotonic()

    assert noted(state, "cancelled") == message["id"], "the tool never saw its call cancelled"
    assert time.monotonic() - started < 3


def test_a_posted_cancellation_cancels_nothing_even_from_a_client_sharing_the_credential(client, mcp_server):
    """Two clients with one credential may number their requests alike: a request id names no
    client, so a `notifications/cancelled` would let one cancel the other's call."""
    message = client.message("tools/call", {"name": "waitForCancel", "arguments": {"seconds": 1.5}})
    outcome: dict[str, Any] = {}

    def run() -> None:
        with httpx.Client(base_url=str(client.mcp.http.base_url), timeout=30) as http:
            outcome["body"] = http.post(
                "/api/mcp", json=message, headers=client.headers("tools/call", message["params"])
            ).json()

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.5)
    other = Mcp(mcp_server)  # another client, the same person and credential
    try:
        cancel = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": message["id"], "_meta": meta()},
        }
        answer = other.http.post(
            "/api/mcp", json=cancel, headers=Stateless(other).headers("notifications/cancelled", {})
        )
    finally:
        other.close()
    thread.join(15)

    assert answer.status_code == 202
    result = outcome["body"]["result"]
    assert result["content"][0]["text"] == "not cancelled"  # it ran its whole time


def listen(client: Stateless, notifications: dict[str, Any], then: Any, count: int) -> list[dict[str, Any]]:
    """Opens a subscriptions/listen stream, runs `then` once it is acknowledged, and returns its
    first `count` events (fewer if no more come within 3 s; keep-alives come every second)."""
    message = client.message("subscriptions/listen", {"notifications": notifications})
    events: list[dict[str, Any]] = []
    deadline = time.monotonic() + 10
    with (
        httpx.Client(base_url=str(client.mcp.http.base_url), timeout=10) as http,
        http.stream(
            "POST", "/api/mcp", json=message, headers=client.headers("subscriptions/listen", {})
        ) as response,
    ):
        assert response.headers["content-type"] == "text/event-stream"
        for line in response.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
                if len(events) == 1:
                    then()
                    deadline = time.monotonic() + 3
                if len(events) >= count:
                    break
            if time.monotonic() > deadline:
                break
    return events


def test_subscriptions_listen_acknowledges_then_tells_of_tool_list_changes(client):
    events = listen(
        client,
        {"toolsListChanged": True, "promptsListChanged": True},
        lambda: client.call("test_trigger_tool_change"),
        2,
    )

    subscription = client.next_id - 1
    assert events[0] == {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {
            "notifications": {"toolsListChanged": True},
            "_meta": {"io.modelcontextprotocol/subscriptionId": subscription},
        },
    }
    assert events[1]["method"] == "notifications/tools/list_changed"
    assert events[1]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == subscription


def test_a_listen_stream_sends_only_what_it_asked_for(client):
    events = listen(client, {}, lambda: client.call("test_trigger_tool_change"), 2)

    assert [event["method"] for event in events] == ["notifications/subscriptions/acknowledged"]


# --- the 2025 revisions beside it -----------------------------------------------------------------


def test_a_2025_session_is_served_as_before(mcp):
    mcp.initialize("2025-06-18")
    result = mcp.result("whoAmI")

    assert "resultType" not in result
    assert mcp.request("ping").json()["result"] == {}
    listed = mcp.request("tools/list").json()["result"]
    assert "ttlMs" not in listed and "icons" not in listed["tools"][0]


def test_initialize_offering_2026_07_28_gets_the_newest_handshake_revision(mcp):
    assert mcp.initialize("2026-07-28").json()["result"]["protocolVersion"] == "2025-11-25"
