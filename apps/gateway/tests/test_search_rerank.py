"""searchTools' first twenty put in order by the gateway's model (apps.catalogue.rerank,
apps.gateway.agent.rerank): off by default, metered to the caller's API key, never needed."""

import json

import pytest

from apps.apikeys.models import Reservation
from apps.catalogue import dispatch, search
from apps.catalogue.dispatch import MemorySession, ToolContext
from apps.catalogue.registry import all_tools
from apps.catalogue.testing import principal_for

from .servers import Reply, openai_text

MODEL = "rerank-model"
PRICES = {MODEL: {"input": "2", "output": "10", "cache_read": "0.5", "cache_write": "2.5"}}
QUERY = "send the invoice to the customer"


@pytest.fixture
def model(model_servers):  # type: ignore[no-untyped-def]
    return lambda responder: model_servers("openai", responder, name=MODEL, prices=PRICES)


def search_as(user, *, api_key_id=None, limit=5):  # type: ignore[no-untyped-def]
    context = ToolContext(
        principal=principal_for(user, api_key_id=api_key_id), session=MemorySession(), request_id=1
    )
    answer = dispatch.call_tool(context, "searchTools", {"query": QUERY, "limit": limit})
    assert answer["isError"] is False
    return [match["name"] for match in answer["structuredContent"]["matches"]]


def offline(limit=5):  # type: ignore[no-untyped-def]
    return [spec.name for _score, spec in search.rank(all_tools(), QUERY)[:limit]]


def test_the_model_puts_the_first_twenty_in_its_order_and_the_call_is_metered(
    model, make_credentials, settings
):
    settings.ATRIUM_CATALOGUE_SEARCH_RERANK = True
    mine = make_credentials("admin", budget_usd_cents=100, budget_period="monthly")
    first_twenty = [spec.name for _score, spec in search.rank(all_tools(), QUERY)[:20]]
    chosen = [first_twenty[3], first_twenty[0], "noSuchTool"]
    server = model(lambda body, index: openai_text("\n".join(chosen)))

    names = search_as(mine.user, api_key_id=mine.key.pk)

    assert names[:2] == [first_twenty[3], first_twenty[0]]
    assert names[2:] == [name for name in first_twenty if name not in names[:2]][:3]
    sent = server.requests[0]
    assert QUERY in json.dumps(sent) and all(name in json.dumps(sent) for name in first_twenty)
    reservation = Reservation.objects.get(key=mine.key)
    # 100 tokens in at 2, 20 out at 10 (per million: micro-dollars).
    assert reservation.state == Reservation.State.SETTLED and reservation.cost_micro_usd == 400


def test_it_is_off_by_default_and_needs_an_api_key_to_meter_to(model, make_credentials, settings):
    mine = make_credentials("admin")
    server = model(lambda body, index: openai_text("callTool"))

    assert search_as(mine.user, api_key_id=mine.key.pk) == offline()
    settings.ATRIUM_CATALOGUE_SEARCH_RERANK = True
    assert search_as(mine.user) == offline()

    assert server.requests == []
    assert not Reservation.objects.filter(key=mine.key).exists()


def test_a_model_that_fails_leaves_the_offline_order_and_costs_nothing(model, make_credentials, settings):
    settings.ATRIUM_CATALOGUE_SEARCH_RERANK = True
    settings.GATEWAY_MODEL_RETRIES = 0
    mine = make_credentials("admin")
    model(lambda body, index: Reply(503, {"error": {"message": "overloaded"}}))

    assert search_as(mine.user, api_key_id=mine.key.pk) == offline()
    assert Reservation.objects.get(key=mine.key).state == Reservation.State.RELEASED
