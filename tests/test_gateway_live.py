"""The message gateway end to end: the web process, real Celery workers (and beat) as processes on the test
database and a Redis database of their own, real HTTP on loopback for the model API and the
webhook receiver.

- A script with a token and a key gets 202, polls to `resolved` with the built-in agent, receives
  a verified webhook (carrying the POST's X-Request-ID), and sees its spend. (The same on a fresh
  `make up`, with the example scripts of docs/examples: tests/test_readme_commands.py.)
- 50 conversations at once on a key whose budget fits 10 model calls never spend past it.
- A worker killed (SIGKILL) in the middle of a turn: the sweeper hands the conversation to another
  worker, which resumes it without running its tool again.
- A worker that loses PostgreSQL in the middle of a turn (its link to the database cut for 1.5 s)
  hands the conversation back as soon as the database answers again, and runs it again, with no
  sweeper running: it does not stay `processing` until its lease runs out.
- A person signed in to the settings presses "Send test event" on a key's page: the web process
  queues it, a worker signs and sends it to the receiver, and the page then shows it as a test,
  delivered, with the body sent and the receiver's answer.
"""

import importlib.util
import json
import os
import re
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
import redis
from django.conf import settings
from django_tenants.utils import schema_context

from apps.core.testing import database_url, start_celery_beat, start_celery_worker, start_web, wait_for
from apps.gateway.tests.servers import Link, ModelServer, Receiver, openai_text, openai_tool_calls

pytestmark = pytest.mark.live

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "webhook_receiver.py"
MODEL = "live-test-model"


def _example():
    spec = importlib.util.spec_from_file_location("webhook_receiver_live", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def broker() -> str:
    url = urlunsplit(urlsplit(settings.REDIS_URL)._replace(path="/13"))
    client = redis.Redis.from_url(url)
    client.flushdb()
    yield url
    client.flushdb()


@pytest.fixture(scope="module")
def base_env(django_db_setup, django_db_blocker, broker) -> dict[str, str]:
    with django_db_blocker.unblock():
        url = database_url()
    return {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": broker,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "ATRIUM_LOG_LEVEL": "INFO",
        "ATRIUM_GATEWAY_MODEL_BACKEND": "",
    }


@pytest.fixture(scope="module")
def web(base_env, tmp_path_factory):
    server = start_web(base_env, log=tmp_path_factory.mktemp("gateway-web") / "web.log")
    yield server
    server.stop()


@pytest.fixture
def workdir(tmp_path):
    return tmp_path


@pytest.fixture
def person(committed):
    """A person of Acme made for one test, with a personal access token."""
    from apps.accounts.models import Role, User
    from apps.accounts.services import access_token_create

    with schema_context("acme"):
        user = User.objects.create_user(
            email=f"gateway-{uuid.uuid4().hex[:8]}@acme.example", role=Role.objects.get(key="member")
        )
        _token, raw = access_token_create(user=user, name="live gateway")
    yield user, raw
    with schema_context("acme"):
        user.delete()


def make_key(user, **fields):
    from apps.apikeys.services import api_key_create

    with schema_context("acme"):
        return api_key_create(user=user, **fields)


def model_env(base_env: dict[str, str], server: ModelServer, **extra: str) -> dict[str, str]:
    return {
        **base_env,
        "ATRIUM_GATEWAY_MODEL_BACKEND": "openai",
        "ATRIUM_GATEWAY_MODEL_URL": server.url,
        "ATRIUM_GATEWAY_MODEL_NAME": MODEL,
        "ATRIUM_GATEWAY_MODEL_API_KEY": server.api_key,
        # Input free, output 10 µUSD a token: a call of max_tokens 1,000 costs at most 1 cent.
        "ATRIUM_GATEWAY_MODEL_PRICES": f'{{"{MODEL}": {{"input": "0", "output": "10"}}}}',
        "ATRIUM_GATEWAY_MODEL_MAX_TOKENS": "1000",
        **extra,
    }


def test_a_script_gets_202_polls_to_resolved_gets_a_verified_webhook_with_its_request_id_and_its_spend(
    web, base_env, workdir, person
):
    user, token = person
    example = _example()
    with Receiver([200]) as hook:
        created = make_key(user, response_url=hook.url, budget_usd_cents=500, budget_period="monthly")
        headers = {"Authorization": f"Bearer {token}", "X-Api-Key": created.raw_key}
        email = f"live-{uuid.uuid4().hex[:8]}@example.org"
        request_id = f"live-script-{uuid.uuid4().hex[:12]}"
        worker = start_celery_worker(base_env, workdir, "builtin")
        try:
            with web.client() as client:
                accepted = client.post(
                    "/api/agent",
                    json={"message": f"Create a contact Lin Live, email: {email}"},
                    headers={**headers, "X-Request-ID": request_id},
                )
                assert accepted.status_code == 202, accepted.text
                conversation_uuid = accepted.json()["conversation_uuid"]

                def finished():
                    polled = client.get(f"/api/agent/{conversation_uuid}", headers=headers)
                    assert polled.status_code == 200
                    return polled if polled.json()["status"] in ("resolved", "failed") else None

                polled = wait_for(finished, timeout=60, every=0.2).json()
                (arrived,) = hook.wait_for(1)
                key_record = client.get(
                    f"/api/api-keys/{created.key.pk}", headers={"Authorization": f"Bearer {token}"}
                )
                again = client.get(f"/api/agent/{conversation_uuid}", headers=headers).json()
        finally:
            worker.stop()

    assert polled["status"] == "resolved", polled
    reply = polled["turns"][-1]["payload"]["content"]
    assert "Lin Live" in reply and polled["agent"] == "built-in"
    assert example.verify(created.signing_secret, arrived.body, arrived.headers)
    assert arrived.headers["x-conversation-uuid"] == conversation_uuid
    # The request id of the POST follows the conversation: its answer, the worker's log, the webhook.
    assert accepted.headers["x-request-id"] == arrived.headers["x-request-id"] == request_id
    assert f"{request_id}] conversation {conversation_uuid} resolved" in worker.log_text()
    assert again["webhook"]["status"] == "delivered" and again["webhook"]["delivered_at"]
    assert again["cost"]["micro_usd"] == 0
    usage = key_record.json()["usage"]
    assert usage["conversations_today"] == 1 and usage["spent_today_micro_usd"] == 0
    from apps.contacts.models import Contact

    with schema_context("acme"):
        assert Contact.objects.filter(email=email, owner=user).count() == 1


def test_fifty_conversations_at_once_never_spend_past_a_budget_of_ten_model_calls(
    web, base_env, workdir, person
):
    user, token = person
    gate = threading.Event()

    def respond(body, index):
        gate.wait(timeout=120)
        return openai_text("Done.", usage=(40, body["max_tokens"]))

    with ModelServer("openai", respond) as model:
        created = make_key(user, budget_usd_cents=10, budget_period="total")
        headers = {"Authorization": f"Bearer {token}", "X-Api-Key": created.raw_key}
        worker = start_celery_worker(model_env(base_env, model), workdir, "budget", concurrency=4)
        try:
            with httpx.Client(base_url=web.url(), timeout=30) as client, ThreadPoolExecutor(16) as pool:
                answers = list(
                    pool.map(
                        lambda index: client.post(
                            "/api/agent", json={"message": f"Say done {index}"}, headers=headers
                        ),
                        range(50),
                    )
                )
                assert [answer.status_code for answer in answers] == [202] * 50
                gate.set()
                uuids = [answer.json()["conversation_uuid"] for answer in answers]

                def all_finished():
                    polled = [client.get(f"/api/agent/{item}", headers=headers).json() for item in uuids]
                    return (
                        polled if all(item["status"] in ("resolved", "failed") for item in polled) else None
                    )

                polled = wait_for(all_finished, timeout=180, every=1)
        finally:
            gate.set()
            worker.stop()
        assert model.problems == []

    from apps.apikeys.models import ApiKey

    with schema_context("acme"):
        key = ApiKey.objects.get(pk=created.key.pk)
    resolved = [item for item in polled if item["status"] == "resolved"]
    failed = [item for item in polled if item["status"] == "failed"]
    assert len(resolved) == 10 and len(failed) == 40
    assert {item["error"]["code"] for item in failed} == {"BUDGET_EXCEEDED"}
    assert all("budget is spent" in item["turns"][-1]["payload"]["content"] for item in failed)
    assert key.spent_micro_usd == 10 * 10_000 == key.budget_usd_cents * 10_000
    assert key.reserved_micro_usd == 0
    assert sum(item["cost"]["micro_usd"] for item in polled) == key.spent_micro_usd
    assert len(model.requests) == 10


def test_a_worker_killed_mid_turn_is_replaced_and_its_conversation_resumed_without_repeating_a_tool(
    web, base_env, workdir, person
):
    user, token = person
    email = f"killed-{uuid.uuid4().hex[:8]}@example.org"
    mid_call = threading.Event()
    release = threading.Event()

    def respond(body, index):
        if index == 0:
            return openai_tool_calls(
                ("createContact", {"contact": {"firstName": "Kim", "email": email}}), usage=(50, 20)
            )
        if index == 1:
            mid_call.set()
            release.wait(timeout=120)  # the worker that asked is killed meanwhile
        return openai_text("Created Kim once.", usage=(60, 10))

    with ModelServer("openai", respond) as model:
        created = make_key(user, budget_usd_cents=100, budget_period="total")
        headers = {"Authorization": f"Bearer {token}", "X-Api-Key": created.raw_key}
        env = model_env(
            base_env,
            model,
            ATRIUM_GATEWAY_MODEL_TIMEOUT_SECONDS="4",
            ATRIUM_GATEWAY_MODEL_RETRIES="0",
            ATRIUM_GATEWAY_LEASE_MARGIN_SECONDS="2",
            ATRIUM_GATEWAY_STUCK_SWEEP_SECONDS="1",
        )
        first = start_celery_worker(env, workdir, "doomed")
        second = beat = None
        try:
            with web.client() as client:
                accepted = client.post(
                    "/api/agent", json={"message": "Add Kim to the contacts"}, headers=headers
                )
                assert accepted.status_code == 202
                conversation_uuid = accepted.json()["conversation_uuid"]
                assert mid_call.wait(timeout=90), "the worker never reached its second model call"

                first.kill()

                from apps.apikeys.models import ApiKey
                from apps.gateway.models import AgentStep, Conversation

                with schema_context("acme"):
                    stuck = Conversation.objects.get(uuid=conversation_uuid)
                    steps = [
                        step["role"]
                        for step in AgentStep.objects.filter(conversation=stuck).values_list(
                            "message", flat=True
                        )
                    ]
                    held = ApiKey.objects.get(pk=created.key.pk).reserved_micro_usd
                assert stuck.status == "processing" and steps == ["assistant", "tool"] and held > 0

                second = start_celery_worker(env, workdir, "survivor")
                beat = start_celery_beat(env, workdir)

                def finished():
                    polled = client.get(f"/api/agent/{conversation_uuid}", headers=headers).json()
                    return polled if polled["status"] in ("resolved", "failed") else None

                polled = wait_for(finished, timeout=120, every=0.5)
        finally:
            release.set()
            for process in (beat, second, first):
                if process is not None:
                    process.stop()
        assert model.problems == []

    from apps.contacts.models import Contact

    assert polled["status"] == "resolved", polled
    assert polled["turns"][-1]["payload"]["content"] == "Created Kim once."
    with schema_context("acme"):
        conversation = Conversation.objects.get(uuid=conversation_uuid)
        key = ApiKey.objects.get(pk=created.key.pk)
        assert Contact.objects.filter(email=email).count() == 1
    assert conversation.attempts == 2
    assert len(model.requests) == 3
    # The killed call's reservation was released, never settled: only calls 1 and 3 were paid.
    assert key.reserved_micro_usd == 0
    assert key.spent_micro_usd == conversation.cost_micro_usd == (20 + 10) * 10


def test_a_worker_that_loses_the_database_mid_turn_hands_the_conversation_back_once_it_returns(
    web, base_env, workdir, person
):
    user, token = person
    database = urlsplit(base_env["DATABASE_URL"])
    link = Link(database.hostname, database.port).start()
    userinfo = database.netloc.rsplit("@", 1)[0]
    through_link = urlunsplit(database._replace(netloc=f"{userinfo}@127.0.0.1:{link.port}"))
    mended = []

    def respond(body, index):
        if index == 0:
            # The worker waits for this answer: its database goes away meanwhile, for 1.5 s.
            link.cut()

            def mend():
                link.mend()
                mended.append(time.monotonic())

            threading.Timer(1.5, mend).start()
        return openai_text("Done, once the database was back.", usage=(40, 10))

    with ModelServer("openai", respond) as model:
        created = make_key(user, budget_usd_cents=100, budget_period="total")
        headers = {"Authorization": f"Bearer {token}", "X-Api-Key": created.raw_key}
        # The worker alone reaches the database through the link; no beat, so no sweeper: only the
        # worker itself can hand the conversation back (its lease lasts minutes).
        worker = start_celery_worker(
            model_env(base_env, model, DATABASE_URL=through_link), workdir, "cut-off"
        )
        try:
            with web.client() as client:
                accepted = client.post("/api/agent", json={"message": "Say done"}, headers=headers)
                assert accepted.status_code == 202
                conversation_uuid = accepted.json()["conversation_uuid"]

                def finished():
                    polled = client.get(f"/api/agent/{conversation_uuid}", headers=headers).json()
                    return polled if polled["status"] in ("resolved", "failed") else None

                polled = wait_for(finished, timeout=60, every=0.5)
                resolved_at = time.monotonic()
        finally:
            worker.stop()
            link.stop()
        assert model.problems == []

    log = worker.log_text()
    assert polled["status"] == "resolved", (polled, log[-3000:])
    assert polled["turns"][-1]["payload"]["content"] == "Done, once the database was back."
    assert f"conversation {conversation_uuid}: the database does not answer" in log
    assert f"conversation {conversation_uuid}: handed back, to be run again" in log
    # Handed back once the database answered, run again 5 s later (its second attempt): well
    # before its lease (a model call's allowance and the margin: minutes) could run out.
    assert resolved_at - mended[0] < 30
    from apps.apikeys.models import ApiKey, Reservation
    from apps.gateway.models import Conversation

    with schema_context("acme"):
        conversation = Conversation.objects.get(uuid=conversation_uuid)
        key = ApiKey.objects.get(pk=created.key.pk)
        reservations = sorted(Reservation.objects.filter(key=key).values_list("state", flat=True))
    assert conversation.attempts == 2 and len(model.requests) == 2
    # The first call's answer came while the database was gone: it could not be settled, and its
    # reservation was released when the conversation was handed back (as the sweeper releases a
    # dead worker's). Only the second call was paid: 10 output tokens at 10 µUSD.
    assert reservations == ["released", "settled"]
    assert key.reserved_micro_usd == 0
    assert key.spent_micro_usd == conversation.cost_micro_usd == 100


def csrf_of(page: str) -> str:
    """The CSRF token of a page's form (what a browser posts back with its cookie)."""
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert found, "no form with a CSRF token on the page"
    return found.group(1)


def test_a_test_event_pressed_on_the_keys_page_is_sent_by_a_worker_and_logged(
    web, base_env, workdir, committed
):
    from apps.accounts.models import Role, User

    email = f"hooks-{uuid.uuid4().hex[:8]}@acme.example"
    with schema_context("acme"):
        user = User.objects.create_user(
            email=email, password="test-event-pass", role=Role.objects.get(key="member")
        )
    example = _example()
    worker = start_celery_worker(base_env, workdir, "hooks")
    try:
        with Receiver([200], answer=b'{"thanks": "got it"}') as hook:
            created = make_key(user, label="Hooked", response_url=hook.url)
            key_page = f"/settings/api-keys/{created.key.pk}/"
            with web.client() as client:
                form = client.get("/accounts/sign-in/").text
                signed_in = client.post(
                    "/accounts/sign-in/",
                    data={
                        "username": email,
                        "password": "test-event-pass",
                        "csrfmiddlewaretoken": csrf_of(form),
                    },
                )
                assert signed_in.status_code == 302, signed_in.text
                page = client.get(key_page).text

                pressed = client.post(f"{key_page}test-event/", data={"csrfmiddlewaretoken": csrf_of(page)})

                assert pressed.status_code == 302
                (arrived,) = hook.wait_for(1, timeout=60)
                assert example.verify(created.signing_secret, arrived.body, arrived.headers)
                assert json.loads(arrived.body)["test"] is True

                def logged() -> str | None:
                    shown = client.get(key_page).text
                    return shown if "HTTP 200" in shown else None

                shown = wait_for(logged, timeout=30, every=0.5, what="the delivery logged on the page")
        assert '<span class="badge test">test</span>' in shown
        assert '<span class="badge delivered">delivered</span>' in shown
        assert "{&quot;thanks&quot;: &quot;got it&quot;}" in shown
    finally:
        worker.stop()
        with schema_context("acme"):
            user.delete()
