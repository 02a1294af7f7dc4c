"""The operators' metrics API (apps.core.metrics) and the /metrics endpoint."""

import pytest
from django.test import Client, override_settings
from prometheus_client import REGISTRY

from apps.core import metrics

TOKEN = "scrape-token-for-tests"


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_each_call_counts_once_with_its_labels():
    before = value("atrium_tool_calls_total", door="mcp", tool="getContact", outcome="ok")
    before_sum = value("atrium_tool_call_duration_seconds_sum", door="mcp", tool="getContact")

    metrics.tool_call(door="mcp", tool="getContact", outcome="ok", seconds=0.25)

    assert value("atrium_tool_calls_total", door="mcp", tool="getContact", outcome="ok") == before + 1
    assert value("atrium_tool_call_duration_seconds_sum", door="mcp", tool="getContact") == before_sum + 0.25


def test_a_tool_name_nobody_registered_never_becomes_a_label():
    metrics.tool_call(door="gateway", tool="made-up-by-a-caller-1234", outcome="not_found", seconds=0.001)

    assert (
        value("atrium_tool_calls_total", door="gateway", tool="made-up-by-a-caller-1234", outcome="not_found")
        == 0
    )
    assert value("atrium_tool_calls_total", door="gateway", tool="unknown", outcome="not_found") >= 1


@pytest.mark.parametrize(
    "call",
    [
        lambda: metrics.tool_call(door="rest", tool="x", outcome="ok", seconds=0),
        lambda: metrics.tool_call(door="mcp", tool="x", outcome="fine", seconds=0),
        lambda: metrics.conversation("resolvd"),
        lambda: metrics.webhook_delivery(outcome="sent", seconds=0),
        lambda: metrics.budget_event("spent"),
        lambda: metrics.budget_event("settled", microdollars=-5),
        lambda: metrics.mcp_session("opened"),
        lambda: metrics.model_call(backend="anthropic", outcome="slow", seconds=0),
    ],
)
def test_a_label_value_outside_the_closed_set_is_refused(call):
    with pytest.raises(ValueError):
        call()


def test_conversations_webhooks_and_budgets_are_counted():
    resolved = value("atrium_gateway_conversations_total", event="resolved")
    durations = value("atrium_gateway_conversation_duration_seconds_count", status="resolved")
    delivered = value("atrium_webhook_deliveries_total", outcome="delivered")
    settled = value("atrium_budget_microdollars_total", event="settled")

    metrics.conversation("accepted")
    metrics.conversation("resolved", seconds=3.5)
    metrics.webhook_delivery(outcome="delivered", seconds=0.2)
    metrics.budget_event("settled", microdollars=1250)

    assert value("atrium_gateway_conversations_total", event="resolved") == resolved + 1
    assert value("atrium_gateway_conversation_duration_seconds_count", status="resolved") == durations + 1
    assert value("atrium_webhook_deliveries_total", outcome="delivered") == delivered + 1
    assert value("atrium_budget_microdollars_total", event="settled") == settled + 1250


def test_the_bearer_token_is_compared_exactly():
    assert metrics.authorized(f"Bearer {TOKEN}", TOKEN)
    assert metrics.authorized(f"bearer {TOKEN}", TOKEN)
    assert not metrics.authorized(f"Bearer {TOKEN}x", TOKEN)
    assert not metrics.authorized(f"Basic {TOKEN}", TOKEN)
    assert not metrics.authorized(None, TOKEN)
    assert not metrics.authorized("Bearer ", "")


@pytest.mark.django_db
@override_settings(ATRIUM_METRICS_TOKEN="")
def test_without_a_configured_token_there_is_no_metrics_endpoint(acme_client):
    assert acme_client.get("/metrics").status_code == 404


@pytest.mark.django_db
@override_settings(ATRIUM_METRICS_TOKEN=TOKEN)
def test_a_scrape_without_the_token_is_refused(acme_client):
    missing = acme_client.get("/metrics")
    wrong = acme_client.get("/metrics", HTTP_AUTHORIZATION="Bearer not-the-token")

    assert missing.status_code == wrong.status_code == 401
    assert missing["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert b"atrium_" not in missing.content + wrong.content


@pytest.mark.django_db
@override_settings(ATRIUM_METRICS_TOKEN=TOKEN)
def test_a_scraper_reaches_the_metrics_by_address_whatever_the_host():
    metrics.budget_event("exceeded")
    response = Client(HTTP_HOST="10.20.30.40").get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    body = response.content.decode()
    assert 'atrium_budget_events_total{event="exceeded"}' in body
    assert "# TYPE atrium_http_request_duration_seconds histogram" in body
