"""Rules of deals found wanting in use: currencies ISO 4217 lists, no forecast for a closed deal,
a deal made for a colleague."""

import pytest

from apps.catalogue.testing import ok, refused
from apps.deals.models import Deal
from apps.deals.tests.factories import DealFactory, PipelineFactory


@pytest.fixture
def pipeline(people):
    return PipelineFactory(actor=people["admin"], name="Direct sales")


def test_a_currency_iso_4217_does_not_list_is_refused(people, pipeline):
    member = people["member"]
    deal = DealFactory(actor=member, pipeline=pipeline, value=100)
    before = Deal.objects.count()

    made = refused(
        member,
        "createDeal",
        {"title": "Zed", "value": 10, "currency": "ZZZ", "rate": 1, "pipelineId": pipeline.pk},
    )
    changed = refused(member, "updateDeal", {"dealId": deal.pk, "changes": {"currency": "ZZZ", "rate": 1}})

    assert "'ZZZ' is not a three-letter ISO 4217 code" in made
    assert "'ZZZ' is not a three-letter ISO 4217 code" in changed
    assert Deal.objects.count() == before and Deal.objects.get(pk=deal.pk).currency == "EUR"


def test_a_won_or_lost_deal_has_no_weighted_value(people, pipeline):
    member = people["member"]
    won = DealFactory(actor=member, pipeline=pipeline, value=1000)
    lost = DealFactory(actor=member, pipeline=pipeline, value=1000)
    assert ok(member, "getDeal", {"dealId": won.pk})["weightedValue"] == "100.00"

    ok(member, "updateDeal", {"dealId": won.pk, "changes": {"status": "won"}})
    answer = ok(
        member, "updateDeal", {"dealId": lost.pk, "changes": {"status": "lost", "lostReason": "Price"}}
    )

    assert ok(member, "getDeal", {"dealId": won.pk})["weightedValue"] is None
    assert answer["deal"]["weightedValue"] is None
    reopened = ok(member, "updateDeal", {"dealId": lost.pk, "changes": {"status": "open"}})
    assert reopened["deal"]["weightedValue"] == "100.00"


def test_a_deal_is_made_for_the_owner_named(people, pipeline):
    member = people["member"]

    made = ok(
        member,
        "createDeal",
        {"title": "Handed over", "pipelineId": pipeline.pk, "ownerEmail": "admin@acme.example"},
    )
    own = ok(member, "createDeal", {"title": "Mine", "pipelineId": pipeline.pk})
    message = refused(
        member,
        "createDeal",
        {"title": "Nobody's", "pipelineId": pipeline.pk, "ownerEmail": "nobody@nowhere.example"},
    )

    assert made["owner"]["email"] == "admin@acme.example"
    assert own["owner"]["email"] == member.email
    assert "nobody@nowhere.example" in message
    assert not Deal.objects.filter(title="Nobody's").exists()
