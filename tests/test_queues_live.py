"""The agent's own queue with real processes: the web process, a Celery worker (one pool process, consuming
both queues as every deployed worker does) and a beat, on the test database and a Redis of their
own (stopped and started here); the service's agent calls a model API on loopback that takes its
time, so that turns pile up in the queue.

- With a long backlog of turns waiting, what goes to the default queue still runs at once: a
  webhook delivery (a cancelled conversation's), a task sent to the workers, beat's own tasks.
  No turn that waited is queued a second time, though each waited longer than
  GATEWAY_REQUEUE_AFTER_SECONDS: every conversation is run by one task, once.
- A message accepted while Redis is down (its task could not be sent) is marked, and runs soon
  after Redis is back: the quick sweep sends it, not the lost turns' sweep (which, here, would
  wait an hour).
"""

import os
import secrets
import threading
import time
import uuid

import httpx
import pytest
from celery import Celery
from django_tenants.utils import schema_context

from apps.core.testing import (
    PrivateRedis,
    database_url,
    start_celery_beat,
    start_celery_worker,
    start_web,
    wait_for,
)
from apps.gateway.tests.servers import ModelServer, Receiver, openai_text

pytestmark = pytest.mark.live

MODEL = "queues-test-model"
# Each turn is one model call this long: TURNS of them keep one pool process busy for a while.
TURN_SECONDS = 0.6
TURNS = 30
REQUEUE_AFTER = 3
TURN_TASK = "apps.gateway.tasks.run_conversation"
LOST = "its queued turn was lost"
# Open, except while a test queues its backlog: the model holds its answers until then, so that
# however slowly the machine takes the messages, none of the backlog is done before it is all queued.
model_open = threading.Event()
model_open.set()


@pytest.fixture(scope="module")
def model():
    def respond(body, index):
        model_open.wait(timeout=120)
        time.sleep(TURN_SECONDS)
        return openai_text("Done.", usage=(10, 5))

    with ModelServer("openai", respond) as server:
        yield server


@pytest.fixture(scope="module")
def setup(django_db_setup, django_db_blocker, tmp_path_factory, model):
    with django_db_blocker.unblock():
        url = database_url()
    workdir = tmp_path_factory.mktemp("queues")
    redis = PrivateRedis(workdir / "redis").start()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": redis.url(),
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "ATRIUM_LOG_LEVEL": "INFO",
        "ATRIUM_GATEWAY_MODEL_BACKEND": "openai",
        "ATRIUM_GATEWAY_MODEL_URL": model.url,
        "ATRIUM_GATEWAY_MODEL_NAME": MODEL,
        "ATRIUM_GATEWAY_MODEL_API_KEY": model.api_key,
        "ATRIUM_GATEWAY_MODEL_PRICES": f'{{"{MODEL}": {{"input": "0", "output": "0"}}}}',
        # The sweeper looks every second and takes a turn for lost 3 s after it could have
        # been taken: aggressive, so that a waiting turn sent again would show.
        "ATRIUM_GATEWAY_STUCK_SWEEP_SECONDS": "1",
        "ATRIUM_GATEWAY_REQUEUE_AFTER_SECONDS": str(REQUEUE_AFTER),
    }
    processes = []
    try:
        web = start_web(env, log=workdir / "web.log")
        processes.append(web)
        worker = start_celery_worker(env, workdir, "queues", app="tests.cluster_app")
        processes.append(worker)
        beat = start_celery_beat(env, workdir, app="tests.cluster_app")
        processes.append(beat)
        sender = Celery("queues-client", broker=redis.url(), set_as_current=False)
        yield {"env": env, "workdir": workdir, "redis": redis, "web": web, "worker": worker, "sender": sender}
        sender.close()
    finally:
        for process in reversed(processes):
            process.stop()
        redis.stop()


@pytest.fixture
def person(committed):
    from apps.accounts.models import Role, User
    from apps.accounts.services import access_token_create

    with schema_context("acme"):
        user = User.objects.create_user(
            email=f"queues-{uuid.uuid4().hex[:8]}@acme.example", role=Role.objects.get(key="member")
        )
        _token, raw = access_token_create(user=user, name="queues")
    yield user, raw
    with schema_context("acme"):
        user.delete()


def key_headers(user, token: str, **fields) -> dict[str, str]:
    from apps.apikeys.services import api_key_create

    with schema_context("acme"):
        created = api_key_create(user=user, **fields)
    return {"Authorization": f"Bearer {token}", "X-Api-Key": created.raw_key}


def conversations(uuids: list[str]) -> list:
    from apps.gateway.models import Conversation

    with schema_context("acme"):
        return list(Conversation.objects.filter(uuid__in=uuids))


def waiting_turns(setup) -> int:
    import redis

    client = redis.Redis.from_url(setup["redis"].url())
    try:
        return client.llen("agent")
    finally:
        client.close()


def probes(setup, label: str) -> int:
    import redis

    client = redis.Redis.from_url(setup["redis"].url())
    try:
        return client.llen(f"cluster:finished:{label}")
    finally:
        client.close()


def turns_received(worker) -> int:
    return sum(1 for line in worker.log_text().splitlines() if f"{TURN_TASK}[" in line and "received" in line)


def test_behind_a_long_backlog_of_turns_webhooks_and_sweeps_run_at_once_and_no_turn_is_sent_twice(
    setup, person
):
    user, token = person
    polled = key_headers(user, token)
    worker = setup["worker"]
    received_before = turns_received(worker)
    with Receiver([200]) as hook, httpx.Client(base_url=setup["web"].url(), timeout=30) as client:
        hooked = key_headers(user, token, response_url=hook.url)
        backlog = []
        model_open.clear()
        try:
            for index in range(TURNS):
                answer = client.post("/api/agent", json={"message": f"Say done {index}"}, headers=polled)
                assert answer.status_code == 202, answer.text
                backlog.append(answer.json()["conversation_uuid"])
            # The worker's one pool process is in a turn; the rest wait in the agent's queue.
            wait_for(lambda: waiting_turns(setup) >= TURNS - 5, timeout=30, what="turns waiting")
        finally:
            model_open.set()
        beats_before = probes(setup, "beat")

        # A conversation cancelled by its caller: its webhook is queued on the default queue.
        accepted = client.post("/api/agent", json={"message": "Say done, hooked"}, headers=hooked)
        cancelled = accepted.json()["conversation_uuid"]
        assert client.post(f"/api/agent/{cancelled}/cancel", headers=hooked).status_code == 200
        # And a task sent to the workers from outside.
        label = f"probe-{secrets.token_hex(3)}"
        setup["sender"].send_task("cluster.record", args=[label])

        (arrived,) = hook.wait_for(1, timeout=30)
        wait_for(lambda: probes(setup, label) == 1, timeout=30, what="the probe task ran")
        # Beat's own tasks (one a second here) go on running too.
        wait_for(lambda: probes(setup, "beat") >= beats_before + 2, timeout=30, what="beat's tasks ran")
        still_waiting = waiting_turns(setup)

    # All of them ran while turns of the backlog still waited: they did not queue behind it. (How
    # many still wait depends on how fast the machine works through turns meanwhile: on a loaded
    # one, more than half had gone by the second beat.)
    assert still_waiting >= 1, still_waiting
    assert arrived.headers["x-conversation-uuid"] == cancelled
    assert b'"status":"failed"' in arrived.body

    def all_ended():
        found = conversations(backlog)
        return found if all(c.status in ("resolved", "failed") for c in found) else None

    ended = wait_for(all_ended, timeout=TURNS * TURN_SECONDS * 4 + 60, every=0.5, what="the backlog drained")
    assert {c.status for c in ended} == {"resolved"}
    # Most waited far longer than the sweeper's margin, and none was sent twice: each ran once,
    # and the worker received one turn per conversation (the cancelled one's too).
    waited = sorted((c.started_at - c.created_at).total_seconds() for c in ended)
    assert waited[-1] > REQUEUE_AFTER + 2, waited
    assert {c.attempts for c in ended} == {1}
    assert LOST not in worker.log_text()
    wait_for(lambda: waiting_turns(setup) == 0, timeout=30, what="the queue emptied")
    # The worker logs a turn it took a moment after taking it: wait for the last line, then count.
    wait_for(
        lambda: turns_received(worker) - received_before >= TURNS + 1, timeout=30, what="every turn received"
    )
    assert turns_received(worker) - received_before == TURNS + 1


def test_a_message_accepted_while_redis_is_down_runs_soon_after_it_is_back(setup, person):
    user, token = person
    headers = key_headers(user, token)
    # A worker for which a lost turn is one an hour old: only the quick sweep of turns whose
    # sending failed can send this one.
    patient = {**setup["env"], "ATRIUM_GATEWAY_REQUEUE_AFTER_SECONDS": "3600"}
    setup["worker"].stop()
    worker = start_celery_worker(patient, setup["workdir"], "patient", app="tests.cluster_app")
    try:
        setup["redis"].stop()
        try:
            with httpx.Client(base_url=setup["web"].url(), timeout=30) as client:
                answer = client.post("/api/agent", json={"message": "Say done, no broker"}, headers=headers)
            assert answer.status_code == 202, answer.text
            conversation_uuid = answer.json()["conversation_uuid"]
            (stored,) = conversations([conversation_uuid])
            assert stored.status == "open" and stored.enqueue_failed_at is not None
        finally:
            setup["redis"].start()

        def ended():
            (current,) = conversations([conversation_uuid])
            return current if current.status in ("resolved", "failed") else None

        # Well before the 120 s the sweeper used to wait (the benchmark measures the real figure).
        finished = wait_for(ended, timeout=60, every=0.5, what="the message accepted without a broker ran")
    finally:
        worker.stop()
    assert finished.status == "resolved" and finished.attempts == 1
    assert finished.enqueue_failed_at is None
    assert LOST not in worker.log_text()
