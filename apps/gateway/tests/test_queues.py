"""The agent's own queue and how the sweepers tell a turn that was lost from one that waits:

- agent turns are routed (by the task's name, in the settings) to the `agent` queue; every other
  task, the beat schedule's included, to the default one; workers consume both, fairly;
- the head of the agent's queue on a real Redis says when the oldest waiting turn was sent;
- a turn whose sending failed is marked, with its workspace, and sent again by the next quick
  sweep, which visits only the workspaces marked;
- an open conversation is queued again only when its turn is not waiting in the queue (sent well
  before the oldest one still waiting, or nothing waits), never while it waits behind a backlog,
  and not at all while the queue cannot be read.

The real workers consuming both queues: tests/test_queues_live.py.
"""

import json
import secrets
import time
from datetime import timedelta

import pytest
import redis
from celery import Celery, current_app
from django.conf import settings
from django.db import connection
from django.utils import timezone
from kombu.exceptions import OperationalError

from apps.core.testing import free_port
from apps.gateway import backlog, services, tasks
from apps.gateway.models import Conversation

pytestmark = pytest.mark.django_db

TURN = "apps.gateway.tasks.run_conversation"


@pytest.fixture(autouse=True)
def _no_model(settings):
    settings.GATEWAY_MODEL_BACKEND = ""


def queue_of(task_name: str) -> str:
    return current_app.amqp.router.route({}, task_name, (), {})["queue"].name


# --- routing ------------------------------------------------------------------------------------


def test_agent_turns_have_their_own_queue_and_everything_else_the_default_one():
    assert queue_of(TURN) == settings.GATEWAY_AGENT_QUEUE == "agent"
    for other in (
        "apps.gateway.tasks.deliver_webhook",
        "apps.gateway.tasks.send_due_webhooks",
        "apps.gateway.tasks.recover_stuck_conversations",
        "apps.gateway.tasks.send_unsent_conversations",
        "apps.gateway.tasks.remove_expired",
        "apps.tasks.tasks.finish_agent_step",
        "apps.mcp.tasks.purge_mcp_sessions",
    ):
        assert queue_of(other) == "celery", other
    # Nothing beat sends waits behind the turns.
    assert {queue_of(entry["task"]) for entry in settings.CELERY_BEAT_SCHEDULE.values()} == {"celery"}


def test_a_worker_consumes_both_queues_polling_them_in_turn():
    assert [queue.name for queue in settings.CELERY_TASK_QUEUES] == ["celery", "agent"]
    assert current_app.conf.task_default_queue == "celery"
    # Kombu's Redis transport moves the queue it just took from to the back of its BRPOP.
    assert current_app.conf.broker_transport_options["queue_order_strategy"] == "round_robin"


# --- the head of the queue, on the real Redis ----------------------------------------------------


@pytest.fixture
def private_queue():
    """A queue of this test's own on the suite's Redis (nobody consumes it), removed after."""
    name = f"test-agent-{secrets.token_hex(4)}"
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    yield name, client
    client.delete(name, f"_kombu.binding.{name}", *(f"{name}\x06\x16{step}" for step in (3, 6, 9)))
    client.close()


def send_turn(queue: str, conversation_id: int, headers: dict | None) -> None:
    from apps.gateway.tasks import run_conversation

    run_conversation.apply_async(
        kwargs={"conversation_id": conversation_id, "schema_name": "acme"}, queue=queue, headers=headers
    )


def test_the_oldest_waiting_turn_is_the_one_a_worker_takes_next(private_queue):
    name, client = private_queue
    assert backlog.oldest_waiting(queue=name) is None

    first = backlog.sent_headers()
    send_turn(name, 1, first)
    send_turn(name, 2, {backlog.SENT_AT: first[backlog.SENT_AT] + 5})

    assert backlog.oldest_waiting(queue=name) == pytest.approx(first[backlog.SENT_AT])
    # A worker takes from the right end (BRPOP): the next oldest is then the head.
    taken = json.loads(client.rpop(name))
    assert taken["headers"]["task"] == TURN and taken["headers"][backlog.SENT_AT] == first[backlog.SENT_AT]
    assert backlog.oldest_waiting(queue=name) == pytest.approx(first[backlog.SENT_AT] + 5)
    client.rpop(name)
    assert backlog.read(queue=name) == backlog.Backlog(known=True, oldest=None)


def test_a_head_that_does_not_say_when_it_was_sent_makes_the_backlog_unknown(private_queue):
    name, _client = private_queue
    send_turn(name, 1, None)

    with pytest.raises(backlog.BacklogUnknown, match="does not say when"):
        backlog.oldest_waiting(queue=name)
    assert not backlog.read(queue=name).known


def test_an_unreachable_broker_makes_the_backlog_unknown():
    app = Celery("unreachable", broker=f"redis://127.0.0.1:{free_port()}/0", set_as_current=False)
    app.conf.broker_connection_timeout = 1
    try:
        waiting = backlog.read(app=app)
    finally:
        app.close()

    assert not waiting.known and "could not be read" in waiting.why_unknown


# --- a turn whose sending failed ----------------------------------------------------------------


@pytest.fixture
def broker_down(monkeypatch):
    """Sending a turn fails as it does while Redis is down (kombu's OperationalError)."""

    monkeypatch.setattr("apps.gateway.tasks.run_conversation.apply_async", _refuse)


def _refuse(**options):
    raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


@pytest.fixture
def sent(monkeypatch):
    queued: list[int] = []
    monkeypatch.setattr(
        "apps.gateway.tasks.run_conversation.apply_async",
        lambda **options: queued.append(options["kwargs"]["conversation_id"]),
    )
    return queued


def test_a_turn_that_could_not_be_sent_is_marked(make_credentials, conversation_of, broker_down):
    conversation = conversation_of(make_credentials(), "List contacts")

    assert services.enqueue(conversation.pk) is False

    assert Conversation.objects.get(pk=conversation.pk).enqueue_failed_at is not None


def test_only_a_workspace_with_a_turn_that_could_not_be_sent_is_visited_by_the_quick_sweep(
    make_credentials, conversation_of, monkeypatch
):
    conversation = conversation_of(make_credentials(), "List contacts")
    monkeypatch.setattr("apps.gateway.tasks.run_conversation.apply_async", _refuse)
    assert services.enqueue(conversation.pk) is False
    visited: list[str] = []
    sending = services.conversations_send_unsent

    def send_unsent(**options):
        visited.append(connection.schema_name)
        return sending(**options)

    monkeypatch.setattr("apps.gateway.services.conversations_send_unsent", send_unsent)
    sent: list[int] = []
    monkeypatch.setattr(
        "apps.gateway.tasks.run_conversation.apply_async",
        lambda **options: sent.append(options["kwargs"]["conversation_id"]),
    )

    assert tasks.send_unsent_conversations() == 0
    assert tasks.send_unsent_conversations() == 0

    # Sent once, from the one marked workspace; the next sweep visits nobody.
    assert (visited, sent) == ([connection.schema_name], [conversation.pk])
    assert Conversation.objects.get(pk=conversation.pk).enqueue_failed_at is None


def test_the_quick_sweep_sends_a_marked_turn_again_once(make_credentials, conversation_of, sent):
    conversation = conversation_of(make_credentials(), "List contacts")
    Conversation.objects.filter(pk=conversation.pk).update(enqueue_failed_at=timezone.now())

    assert services.conversations_send_unsent() == 1
    assert sent == [conversation.pk]
    current = Conversation.objects.get(pk=conversation.pk)
    assert current.enqueue_failed_at is None and current.queued_at > conversation.queued_at
    assert services.conversations_send_unsent() == 0


def test_a_turn_still_not_sent_stays_marked_for_the_next_sweep(
    make_credentials, conversation_of, broker_down
):
    conversation = conversation_of(make_credentials(), "List contacts")
    Conversation.objects.filter(pk=conversation.pk).update(enqueue_failed_at=timezone.now())

    assert services.conversations_send_unsent() == 1

    assert Conversation.objects.get(pk=conversation.pk).enqueue_failed_at is not None


def test_a_marked_turn_is_the_quick_sweeps_not_the_lost_turns_sweeps(make_credentials, conversation_of, sent):
    conversation = conversation_of(make_credentials(), "List contacts")
    long_ago = timezone.now() - timedelta(hours=1)
    Conversation.objects.filter(pk=conversation.pk).update(enqueue_failed_at=long_ago, queued_at=long_ago)

    assert services.conversations_recover(waiting=backlog.Backlog(known=True, oldest=None)) == 0
    assert sent == []


def test_claiming_a_marked_conversation_clears_the_mark(make_credentials, conversation_of):
    conversation = conversation_of(make_credentials(), "List contacts")
    Conversation.objects.filter(pk=conversation.pk).update(enqueue_failed_at=timezone.now())

    assert services.conversation_claim(conversation_id=conversation.pk, seconds=60) is not None

    assert Conversation.objects.get(pk=conversation.pk).enqueue_failed_at is None


# --- lost or waiting ----------------------------------------------------------------------------


def open_since(conversation_of, make_credentials, seconds_ago: float) -> Conversation:
    conversation = conversation_of(make_credentials(), "List contacts")
    Conversation.objects.filter(pk=conversation.pk).update(
        queued_at=timezone.now() - timedelta(seconds=seconds_ago)
    )
    return conversation


def waiting_since(seconds_ago: float) -> backlog.Backlog:
    return backlog.Backlog(known=True, oldest=time.time() - seconds_ago)


def test_a_turn_waiting_behind_a_long_backlog_is_never_queued_twice(make_credentials, conversation_of, sent):
    # Sent 10 minutes ago; the oldest turn still waiting was sent 20 minutes ago: it waits too.
    open_since(conversation_of, make_credentials, 600)

    assert services.conversations_recover(waiting=waiting_since(1200)) == 0
    assert sent == []


def test_a_turn_sent_well_before_the_oldest_waiting_one_was_lost(make_credentials, conversation_of, sent):
    requeue = settings.GATEWAY_REQUEUE_AFTER_SECONDS
    lost = open_since(conversation_of, make_credentials, 600 + requeue + 5)
    # Sent shortly before the head: taken for waiting (the margin covers the senders' clocks).
    close = open_since(conversation_of, make_credentials, 600 + requeue - 30)

    assert services.conversations_recover(waiting=waiting_since(600)) == 1

    assert sent == [lost.pk]
    assert Conversation.objects.get(pk=lost.pk).queued_at > timezone.now() - timedelta(seconds=60)
    assert Conversation.objects.get(pk=close.pk).queued_at < timezone.now() - timedelta(seconds=600)


def test_with_nothing_waiting_an_open_turn_older_than_the_margin_was_lost(
    make_credentials, conversation_of, sent
):
    requeue = settings.GATEWAY_REQUEUE_AFTER_SECONDS
    lost = open_since(conversation_of, make_credentials, requeue + 5)
    open_since(conversation_of, make_credentials, requeue - 30)  # just sent: a worker may be taking it

    assert services.conversations_recover(waiting=backlog.Backlog(known=True, oldest=None)) == 1
    assert sent == [lost.pk]


def test_while_the_queue_cannot_be_read_nothing_is_taken_for_lost(make_credentials, conversation_of, sent):
    open_since(conversation_of, make_credentials, 3600)

    unknown = backlog.Backlog(known=False, why_unknown="the broker could not be read: refused")
    assert services.conversations_recover(waiting=unknown) == 0
    assert sent == []


def test_a_dead_workers_conversation_is_still_recovered_while_the_queue_cannot_be_read(
    make_credentials, conversation_of, sent
):
    conversation = conversation_of(make_credentials(), "List contacts")
    services.conversation_claim(conversation_id=conversation.pk, seconds=60)
    Conversation.objects.filter(pk=conversation.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )

    assert services.conversations_recover(waiting=backlog.Backlog(known=False)) == 1
    assert Conversation.objects.get(pk=conversation.pk).status == "open"
