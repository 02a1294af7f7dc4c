"""Two web processes on one database and one Redis, no sticky sessions: a session opened on one
is served by the other, and what is raised on one (a change of role, the client's answer to an
elicitation, a cancellation) reaches the request or stream held by the other."""

import secrets
import threading
import time

import httpx
import pytest
from django_tenants.utils import schema_context

from apps.core.testing import start_web, wait_for
from apps.mcp.testing import streamed_call
from apps.mcp.tests.conftest import Mcp

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def second_server(mcp_env):  # type: ignore[no-untyped-def]
    server = start_web(mcp_env)
    yield server
    server.stop()


@pytest.fixture
def person(committed):  # type: ignore[no-untyped-def]
    """A member of Acme made for one test (the other tests' people keep their roles)."""
    from apps.accounts.models import Role, User

    with schema_context("acme"):
        user = User.objects.create_user(
            email=f"two-{secrets.token_hex(4)}@acme.example", role=Role.objects.get(key="member")
        )
    yield user
    with schema_context("acme"):
        user.delete()


def on(server, email: str, session_id: str | None = None) -> Mcp:  # type: ignore[no-untyped-def]
    client = Mcp(server, email=email)
    client.session_id = session_id
    return client


def test_a_session_opened_on_one_process_is_served_by_the_other(mcp_server, second_server, person):
    first = on(mcp_server, person.email)
    first.initialize()
    second = on(second_server, person.email, first.session_id)

    assert second.request("ping").json()["result"] == {}
    called = second.request("tools/call", {"name": "whoAmI", "arguments": {}}).json()["result"]
    assert called["structuredContent"]["email"] == person.email
    assert second.http.delete("/api/mcp", headers=second.headers()).status_code == 204
    assert first.request("ping").status_code == 404


def test_a_session_ended_through_one_process_is_refused_at_once_by_the_other_that_kept_it(
    mcp_server, second_server, person
):
    # Each process keeps the session and is told when it ends elsewhere (apps.mcp.endings);
    # the next request, sent the moment the DELETE is answered, must already be refused.
    for _round in range(5):
        first = on(mcp_server, person.email)
        first.initialize()
        second = on(second_server, person.email, first.session_id)
        for client in (first, second, first, second):
            assert client.request("ping").status_code == 200

        assert second.http.delete("/api/mcp", headers=second.headers()).status_code == 204
        assert first.request("ping").status_code == 404


def test_a_key_revoked_is_refused_at_once_by_every_process_that_kept_it(mcp_server, second_server, person):
    from apps.accounts.services import access_token_create
    from apps.apikeys.services import api_key_create, api_key_revoke

    # Each process keeps a good credential a moment (MCP_CREDENTIAL_CACHE_SECONDS) and is told
    # when it is revoked (apps.mcp.endings): here the revocation is made by a third process.
    for _round in range(3):
        with schema_context("acme"):
            _token, raw = access_token_create(user=person, name=f"two {secrets.token_hex(3)}")
            created = api_key_create(user=person, label=f"two {secrets.token_hex(3)}")
        clients = []
        for server in (mcp_server, second_server):
            client = Mcp(server)
            client.credentials = {"Authorization": f"Bearer {raw}", "X-Api-Key": created.raw_key}
            client.initialize()
            assert client.request("ping").status_code == 200
            clients.append(client)

        with schema_context("acme"):
            api_key_revoke(actor=person, key=created.key)

        # The news travels by Redis pub/sub, so a busy process may take a moment to hear it; well
        # within the credential cache's TTL (MCP_CREDENTIAL_CACHE_SECONDS, 5 s), which this proves
        # is not what refuses it.
        for client in clients:
            refused = wait_for(
                lambda client=client: (answer := client.request("ping")).status_code != 200 and answer,
                timeout=2,
                every=0.05,
                what="the revocation to reach the process",
            )
            assert refused.status_code == 403, refused.text
            assert refused.json()["error"]["code"] == "KEY_REVOKED"
            client.close()


def change_role_in_the_pages(server, person_id: int, role_id: int) -> None:
    """Acme's admin signs in to `server`'s settings pages and gives the person another role."""
    with httpx.Client(base_url=server.url(), timeout=15, follow_redirects=False) as browser:
        browser.get("/accounts/sign-in/")
        signed_in = browser.post(
            "/accounts/sign-in/",
            data={
                "username": "admin@acme.example",
                "password": "atrium-demo",
                "csrfmiddlewaretoken": browser.cookies["atrium_csrf"],
            },
            headers={"Referer": f"{server.url()}/accounts/sign-in/"},
        )
        assert signed_in.status_code == 302
        changed = browser.post(
            f"/settings/people/{person_id}/",
            data={"action": "role", "role": role_id, "csrfmiddlewaretoken": browser.cookies["atrium_csrf"]},
            headers={"Referer": f"{server.url()}/settings/people/"},
        )
        assert changed.status_code == 302


def test_a_role_changed_through_one_process_notifies_the_stream_held_by_the_other(
    mcp_server, second_server, person
):
    from apps.accounts.models import Role

    holder = on(second_server, person.email)
    holder.initialize()
    stream = holder.stream()
    try:
        with schema_context("acme"):
            viewer_role = Role.objects.get(key="viewer").pk
        # An admin changes the person's role in the settings pages served by the first process.
        change_role_in_the_pages(mcp_server, person.pk, viewer_role)
        _event_id, message = stream.next_event(timeout=10)
    finally:
        stream.close()

    assert message["method"] == "notifications/tools/list_changed"


def test_a_role_taken_away_through_one_process_is_refused_at_once_by_the_other_that_kept_the_credential(
    mcp_server, second_server, committed
):
    from apps.accounts.models import Role, User

    with schema_context("acme"):
        person = User.objects.create_user(
            email=f"two-{secrets.token_hex(4)}@acme.example", role=Role.objects.get(key="admin")
        )
        member_role = Role.objects.get(key="member").pk
    holder = on(second_server, person.email)
    try:
        holder.initialize()
        # The second process keeps the credential, with the person as an admin.
        assert "admins only" in holder.call("readCallLog").text
        # An admin makes them a member in the settings pages served by the first process.
        change_role_in_the_pages(mcp_server, person.pk, member_role)
        changed_at = time.monotonic()
        # Told through Redis (the revoked-credentials channel), not left to the cache's TTL
        # (MCP_CREDENTIAL_CACHE_SECONDS, 5 s): refused well within it.
        refused = wait_for(
            lambda: "error" in (answer := holder.call("readCallLog").json()) and answer,
            timeout=2,
            every=0.05,
            what="the change of role to reach the other process",
        )
        assert time.monotonic() - changed_at < 2.5
        assert refused["error"]["message"] == "Unknown tool: readCallLog"
    finally:
        holder.close()
        with schema_context("acme"):
            person.delete()


def test_an_elicitation_answer_posted_to_one_process_reaches_the_call_running_on_the_other(
    mcp_server, second_server, person
):
    runner = on(second_server, person.email)
    runner.initialize(capabilities={"elicitation": {}})
    answerer = on(mcp_server, person.email, runner.session_id)
    events: list[dict] = []

    def answer(event: dict) -> None:
        events.append(event)
        if event.get("method") == "elicitation/create":
            accept = {"action": "accept", "content": {"confirm": True}}
            answered = answerer.post({"jsonrpc": "2.0", "id": event["id"], "result": accept})
            assert answered.status_code == 202

    def call() -> None:
        message = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "eraseEverything"}}
        streamed_call(second_server.url(), runner.headers(), message, answer)

    worker = threading.Thread(target=call)
    worker.start()
    worker.join(20)

    assert [event.get("method") for event in events] == ["elicitation/create", None]
    assert events[-1]["id"] == 5
    assert events[-1]["result"]["content"][0]["text"] == "erased (not really)"


def test_a_cancellation_posted_to_one_process_stops_the_call_running_on_the_other(
    mcp_server, second_server, person
):
    runner = on(second_server, person.email)
    runner.initialize()
    canceller = on(mcp_server, person.email, runner.session_id)
    outcome: dict = {}

    def call() -> None:
        message = {"jsonrpc": "2.0", "id": "long", "method": "tools/call",
                   "params": {"name": "waitForCancel", "arguments": {"seconds": 15}}}  # fmt: skip
        with httpx.Client(base_url=second_server.url(), timeout=30) as http:
            response = http.post("/api/mcp", json=message, headers=runner.headers())
            outcome["body"] = response.text

    started = time.monotonic()
    worker = threading.Thread(target=call)
    worker.start()
    time.sleep(0.7)
    cancelled = canceller.post(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "long"}}
    )
    worker.join(15)

    assert cancelled.status_code == 202
    assert time.monotonic() - started < 8
    assert '"id":"long"' not in outcome["body"]


def test_a_stopping_process_ends_its_streams_at_once_and_the_client_goes_on_through_another(
    mcp_env, mcp_server, person
):
    stopping = start_web(mcp_env)
    try:
        holder = on(stopping, person.email)
        holder.initialize()
        stream = holder.stream()
        started = time.monotonic()
        stopping.process.terminate()  # SIGTERM, as a deployment stops a web process

        assert stream.closed.wait(5), "the held stream was not ended"
        assert time.monotonic() - started < 3
        # It exits, cleanly, once done, no request cut short.
        assert stopping.process.wait(timeout=10) == 0
        log = stopping.log.read_text()  # errors only, in the tests' settings
        assert "timeout graceful shutdown exceeded" not in log
        assert "Traceback" not in log
    finally:
        stopping.stop()
    # The session lives on: the client reconnects through a process that stays.
    elsewhere = on(mcp_server, person.email, holder.session_id)
    assert elsewhere.request("ping").json()["result"] == {}
    reopened = elsewhere.stream()
    try:
        assert reopened.status == 200
    finally:
        reopened.close()


# --- 2026-07-28: no sessions at all ----------------------------------------------------------------


def test_a_2026_07_28_confirmation_asked_by_one_process_is_answered_through_the_other_once(
    mcp_server, second_server, person
):
    from apps.mcp.tests.test_revision_2026_07_28 import Stateless

    first = Stateless(on(mcp_server, person.email), {"elicitation": {}})
    second = Stateless(on(second_server, person.email), {"elicitation": {}})
    allow = {"confirm": {"action": "accept", "content": {"decision": "allow"}}}

    asked = first.call("eraseEverything")["result"]
    done = second.call("eraseEverything", inputResponses=allow, requestState=asked["requestState"])["result"]
    replayed = first.call("eraseEverything", inputResponses=allow, requestState=asked["requestState"])[
        "result"
    ]

    assert asked["resultType"] == "input_required"
    assert done["content"][0]["text"] == "erased (not really)"
    assert replayed["resultType"] == "input_required"


def test_a_2026_07_28_confirmation_token_from_one_process_works_once_on_the_other(
    mcp_server, second_server, person
):
    from apps.mcp.tests.test_revision_2026_07_28 import Stateless

    first, second = Stateless(on(mcp_server, person.email)), Stateless(on(second_server, person.email))

    text = first.call("eraseEverything")["result"]["content"][0]["text"]
    token = text.split('"confirmationToken": "')[1].split('"')[0]

    assert second.call("eraseEverything", {"confirmationToken": token})["result"]["isError"] is False
    assert first.call("eraseEverything", {"confirmationToken": token})["result"]["isError"] is True


def test_a_2026_07_28_listen_stream_on_one_process_hears_a_change_made_through_the_other(
    mcp_server, second_server, person
):
    from apps.mcp.tests.test_revision_2026_07_28 import Stateless, listen

    first, second = Stateless(on(mcp_server, person.email)), Stateless(on(second_server, person.email))

    events = listen(second, {"toolsListChanged": True}, lambda: first.call("test_trigger_tool_change"), 2)

    assert [event["method"] for event in events] == [
        "notifications/subscriptions/acknowledged",
        "notifications/tools/list_changed",
    ]
