"""Every Deals Pipeline tool through the real dispatcher: refusals for a role without the
permission, bad input that names the problem and writes nothing, and the area's rules: a deal
moving through stages (history with entered/left times, weighted value), won and lost final with
a logged reopen, the bin and restore, follow-ups due in each owner's time zone, rotting deals,
pipelines' stages managed, the computed brief, sharing, and the Deals pages."""

from datetime import timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from apps.accounts.models import Role, User
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import (
    assert_refused_without_its_permission,
    call,
    confirmed,
    ok,
    refused,
    tools_of,
)
from apps.core.errors import ValidationFailed
from apps.deals import errors, services
from apps.deals.models import Activity, Deal, DealEvent, Pipeline, Stage, StageVisit
from apps.deals.tests.factories import DealFactory, PipelineFactory

DEAL_TOOLS = tools_of("deals")
CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
MODELS = (Pipeline, Stage, Deal, StageVisit, Activity, DealEvent)


def counts() -> dict[str, int]:
    return {model.__name__: model._default_manager.count() for model in MODELS}


def test_the_area_has_its_33_tools():
    # SPEC.md's 30, and the Platform tools on deals: deleteDeal, restoreDeal, getDealHistory.
    assert len({spec.name for spec in DEAL_TOOLS}) == 33
    assert "DESTRUCTIVE" in next(s for s in DEAL_TOOLS if s.name == "deleteDeal").description


@pytest.mark.parametrize("spec", DEAL_TOOLS, ids=lambda spec: spec.name)
def test_a_role_without_the_permission_cannot_call_it(acme, spec):
    assert_refused_without_its_permission(spec)


@pytest.mark.parametrize("name", ["createDeal", "moveDealStage", "createPipeline", "logDealContact"])
def test_viewers_may_read_but_not_sell(people, name):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], name, {})
    assert ok(people["viewer"], "listDeals", {})["items"] is not None


def test_members_may_sell_but_not_change_pipelines(people):
    member = people["member"]
    with pytest.raises(ToolNotFound):
        call(member, "createPipeline", {"name": "Mine", "stages": [{"name": "A"}]})


# --- bad input: a clear error naming the problem, nothing written ----------------------------------


@pytest.fixture
def world(people):
    admin, member = people["admin"], people["member"]
    pipeline = PipelineFactory(actor=admin, name="Direct sales")
    other = PipelineFactory(actor=admin, name="Partners", currency="USD")
    deal = DealFactory(actor=member, pipeline=pipeline, title="Tessellate renewal", value=20000)
    won = DealFactory(actor=member, pipeline=pipeline, title="Tessellate pilot")
    ok(member, "updateDeal", {"dealId": won.pk, "changes": {"status": "won"}})
    return {"admin": admin, "member": member, "pipeline": pipeline, "other": other, "deal": deal, "won": won}


BAD = [
    (
        "createPipeline",
        lambda w: {"name": "X", "stages": [{"name": "A"}, {"name": "a"}]},
        "each stage once",
    ),
    ("createPipeline", lambda w: {"name": "direct SALES", "stages": [{"name": "A"}]}, "already"),
    ("createPipeline", lambda w: {"name": "X", "stages": [{"name": "A"}], "currency": "eu1"}, "ISO 4217"),
    ("createPipeline", lambda w: {"name": "X", "stages": [{"name": "A", "probability": 120}]}, "100"),
    (
        "managePipeline",
        lambda w: {"pipelineId": w["pipeline"].pk, "action": "remove_stage", "stageId": w["deal"].stage_id},
        "moveToStageId",
    ),
    (
        "managePipeline",
        lambda w: {"pipelineId": w["pipeline"].pk, "action": "reorder", "stageIds": [w["deal"].stage_id]},
        "every stage",
    ),
    ("managePipeline", lambda w: {"pipelineId": w["pipeline"].pk, "action": "archive"}, "open deals"),
    (
        "managePipeline",
        lambda w: {
            "pipelineId": w["pipeline"].pk,
            "action": "update_stage",
            "stageId": w["other"].stages.first().pk,
        },
        "no stage",
    ),
    ("managePipeline", lambda w: {"pipelineId": 10**9, "action": "rename", "name": "Y"}, "not found"),
    ("createDeal", lambda w: {"title": "X"}, "several pipelines"),
    ("createDeal", lambda w: {"title": "X", "pipelineId": w["other"].pk, "currency": "EUR"}, "rate"),
    ("createDeal", lambda w: {"title": "X", "pipelineId": w["pipeline"].pk, "contactId": 10**9}, "not found"),
    ("createDeal", lambda w: {"title": "X", "value": -5, "pipelineId": w["pipeline"].pk}, "value"),
    (
        "createDeal",
        lambda w: {"title": "X", "pipelineId": w["pipeline"].pk, "stageId": w["other"].stages.first().pk},
        "not a stage of pipeline",
    ),
    ("getDeal", lambda w: {"dealId": 10**9}, "not found"),
    ("updateDeal", lambda w: {"dealId": w["deal"].pk, "changes": {}}, "what to change"),
    ("updateDeal", lambda w: {"dealId": w["deal"].pk, "changes": {"status": "lost"}}, "lostReason"),
    (
        "updateDeal",
        lambda w: {"dealId": w["won"].pk, "changes": {"status": "lost", "lostReason": "x"}},
        "final",
    ),
    ("updateDeal", lambda w: {"dealId": w["deal"].pk, "changes": {"value": None}}, "cannot be cleared"),
    (
        "updateDeal",
        lambda w: {"dealId": w["deal"].pk, "changes": {"ownerEmail": "nobody@else.example"}},
        "no active person",
    ),
    ("listDeals", lambda w: {"status": "maybe"}, "status"),
    ("searchDeals", lambda w: {"query": ""}, "query"),
    ("moveDealStage", lambda w: {"dealId": w["deal"].pk, "stageId": 10**9}, "getPipelineOverview"),
    ("moveDealStage", lambda w: {"dealId": w["won"].pk, "stageId": w["deal"].stage_id}, "reopen"),
    ("logDealContact", lambda w: {"dealId": w["deal"].pk, "summary": "x", "channel": "pigeon"}, "channel"),
    (
        "logDealContact",
        lambda w: {"dealId": w["deal"].pk, "summary": "x", "happenedAt": "2999-01-01T10:00:00Z"},
        "future",
    ),
    (
        "logDealContact",
        lambda w: {"dealId": w["deal"].pk, "summary": "x", "followUpId": 10**9},
        "no follow-up",
    ),
    ("scheduleDealFollowUp", lambda w: {"dealId": w["deal"].pk, "due": "2001-01-01", "summary": "x"}, "past"),
    ("scheduleDealFollowUp", lambda w: {"dealId": w["won"].pk, "due": "2999-01-01", "summary": "x"}, "won"),
    ("getDealFollowUpsDue", lambda w: {"withinDays": 400}, "withinDays"),
    ("getDealFollowUpsDue", lambda w: {"ownerEmail": "nobody@else.example"}, "nobody in"),
    ("openDeal", lambda w: {"dealId": 10**9}, "not found"),
    ("shareDeal", lambda w: {"dealId": w["deal"].pk, "personEmail": "nobody@else.example"}, "nobody in"),
    ("restoreDeal", lambda w: {"dealId": 10**9}, "not found"),
    ("getDealHistory", lambda w: {"dealId": 10**9}, "not found"),
    ("getPipelineOverview", lambda w: {"pipelineId": 10**9}, "not found"),
    ("briefDealPipeline", lambda w: {"pipelineId": 0}, "pipelineId"),
    ("openDeals", lambda w: {"pipelineId": "x"}, "pipelineId"),
    ("deleteDeal", lambda w: {"dealId": 10**9}, "not found"),
]


def test_bad_input_names_the_problem_and_writes_nothing(world):
    before = counts()
    for name, arguments, expected in BAD:
        actor = world["admin"] if name in ("createPipeline", "managePipeline") else world["member"]
        message = refused(actor, name, arguments(world), **CONFIRM)
        assert expected.lower() in message.lower(), (name, message)
    assert counts() == before


# --- a deal through the pipeline -----------------------------------------------------------------


def test_a_deal_moves_through_stages_with_its_history_and_weighted_value(world):
    member, pipeline = world["member"], world["pipeline"]
    qualified, proposal, negotiation = pipeline.stages.order_by("position")
    created = ok(
        member, "createDeal", {"title": "Orrery licences", "value": 12500.5, "pipelineId": pipeline.pk}
    )
    deal_id = created["id"]
    assert (created["stage"]["name"], created["value"], created["weightedValue"]) == (
        "Qualified",
        "12500.50",
        "1250.05",
    )

    moved = ok(member, "moveDealStage", {"dealId": deal_id, "stageId": proposal.pk})
    again = ok(member, "moveDealStage", {"dealId": deal_id, "stageId": proposal.pk})
    ok(member, "moveDealStage", {"dealId": deal_id, "stageId": negotiation.pk})
    deal = ok(member, "getDeal", {"dealId": deal_id})

    assert moved["moved"] is True and again["moved"] is False
    assert deal["weightedValue"] == "8750.35"  # 12,500.50 x 70 %
    visits = deal["history"]
    assert [v["stage"] for v in visits] == ["Qualified", "Proposal", "Negotiation"]
    assert all(v["leftAt"] for v in visits[:2]) and visits[2]["leftAt"] is None
    assert visits[0]["leftAt"] == visits[1]["enteredAt"]

    assert "lostReason" in refused(member, "updateDeal", {"dealId": deal_id, "changes": {"status": "lost"}})
    lost = ok(
        member, "updateDeal", {"dealId": deal_id, "changes": {"status": "lost", "lostReason": "Budget cut"}}
    )
    assert lost["deal"]["status"] == "lost" and lost["deal"]["lostReason"] == "Budget cut"
    assert "reopen" in refused(member, "moveDealStage", {"dealId": deal_id, "stageId": qualified.pk}).lower()
    reopened = ok(member, "updateDeal", {"dealId": deal_id, "changes": {"status": "open"}})
    assert reopened["deal"]["status"] == "open" and reopened["deal"]["closedAt"] is None

    history = ok(member, "getDealHistory", {"dealId": deal_id, "limit": 50})["items"]
    kinds = [event["kind"] for event in reversed(history)]
    assert kinds == ["created", "moved", "moved", "lost", "reopened"]
    assert history[0]["changes"] == {"status": ["lost", "open"]}
    assert history[0]["actor"]["email"] == member.email
    assert (history[0]["door"], history[0]["tool"], history[0]["client"]) == (
        "mcp",
        "updateDeal",
        "test client",
    )


def test_a_deal_in_another_currency_is_weighted_at_its_rate(world):
    member, other = world["member"], world["other"]
    deal = ok(
        member,
        "createDeal",
        {"title": "Fx", "value": 1000, "currency": "gbp", "rate": 1.25, "pipelineId": other.pk},
    )
    assert (deal["currency"], deal["pipelineCurrency"], deal["exchangeRate"]) == ("GBP", "USD", "1.25")
    assert deal["weightedValue"] == "125.00"  # 1,000 GBP x 1.25 x 10 %
    board = ok(member, "getPipelineOverview", {"pipelineId": other.pk})["pipelines"][0]
    assert (board["value"], board["weighted"], board["open"]) == ("1250.00", "125.00", 1)
    elsewhere = {"dealId": deal["id"], "stageId": world["pipeline"].stages.first().pk}
    assert "reports in EUR" in refused(member, "moveDealStage", elsewhere)
    ok(
        member,
        "updateDeal",
        {"dealId": deal["id"], "changes": {"currency": "EUR", "value": 1150, "rate": 1.08}},
    )
    # A round rate reads as written, not in a decimal's exponent form ("1E+1").
    ten = ok(member, "updateDeal", {"dealId": deal["id"], "changes": {"currency": "SEK", "rate": 10}})
    assert ten["deal"]["exchangeRate"] == "10"
    ok(member, "updateDeal", {"dealId": deal["id"], "changes": {"currency": "EUR", "rate": 1.08}})
    moved = ok(member, "moveDealStage", elsewhere)["deal"]
    assert (moved["pipelineId"], moved["currency"]) == (world["pipeline"].pk, "EUR")
    assert ok(member, "getDeal", {"dealId": deal["id"]})["exchangeRate"] == "1"


def test_the_rate_comes_from_the_one_place_for_rates_as_the_person_gave_it(world):
    """Deals asks apps.accounting.api.rate for the rate its person gave: the ECB's is never taken
    instead, and a missing or bad one is refused in Deals' own words and codes."""
    member, other = world["member"], world["other"]
    create = {"title": "Fx", "currency": "GBP"}

    with pytest.raises(errors.NoDealRate) as missing:
        services.deal_create(actor=member, pipeline_id=other.pk, stage_id=None, fields=create)
    with pytest.raises(ValidationFailed) as bad:
        services.deal_create(actor=member, pipeline_id=other.pk, stage_id=None, fields={**create, "rate": 0})
    given = services.deal_create(
        actor=member, pipeline_id=other.pk, stage_id=None, fields={**create, "rate": 3}
    )

    assert (missing.value.code, missing.value.message) == (
        "NO_EXCHANGE_RATE",
        "The deal is in GBP and its pipeline reports in USD: give `rate` (one GBP in USD today).",
    )
    assert missing.value.details == {"rate": ["required for another currency"]}
    assert bad.value.code == "VALIDATION_ERROR" and "at most 1,000,000,000" in str(bad.value.message)
    assert (given.exchange_rate, given.rate_date) == (Decimal(3), timezone.localdate())


def test_delete_goes_to_the_bin_and_restore_brings_it_back(world):
    member, deal = world["member"], world["deal"]
    gone = ok(member, "deleteDeal", {"dealId": deal.pk}, **CONFIRM)
    assert gone["inTrash"] is True
    assert ok(member, "searchDeals", {"query": "Tessellate renewal"})["total"] == 0
    assert "bin" in refused(member, "updateDeal", {"dealId": deal.pk, "changes": {"value": 1}})
    assert ok(member, "getDealHistory", {"dealId": deal.pk})["items"][0]["kind"] == "deleted"

    back = ok(member, "restoreDeal", {"dealId": deal.pk})
    assert back["inTrash"] is False and back["title"] == "Tessellate renewal"
    assert ok(member, "searchDeals", {"query": "tessellate RENEWAL"})["total"] == 1


def test_sharing_a_private_deal_is_kept_in_its_history(world, people):
    member, viewer = world["member"], people["viewer"]
    deal = DealFactory(actor=member, pipeline=world["pipeline"], title="Quiet one", visibility="private")
    assert "not found" in refused(viewer, "getDeal", {"dealId": deal.pk}).lower()
    ok(member, "shareDeal", {"dealId": deal.pk, "personEmail": viewer.email, "access": "view"})
    assert ok(viewer, "getDeal", {"dealId": deal.pk})["title"] == "Quiet one"
    assert ok(member, "getDealHistory", {"dealId": deal.pk})["items"][0]["kind"] == "shared"


# --- contacts, follow-ups, rotting -----------------------------------------------------------------


def _person(email: str, zone: str) -> User:
    return User.objects.create_user(
        email=email, password=None, role=Role.objects.get(key="member"), time_zone=zone
    )


def test_follow_ups_are_due_on_their_owners_day_in_their_time_zone(world):
    member, pipeline = world["member"], world["pipeline"]
    east = _person("kiri@acme.example", "Pacific/Kiritimati")  # UTC+14
    west = _person("pago@acme.example", "Pacific/Pago_Pago")  # UTC-11
    now = timezone.now()
    east_today = now.astimezone(ZoneInfo("Pacific/Kiritimati")).date()
    west_today = now.astimezone(ZoneInfo("Pacific/Pago_Pago")).date()
    deal = DealFactory(actor=member, pipeline=pipeline, title="Zones")
    due_east = ok(
        member,
        "scheduleDealFollowUp",
        {"dealId": deal.pk, "due": east_today.isoformat(), "summary": "E", "ownerEmail": east.email},
    )
    tomorrow_west = (west_today + timedelta(days=1)).isoformat()
    later_west = ok(
        member,
        "scheduleDealFollowUp",
        {"dealId": deal.pk, "due": tomorrow_west, "summary": "W", "ownerEmail": west.email},
    )

    assert due_east["timeZone"] == "Pacific/Kiritimati"
    assert due_east["dueAt"].startswith(east_today.isoformat()) and due_east["dueAt"].endswith("+14:00")
    today = {i["followUp"]["id"] for i in ok(member, "getDealFollowUpsDue", {})["items"]}
    assert due_east["id"] in today and later_west["id"] not in today
    soon = {i["followUp"]["id"] for i in ok(member, "getDealFollowUpsDue", {"withinDays": 1})["items"]}
    assert later_west["id"] in soon
    theirs = ok(member, "getDealFollowUpsDue", {"withinDays": 1, "ownerEmail": west.email})["items"]
    assert [i["followUp"]["id"] for i in theirs] == [later_west["id"]]

    logged = ok(
        member, "logDealContact", {"dealId": deal.pk, "summary": "Called", "followUpId": due_east["id"]}
    )
    assert logged["followUpDone"]["doneAt"] is not None
    assert due_east["id"] not in {i["followUp"]["id"] for i in ok(member, "getDealFollowUpsDue", {})["items"]}


def test_an_idle_deal_rots_until_a_contact_is_logged(world):
    member, deal = world["member"], world["deal"]
    Deal.objects.filter(pk=deal.pk).update(stage_entered_at=timezone.now() - timedelta(days=20))
    assert ok(member, "getDeal", {"dealId": deal.pk})["rottingDays"] == 6  # Qualified rots after 14 days
    board = ok(member, "getPipelineOverview", {"pipelineId": world["pipeline"].pk})["pipelines"][0]
    assert deal.pk in [d["id"] for d in board["rotting"]]
    brief = ok(member, "briefDealPipeline", {"pipelineId": world["pipeline"].pk})
    assert brief["source"] == "computed" and any("Rotting: 1" in line for line in brief["brief"])

    ok(member, "logDealContact", {"dealId": deal.pk, "summary": "Checked in", "channel": "email"})
    assert ok(member, "getDeal", {"dealId": deal.pk})["rottingDays"] is None


def test_the_brief_is_computed_from_the_deals(world):
    member, pipeline = world["member"], world["pipeline"]
    brief = ok(member, "briefDealPipeline", {"pipelineId": pipeline.pk})
    board = brief["pipelines"][0]
    # Open: the 20,000 renewal on Qualified (10 %); the pilot is won.
    assert (board["open"], board["value"], board["weighted"], board["won"]) == (
        1,
        "20000.00",
        "2000.00",
        1,
    )
    assert brief["brief"][0].startswith(
        "Direct sales: 1 open deal(s) worth 20000.00 EUR, forecast 2000.00 EUR"
    )


# --- pipelines ---------------------------------------------------------------------------------------


def test_managing_a_pipelines_stages(world):
    admin, member, pipeline, deal = world["admin"], world["member"], world["pipeline"], world["deal"]
    qualified, proposal, negotiation = pipeline.stages.order_by("position")
    pid = pipeline.pk
    added = ok(
        admin,
        "managePipeline",
        {"pipelineId": pid, "action": "add_stage", "stage": {"name": "Signed", "probability": 95}},
    )
    assert [s["name"] for s in added["pipeline"]["stages"]][-1] == "Signed"
    order = [negotiation.pk, qualified.pk, proposal.pk, added["pipeline"]["stages"][-1]["id"]]
    reordered = ok(admin, "managePipeline", {"pipelineId": pid, "action": "reorder", "stageIds": order})
    assert [s["id"] for s in reordered["pipeline"]["stages"]] == order
    updated = ok(
        admin,
        "managePipeline",
        {"pipelineId": pid, "action": "update_stage", "stageId": proposal.pk, "stage": {"probability": 55}},
    )
    assert next(s for s in updated["pipeline"]["stages"] if s["id"] == proposal.pk)["probability"] == 55
    ok(
        admin,
        "managePipeline",
        {"pipelineId": pid, "action": "remove_stage", "stageId": qualified.pk, "moveToStageId": proposal.pk},
    )
    moved = ok(member, "getDeal", {"dealId": deal.pk})
    assert moved["stage"]["id"] == proposal.pk and moved["history"][-1]["stage"] == "Proposal"
    ok(member, "updateDeal", {"dealId": deal.pk, "changes": {"status": "lost", "lostReason": "No budget"}})
    ok(admin, "managePipeline", {"pipelineId": pid, "action": "archive"})
    assert pid not in [p["id"] for p in ok(member, "getPipelineOverview", {})["pipelines"]]
    assert (
        ok(admin, "managePipeline", {"pipelineId": pid, "action": "restore"})["pipeline"]["archived"] is False
    )


# --- pages -------------------------------------------------------------------------------------------


def test_the_board_and_a_deals_page_show_what_happened(world, acme_client):
    member, deal = world["member"], world["deal"]
    ok(member, "logDealContact", {"dealId": deal.pk, "summary": "Demo went well"})
    acme_client.force_login(member)
    board = acme_client.get("/settings/deals/").content.decode()
    assert "Direct sales" in board and "Tessellate renewal" in board and "Qualified" in board
    page = acme_client.get(f"/settings/deals/{deal.pk}/").content.decode()
    assert "Demo went well" in page and "Stage history" in page
    assert acme_client.get("/settings/deals/999999999/").status_code == 404
    assert Decimal(deal.value) == Decimal("20000.00")
