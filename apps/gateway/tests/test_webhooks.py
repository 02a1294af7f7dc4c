"""Webhook deliveries (SPEC 5.3, 6.1) to a real receiver on loopback: the body and headers, both
signatures (checked by the example receiver of docs/), retries after 5xx with back-off, 410 stops,
redirects are not followed, time limits, the destination checked at each attempt, the receiver
down for a while and back, every attempt logged, redelivery. Tasks run eagerly here (the sweeper's
queue hop); tests/test_gateway_live.py runs them on real workers."""

import base64
import hashlib
import hmac
import importlib.util
import json
import logging
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from apps.apikeys import services as apikeys_services
from apps.apikeys.models import ApiKey
from apps.gateway import deliveries
from apps.gateway.agent import runner
from apps.gateway.models import Conversation, WebhookAttempt, WebhookDelivery

from .conftest import reply_of
from .servers import Receiver

pytestmark = pytest.mark.django_db

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "webhook_receiver.py"


def load_example():
    spec = importlib.util.spec_from_file_location("webhook_receiver_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


example = load_example()


@pytest.fixture(autouse=True)
def _eager_tasks_and_short_schedule(settings):
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    settings.GATEWAY_MODEL_BACKEND = ""
    settings.GATEWAY_WEBHOOK_RETRY_SCHEDULE = [60, 120, 240]
    settings.GATEWAY_WEBHOOK_JITTER = 0
    settings.GATEWAY_WEBHOOK_TIMEOUT_SECONDS = 2
    settings.GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS = 1
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def receiver():
    started = []

    def start(*args, **kwargs) -> Receiver:
        server = Receiver(*args, **kwargs).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def finished(credentials, conversation_of, message="List contacts") -> Conversation:
    conversation = conversation_of(credentials, message)
    runner.run_conversation(conversation.pk)
    return Conversation.objects.get(pk=conversation.pk)


def make_due(delivery: WebhookDelivery) -> None:
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )


def test_a_resolved_conversation_is_posted_with_spec_6_1s_body_and_both_signatures(
    make_credentials, conversation_of, receiver, acme_client
):
    hook = receiver([200])
    mine = make_credentials(response_url=hook.url)

    conversation = finished(mine, conversation_of)

    (arrived,) = hook.wait_for(1)
    assert json.loads(arrived.body) == {
        "conversation_uuid": str(conversation.uuid),
        "status": "resolved",
        "response": reply_of(conversation),
    }
    headers = arrived.headers
    assert headers["content-type"] == "application/json"
    assert headers["x-conversation-uuid"] == str(conversation.uuid)
    assert headers["x-signature"] == hmac.new(mine.secret.encode(), arrived.body, hashlib.sha256).hexdigest()
    assert headers["x-signature"] == headers["x-signature"].lower()
    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
    assert headers["webhook-id"] == delivery.webhook_id and delivery.webhook_id.startswith("msg_")
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + arrived.body
    digest = base64.b64encode(hmac.new(mine.secret.encode(), signed, hashlib.sha256).digest()).decode()
    assert headers["webhook-signature"] == f"v1,{digest}"
    assert example.verify(mine.secret, arrived.body, headers)
    assert not example.verify("atw_" + "x" * 36, arrived.body, headers)
    assert not example.verify(mine.secret, arrived.body + b" ", headers)
    assert not example.standard_signature_ok(
        mine.secret, arrived.body, headers, now=int(headers["webhook-timestamp"]) + 301
    )
    assert arrived.path == "/hooks/atrium"

    assert delivery.status == "delivered" and delivery.delivered_at is not None and delivery.attempts == 1
    attempt = WebhookAttempt.objects.get(delivery=delivery)
    assert (attempt.outcome, attempt.status_code, attempt.response_excerpt) == (
        "delivered",
        200,
        '{"ok": true}',
    )
    assert attempt.latency_ms is not None and attempt.latency_ms >= 0
    polled = acme_client.get(f"/api/agent/{conversation.uuid}", **mine.headers()).json()
    assert polled["webhook"]["status"] == "delivered" and polled["webhook"]["delivered_at"] is not None


def test_no_log_line_carries_the_webhooks_url_and_its_query(
    make_credentials, conversation_of, receiver, caplog
):
    hook = receiver([200])
    mine = make_credentials(response_url=f"{hook.url}?token=receiver-secret-1234")

    with caplog.at_level(logging.DEBUG):
        conversation = finished(mine, conversation_of)

    (arrived,) = hook.wait_for(1)
    assert arrived.path == "/hooks/atrium?token=receiver-secret-1234"
    assert f"conversation {conversation.uuid} resolved" in caplog.text  # the lines were captured
    # The HTTP clients' INFO and DEBUG lines (each request's full URL) are not written at all.
    assert "receiver-secret-1234" not in caplog.text
    assert not [record for record in caplog.records if record.name.split(".")[0] in {"httpx", "httpcore"}]


def test_a_failed_conversation_is_posted_with_its_error(make_credentials, conversation_of, receiver):
    hook = receiver([204])
    mine = make_credentials(response_url=hook.url)

    conversation = finished(mine, conversation_of, message="Write a limerick")

    (arrived,) = hook.wait_for(1)
    body = json.loads(arrived.body)
    assert body == {
        "conversation_uuid": str(conversation.uuid),
        "status": "failed",
        "error": conversation.error_message,
    }
    assert "model backend" in body["error"]
    assert example.verify(mine.secret, arrived.body, arrived.headers)


def test_a_5xx_is_retried_after_the_schedules_delay_until_delivered_with_the_same_webhook_id(
    make_credentials, conversation_of, receiver
):
    hook = receiver([500, 503, 200])
    mine = make_credentials(response_url=hook.url)

    conversation = finished(mine, conversation_of)
    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
    assert delivery.status == "retrying" and delivery.last_status_code == 500
    assert timedelta(seconds=59) < delivery.next_attempt_at - timezone.now() <= timedelta(seconds=60)
    assert deliveries.send_due() == 0  # not due yet

    make_due(delivery)
    assert deliveries.send_due() == 1
    delivery.refresh_from_db()
    assert delivery.status == "retrying" and delivery.last_status_code == 503
    assert timedelta(seconds=119) < delivery.next_attempt_at - timezone.now() <= timedelta(seconds=120)

    make_due(delivery)
    deliveries.send_due()
    delivery.refresh_from_db()

    arrived = hook.wait_for(3)
    assert delivery.status == "delivered" and delivery.attempts == 3 and delivery.delivered_at is not None
    assert len({item.headers["webhook-id"] for item in arrived}) == 1
    assert len({item.body for item in arrived}) == 1
    assert all(example.verify(mine.secret, item.body, item.headers) for item in arrived)
    log = list(
        WebhookAttempt.objects.filter(delivery=delivery)
        .order_by("number")
        .values_list("outcome", "status_code")
    )
    assert log == [("http_error", 500), ("http_error", 503), ("delivered", 200)]


def test_the_sweep_visits_a_workspace_while_it_has_deliveries_in_flight_and_never_after(
    make_credentials, conversation_of, receiver, monkeypatch
):
    from apps.gateway import tasks
    from apps.tenancy.models import PendingWork

    hook = receiver([500, 200])
    conversation = finished(make_credentials(response_url=hook.url), conversation_of)
    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
    marks = PendingWork.objects.filter(kind=deliveries.IN_FLIGHT)
    assert delivery.status == "retrying" and marks.count() == 1
    visits: list[int] = []
    sending = deliveries.send_due
    monkeypatch.setattr(deliveries, "send_due", lambda: visits.append(sending()))

    assert tasks.send_due_webhooks() == 0
    assert visits == [0] and marks.count() == 1  # not due yet, still in flight
    make_due(delivery)
    assert tasks.send_due_webhooks() == 0
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and visits == [0, 1]

    # Nothing in flight: the mark is gone, and the next sweeps pass this workspace by.
    assert marks.count() == 0
    assert tasks.send_due_webhooks() == 0
    assert visits == [0, 1]


def test_410_gone_stops_at_once(make_credentials, conversation_of, receiver):
    hook = receiver([410])
    mine = make_credentials(response_url=hook.url)

    conversation = finished(mine, conversation_of)

    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
    assert delivery.status == "failed" and delivery.next_attempt_at is None
    assert "410" in delivery.failed_reason
    make_due(delivery)
    assert deliveries.send_due() == 0
    assert len(hook.received) == 1


def test_redirects_are_not_followed(make_credentials, conversation_of, receiver):
    target = receiver([200])
    hook = receiver([307], location=target.url)
    mine = make_credentials(response_url=hook.url)

    conversation = finished(mine, conversation_of)

    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
    assert delivery.status == "retrying"
    assert WebhookAttempt.objects.get(delivery=delivery).outcome == "redirect"
    assert target.received == []


@pytest.mark.parametrize(
    ("timeouts", "answer", "latency_ms"),
    [
        # Silent past the read time-out.
        ((0.3, 5.0), {"delay": 2}, (0, 1500)),
        # A byte at a time, each well within the read time-out: only the attempt's deadline as a
        # whole (time-out + connect time-out) ends it. Unbounded, the answer would take over 20 s.
        ((0.6, 0.4), {"trickle": 0.2}, (900, 3000)),
    ],
    ids=["silent", "a-byte-at-a-time"],
)
def test_a_slow_receiver_times_out_and_is_retried(
    make_credentials, conversation_of, receiver, settings, timeouts, answer, latency_ms
):
    settings.GATEWAY_WEBHOOK_TIMEOUT_SECONDS, settings.GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS = timeouts
    hook = receiver([200], **answer)
    mine = make_credentials(response_url=hook.url)

    conversation = finished(mine, conversation_of)

    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
    attempt = WebhookAttempt.objects.get(delivery=delivery)
    assert delivery.status == "retrying" and attempt.outcome == "timeout"
    assert latency_ms[0] < attempt.latency_ms < latency_ms[1]


def test_the_receiver_down_for_a_while_then_back(make_credentials, conversation_of, receiver):
    down = Receiver()  # its port, with nothing listening yet
    mine = make_credentials(response_url=down.url)

    conversation = finished(mine, conversation_of)
    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
    assert delivery.status == "retrying"
    assert WebhookAttempt.objects.get(delivery=delivery).outcome == "network_error"

    make_due(delivery)
    deliveries.send_due()
    delivery.refresh_from_db()
    assert delivery.status == "retrying" and delivery.attempts == 2

    back = receiver([200], port=down.port)
    make_due(delivery)
    deliveries.send_due()

    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 3
    assert example.verify(mine.secret, back.received[0].body, back.received[0].headers)


def test_after_the_whole_schedule_the_delivery_fails(make_credentials, conversation_of, receiver, settings):
    settings.GATEWAY_WEBHOOK_RETRY_SCHEDULE = [1]
    hook = receiver([502])
    mine = make_credentials(response_url=hook.url)

    conversation = finished(mine, conversation_of)
    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
    make_due(delivery)
    deliveries.send_due()

    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.attempts == 2
    assert "Gave up after 2 attempts" in delivery.failed_reason


def test_a_destination_re_pointed_at_a_private_address_is_refused_at_delivery(
    make_credentials, conversation_of, receiver
):
    hook = receiver([200])
    mine = make_credentials(response_url=hook.url)
    # As if its DNS now answered a private address (the URL was fine when it was saved).
    ApiKey.objects.filter(pk=mine.key.pk).update(response_url="http://10.1.2.3/hook")

    conversation = finished(mine, conversation_of)

    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
    attempt = WebhookAttempt.objects.get(delivery=delivery)
    assert attempt.outcome == "refused" and "10.1.2.3" in attempt.error
    assert delivery.status == "retrying"
    assert hook.received == []


def test_loopback_is_refused_at_delivery_unless_allowed(
    make_credentials, conversation_of, receiver, settings
):
    hook = receiver([200])
    mine = make_credentials(response_url=hook.url)
    settings.WEBHOOKS_ALLOW_LOOPBACK = False

    conversation = finished(mine, conversation_of)

    attempt = WebhookAttempt.objects.get(delivery__conversation_uuid=conversation.uuid)
    assert attempt.outcome == "refused" and hook.received == []


def test_a_key_without_a_webhook_url_sends_nothing_and_says_none(
    make_credentials, conversation_of, acme_client
):
    mine = make_credentials()

    conversation = finished(mine, conversation_of)

    assert not WebhookDelivery.objects.exists()
    polled = acme_client.get(f"/api/agent/{conversation.uuid}", **mine.headers()).json()
    assert polled["webhook"]["status"] == "none"


def test_a_key_whose_url_was_removed_stops_retrying(make_credentials, conversation_of, receiver):
    hook = receiver([500])
    mine = make_credentials(response_url=hook.url)
    conversation = finished(mine, conversation_of)
    apikeys_services.api_key_update(actor=mine.user, key=mine.key, response_url=None)
    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)

    make_due(delivery)
    deliveries.send_due()

    delivery.refresh_from_db()
    assert delivery.status == "failed" and "no webhook URL" in delivery.failed_reason


def test_during_a_secret_roll_both_secrets_sign(make_credentials, conversation_of, receiver):
    hook = receiver([200])
    mine = make_credentials(response_url=hook.url)
    _key, new_secret = apikeys_services.signing_secret_roll(
        actor=mine.user, key=mine.key, overlap=timedelta(hours=1)
    )

    finished(mine, conversation_of)

    (arrived,) = hook.wait_for(1)
    assert len(arrived.headers["webhook-signature"].split()) == 2
    assert example.verify(new_secret, arrived.body, arrived.headers)
    assert example.verify(mine.secret, arrived.body, arrived.headers)


def test_redelivering_sends_the_same_message_again(
    make_credentials, conversation_of, receiver, django_capture_on_commit_callbacks
):
    hook = receiver([200])
    mine = make_credentials(response_url=hook.url)
    conversation = finished(mine, conversation_of)
    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)

    with django_capture_on_commit_callbacks(execute=True):
        deliveries.redeliver(delivery=delivery)

    first, second = hook.wait_for(2)
    assert first.body == second.body and first.headers["webhook-id"] == second.headers["webhook-id"]
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 2


def test_a_sender_that_died_mid_attempt_is_taken_over(make_credentials, conversation_of, receiver):
    hook = receiver([200])
    mine = make_credentials(response_url="http://127.0.0.1:9/nothing")
    conversation = finished(mine, conversation_of)
    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
    ApiKey.objects.filter(pk=mine.key.pk).update(response_url=hook.url)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status="sending", lease_expires_at=timezone.now() - timedelta(seconds=1)
    )

    deliveries.send_due()

    delivery.refresh_from_db()
    assert delivery.status == "delivered"


def test_the_default_schedule_retries_for_more_than_24_hours_with_jitter():
    from django.conf import settings as django_settings

    from config.settings import base

    schedule, jitter = base.GATEWAY_WEBHOOK_RETRY_SCHEDULE, base.GATEWAY_WEBHOOK_JITTER
    assert sum(schedule) * (1 - jitter) > 24 * 3600
    assert 0 < jitter < 1
    assert django_settings.GATEWAY_WEBHOOK_JITTER == 0  # this module's fixture; the default has jitter


def test_jitter_spreads_the_delays(settings):
    settings.GATEWAY_WEBHOOK_RETRY_SCHEDULE = [100]
    settings.GATEWAY_WEBHOOK_JITTER = 0.1

    delays = {round(deliveries.next_delay(1), 3) for _ in range(50)}

    assert len(delays) > 10 and all(90 <= delay <= 110 for delay in delays)
    assert deliveries.next_delay(2) is None


def test_old_deliveries_are_removed_after_their_retention(
    make_credentials, conversation_of, receiver, settings
):
    hook = receiver([200])
    mine = make_credentials(response_url=hook.url)
    conversation = finished(mine, conversation_of)
    WebhookDelivery.objects.filter(conversation_uuid=conversation.uuid).update(
        created_at=timezone.now() - timedelta(days=settings.GATEWAY_WEBHOOK_RETENTION_DAYS, seconds=1)
    )

    assert deliveries.remove_old() >= 1

    assert not WebhookDelivery.objects.exists() and not WebhookAttempt.objects.exists()
