"""The GET stream and what crosses processes through the Channels layer: list_changed, keep-alive,
Last-Event-ID replay, one stream per session, DELETE, and cancellation of a running call."""

import queue
import threading
import time

import httpx
import pytest
from django_tenants.utils import schema_context

from apps.mcp.testing import ACCEPT_BOTH

pytestmark = pytest.mark.live


def _member_id() -> int:
    from apps.accounts.models import User

    with schema_context("acme"):
        return User.objects.get(email="member@acme.example").pk


def test_list_changed_reaches_the_open_stream_of_the_person_concerned(mcp, committed):
    from apps.mcp.signals import notify_tools_changed

    mcp.initialize()
    stream = mcp.stream()
    try:
        assert stream.status == 200 and stream.response_headers["content-type"] == "text/event-stream"
        assert stream.response_headers["x-accel-buffering"] == "no"
        told = notify_tools_changed(schema_name="acme", user_ids=[_member_id()])
        event_id, message = stream.next_event()
    finally:
        stream.close()

    assert told >= 1
    assert message == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    assert event_id is not None and int(event_id) >= 1


def test_list_changed_for_other_people_does_not_reach_the_stream(mcp, committed):
    from apps.accounts.models import User
    from apps.mcp.signals import notify_tools_changed

    mcp.initialize()
    stream = mcp.stream()
    try:
        with schema_context("acme"):
            viewer = User.objects.get(email="viewer@acme.example").pk
        notify_tools_changed(schema_name="acme", user_ids=[viewer])
        with pytest.raises(queue.Empty):
            stream.next_event(timeout=1.5)
    finally:
        stream.close()


def test_the_stream_sends_keep_alive_comments(mcp):
    mcp.initialize()
    stream = mcp.stream()  # the tests' servers send them every second
    try:
        assert ": keep-alive" in stream.comments(timeout=2.5)
    finally:
        stream.close()


def test_last_event_id_replays_what_the_stream_missed(mcp, committed):
    from apps.mcp.signals import notify_tools_changed

    mcp.initialize()
    first = mcp.stream()
    notify_tools_changed(schema_name="acme", user_ids=[_member_id()])
    seen, _message = first.next_event()
    first.close()
    first.closed.wait(5)
    # Two more while no stream is open.
    notify_tools_changed(schema_name="acme", user_ids=[_member_id()])
    notify_tools_changed(schema_name="acme", user_ids=[_member_id()])

    second = mcp.stream(last_event_id=seen)
    try:
        replayed = [second.next_event()[0], second.next_event()[0]]
    finally:
        second.close()

    assert replayed == [str(int(seen) + 1), str(int(seen) + 2)]


def test_a_new_stream_for_the_session_takes_over_from_the_old_one(mcp):
    mcp.initialize()
    old = mcp.stream()
    new = mcp.stream()
    try:
        assert old.closed.wait(5), "the older stream should have been closed"
        assert not new.closed.is_set()
    finally:
        old.close()
        new.close()


def test_delete_closes_the_sessions_stream(mcp):
    mcp.initialize()
    stream = mcp.stream()
    try:
        assert mcp.http.delete("/api/mcp", headers=mcp.headers()).status_code == 204
        assert stream.closed.wait(5)
    finally:
        stream.close()


def test_get_needs_the_event_stream_accept_and_a_session(mcp):
    mcp.initialize()
    wrong_accept = mcp.http.get("/api/mcp", headers=mcp.headers(Accept="application/json"))
    session_id, mcp.session_id = mcp.session_id, None
    no_session = mcp.http.get("/api/mcp", headers=mcp.headers(Accept="text/event-stream"))
    mcp.session_id = "unknown"
    unknown = mcp.http.get("/api/mcp", headers=mcp.headers(Accept="text/event-stream"))

    assert (wrong_accept.status_code, no_session.status_code, unknown.status_code) == (406, 400, 404)
    assert session_id


def test_cancelled_stops_the_running_tool_and_the_request_gets_no_response(mcp, committed):
    from apps.mcp.models import McpSession
    from apps.mcp.sessions import digest_of

    mcp.initialize()
    outcome: dict = {}

    def call() -> None:
        message = {"jsonrpc": "2.0", "id": 77, "method": "tools/call",
                   "params": {"name": "waitForCancel", "arguments": {"seconds": 10}}}  # fmt: skip
        with httpx.Client(base_url=str(mcp.http.base_url), timeout=30) as http:
            response = http.post("/api/mcp", json=message, headers=mcp.headers(Accept=ACCEPT_BOTH))
            outcome["status"], outcome["body"] = response.status_code, response.text

    started = time.monotonic()
    worker = threading.Thread(target=call)
    worker.start()
    time.sleep(0.5)
    cancel = mcp.post(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 77, "reason": "test"}}
    )
    worker.join(10)

    assert cancel.status_code == 202 and cancel.content == b""
    assert outcome["status"] == 200 and '"id":77' not in outcome["body"]
    assert time.monotonic() - started < 5
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        with schema_context("acme"):
            state = McpSession.objects.get(digest=digest_of(mcp.session_id)).state
        if state.get("cancelled") == 77:
            break
        time.sleep(0.1)
    assert state.get("cancelled") == 77, "the tool saw is_cancelled() and stopped"


def test_the_server_card_is_public_cacheable_and_names_the_brand(live_http):
    response = httpx.get(f"{live_http.url('127.0.0.2')}/.well-known/mcp.json")
    alias = httpx.get(f"{live_http.url('127.0.0.2')}/.well-known/mcp/server-card.json")
    base = live_http.url("127.0.0.2")

    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "*"
    assert "max-age" in response.headers["cache-control"]
    card = response.json()
    assert card["name"] == "Globex Hub" and card["version"] == "0.1.0"
    assert card["protocolVersion"] == "2026-07-28"
    assert card["supportedVersions"] == ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]
    assert card["authentication"]["type"] == "oauth2"
    assert (
        card["authentication"]["protectedResourceMetadata"] == f"{base}/.well-known/oauth-protected-resource"
    )
    assert (
        card["authentication"]["authorizationServerMetadata"]
        == f"{base}/.well-known/oauth-authorization-server"
    )
    assert alias.json() == card
    listed = {profile["name"]: profile for profile in card["profiles"]}
    assert len(listed) >= 3
    assert listed["sales"]["url"] == f"{base}/api/mcp?profile=sales"
    assert listed["sales"]["scope"] == "profile:sales"
    assert all(0 < profile["tools"] <= 40 and profile["description"] for profile in listed.values())
    # Offered by what people do, as the consent page offers them.
    assert listed["finance"]["job"] == "I do the books"


def test_a_call_is_known_by_its_request_id_as_json_a_number_apart_from_the_same_digits_as_text():
    from apps.mcp.streams import Hub

    assert Hub.key("d", 7) == ("d", "7")
    assert Hub.key("d", "7") == ("d", '"7"')
    assert Hub.key("d", True) == ("d", "true")
    assert len({Hub.key("d", 1), Hub.key("d", "1"), Hub.key("d", 1.0), Hub.key("d", True)}) == 4
