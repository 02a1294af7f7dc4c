"""What operators see of the gateway: the request id of `POST /api/agent` follows its conversation
into the agent's run and the webhook (log lines and the `X-Request-ID` header the receiver gets),
and the Prometheus counters of apps.core.metrics move with conversations, model calls, tool calls,
webhook attempts and budgets."""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone
from prometheus_client import REGISTRY

from apps.core import observability
from apps.gateway import deliveries
from apps.gateway.agent import runner
from apps.gateway.models import Conversation, WebhookDelivery

from .servers import ModelServer, Receiver, openai_text, openai_tool_calls

pytestmark = pytest.mark.django_db

MODEL = "metrics-model"


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


class Collected(logging.Handler):
    """Log records of the gateway, with the request id the observability filter gives them."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.addFilter(observability.RequestContextFilter())
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def ids_of(self, text: str) -> set[str | None]:
        return {record.request_id for record in self.records if text in record.getMessage()}  # type: ignore[attr-defined]


@pytest.fixture
def gateway_logs():
    handler = Collected()
    logger = logging.getLogger("apps.gateway")
    previous = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(previous)


@pytest.fixture(autouse=True)
def _settings(settings):
    settings.GATEWAY_MODEL_BACKEND = ""
    settings.GATEWAY_WEBHOOK_RETRY_SCHEDULE = [60, 120]
    settings.GATEWAY_WEBHOOK_JITTER = 0
    settings.GATEWAY_WEBHOOK_TIMEOUT_SECONDS = 2
    settings.GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS = 1


def test_the_request_id_of_the_post_follows_the_conversation_to_its_run_and_its_webhook(
    make_credentials, send, gateway_logs, django_capture_on_commit_callbacks
):
    with Receiver([503, 200]) as hook:
        mine = make_credentials(response_url=hook.url)
        with observability.request_context("post-request-0001"), django_capture_on_commit_callbacks():
            accepted = send(mine, {"message": "List contacts"})
        assert accepted.status_code == 202
        conversation = Conversation.objects.get(uuid=accepted.json()["conversation_uuid"])
        assert conversation.request_id == "post-request-0001"

        # The worker's task runs under an id of its own (a sweeper's, say): the run re-enters the POST's.
        with observability.request_context("worker-task-0002"):
            runner.run_conversation(conversation.pk)
            assert observability.current_request_id() == "worker-task-0002"
        delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
        assert delivery.request_id == "post-request-0001" and delivery.status == "retrying"
        # The retry, swept by beat later, carries it too.
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            next_attempt_at=timezone.now() - timedelta(seconds=1)
        )
        with observability.request_context("beat-sweep-0003"):
            assert deliveries.attempt(delivery.pk) == "delivered"
        first, second = hook.wait_for(2)

    assert first.headers["x-request-id"] == second.headers["x-request-id"] == "post-request-0001"
    assert gateway_logs.ids_of(f"conversation {conversation.uuid} accepted") == {"post-request-0001"}
    assert gateway_logs.ids_of(f"conversation {conversation.uuid} resolved") == {"post-request-0001"}
    assert gateway_logs.ids_of(f"webhook delivery {delivery.pk} attempt") == {"post-request-0001"}


def test_a_conversation_without_a_request_id_sends_no_request_id_header(make_credentials, conversation_of):
    with Receiver([200]) as hook:
        mine = make_credentials(response_url=hook.url)
        conversation = conversation_of(mine, "List contacts")
        Conversation.objects.filter(pk=conversation.pk).update(request_id="")
        runner.run_conversation(conversation.pk)
        (arrived,) = hook.wait_for(1)

    assert "x-request-id" not in arrived.headers


def test_conversations_and_webhook_attempts_are_counted(
    make_credentials, send, django_capture_on_commit_callbacks
):
    before = {
        event: value("atrium_gateway_conversations_total", event=event)
        for event in ("accepted", "processing", "resolved", "failed")
    }
    resolved_seconds = value("atrium_gateway_conversation_duration_seconds_count", status="resolved")
    webhooks = {
        outcome: value("atrium_webhook_deliveries_total", outcome=outcome)
        for outcome in ("delivered", "retry_scheduled", "failed")
    }
    tools = value("atrium_tool_calls_total", door="gateway", tool="searchContacts", outcome="ok")

    with Receiver([500, 410]) as hook:
        mine = make_credentials(response_url=hook.url)
        with django_capture_on_commit_callbacks(execute=True):
            accepted = send(mine, {"message": "Find contacts named Ada"})
        conversation = Conversation.objects.get(uuid=accepted.json()["conversation_uuid"])
        with django_capture_on_commit_callbacks(execute=True):
            runner.run_conversation(conversation.pk)
        delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            next_attempt_at=timezone.now() - timedelta(seconds=1)
        )
        with django_capture_on_commit_callbacks(execute=True):
            deliveries.attempt(delivery.pk)
        hook.wait_for(2)

    assert Conversation.objects.get(pk=conversation.pk).status == "resolved"
    assert value("atrium_gateway_conversations_total", event="accepted") == before["accepted"] + 1
    assert value("atrium_gateway_conversations_total", event="processing") == before["processing"] + 1
    assert value("atrium_gateway_conversations_total", event="resolved") == before["resolved"] + 1
    assert value("atrium_gateway_conversations_total", event="failed") == before["failed"]
    assert (
        value("atrium_gateway_conversation_duration_seconds_count", status="resolved") == resolved_seconds + 1
    )
    assert value("atrium_tool_calls_total", door="gateway", tool="searchContacts", outcome="ok") == tools + 1
    # 500: tried again later; 410: stopped for good.
    assert (
        value("atrium_webhook_deliveries_total", outcome="retry_scheduled") == webhooks["retry_scheduled"] + 1
    )
    assert value("atrium_webhook_deliveries_total", outcome="failed") == webhooks["failed"] + 1
    assert value("atrium_webhook_deliveries_total", outcome="delivered") == webhooks["delivered"]


def test_model_calls_and_budget_moves_are_counted(
    settings, make_credentials, conversation_of, django_capture_on_commit_callbacks
):
    def respond(body, index):
        if index == 0:
            return openai_tool_calls(("searchContacts", {"query": "Ada"}), usage=(100, 10))
        return openai_text("No Ada here.", usage=(120, 5))

    money = {
        event: value("atrium_budget_microdollars_total", event=event)
        for event in ("reserved", "settled", "released")
    }
    calls = value("atrium_model_calls_total", backend="openai", outcome="ok")
    with ModelServer("openai", respond) as server:
        settings.GATEWAY_MODEL_BACKEND = "openai"
        settings.GATEWAY_MODEL_URL = server.url
        settings.GATEWAY_MODEL_NAME = MODEL
        settings.GATEWAY_MODEL_API_KEY = server.api_key
        settings.GATEWAY_MODEL_PRICES = {MODEL: {"input": "1", "output": "10"}}
        settings.GATEWAY_MODEL_MAX_TOKENS = 100
        mine = make_credentials(budget_usd_cents=100, budget_period="monthly")
        conversation = conversation_of(mine, "Find Ada")
        with django_capture_on_commit_callbacks(execute=True):
            runner.run_conversation(conversation.pk)

    conversation = Conversation.objects.get(pk=conversation.pk)
    assert conversation.status == "resolved", conversation.error_message
    assert value("atrium_model_calls_total", backend="openai", outcome="ok") == calls + 2
    reserved = value("atrium_budget_microdollars_total", event="reserved") - money["reserved"]
    settled = value("atrium_budget_microdollars_total", event="settled") - money["settled"]
    released = value("atrium_budget_microdollars_total", event="released") - money["released"]
    assert settled == conversation.cost_micro_usd == (100 + 100) + (120 + 50)
    # What was held is either charged or given back.
    assert reserved == settled + released and released > 0


def test_a_message_refused_for_a_spent_budget_is_counted_as_exceeded(make_credentials, send):
    exceeded = value("atrium_budget_events_total", event="exceeded")

    answer = send(make_credentials(budget_usd_cents=0), {"message": "hi"})

    assert answer.status_code == 429
    assert value("atrium_budget_events_total", event="exceeded") == exceeded + 1
