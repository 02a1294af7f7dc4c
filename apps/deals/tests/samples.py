"""A normal call of every Deals Pipeline tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`."""

from datetime import timedelta
from typing import Any

from django.utils import timezone

from apps.catalogue.testing import Sample, sample
from apps.contacts.tests.factories import ContactFactory
from apps.deals import services
from apps.deals.tests.factories import DealFactory, PipelineFactory


def _deal(actor: Any, arguments: dict[str, Any] | None = None, **fields: Any) -> Sample:
    pipeline = PipelineFactory(actor=actor)
    deal = DealFactory(actor=actor, pipeline=pipeline, title="Quillfeather renewal", **fields)
    return Sample({"dealId": deal.pk, **(arguments or {})}, private=[deal.title, pipeline.name])


@sample("createPipeline")
def create_pipeline(actor: Any) -> Sample:
    stages = [
        {"name": "Qualified", "probability": 10, "rottingDays": 14},
        {"name": "Proposal", "probability": 50},
        {"name": "Negotiation", "probability": 80, "rottingDays": 5},
    ]
    return Sample({"name": "Enterprise sales", "stages": stages, "currency": "USD"})


@sample("managePipeline")
def manage_pipeline(actor: Any) -> Sample:
    pipeline = PipelineFactory(actor=actor)
    return Sample(
        {
            "pipelineId": pipeline.pk,
            "action": "add_stage",
            "stage": {"name": "Contract sent", "probability": 90},
        },
        private=[pipeline.name],
    )


@sample("getPipelineOverview")
def get_pipeline_overview(actor: Any) -> Sample:
    return Sample({}, private=_deal(actor).private)


@sample("briefDealPipeline")
def brief_deal_pipeline(actor: Any) -> Sample:
    return Sample({}, private=_deal(actor).private)


@sample("createDeal")
def create_deal(actor: Any) -> Sample:
    pipeline = PipelineFactory(actor=actor)
    contact = ContactFactory(actor=actor, first_name="Ysolde", last_name="Marchbank")
    return Sample(
        {
            "title": "Harbourline: 40 seats",
            "value": 48000,
            "currency": "EUR",
            "pipelineId": pipeline.pk,
            "contactId": contact.pk,
            "expectedClose": (timezone.localdate() + timedelta(days=30)).isoformat(),
        },
        private=[pipeline.name, "Marchbank"],
    )


@sample("getDeal")
def get_deal(actor: Any) -> Sample:
    return _deal(actor)


@sample("updateDeal")
def update_deal(actor: Any) -> Sample:
    return _deal(actor, {"changes": {"value": 52000, "notes": "Wants a 3-year term"}})


@sample("listDeals")
def list_deals(actor: Any) -> Sample:
    return Sample({"status": "open"}, private=_deal(actor).private)


@sample("searchDeals")
def search_deals(actor: Any) -> Sample:
    return Sample({"query": "Quillfeather"}, private=_deal(actor).private)


@sample("moveDealStage")
def move_deal_stage(actor: Any) -> Sample:
    pipeline = PipelineFactory(actor=actor)
    deal = DealFactory(actor=actor, pipeline=pipeline, title="Quillfeather expansion")
    return Sample({"dealId": deal.pk, "stageId": pipeline.stages.last().pk}, private=[deal.title])


@sample("logDealContact")
def log_deal_contact(actor: Any) -> Sample:
    return _deal(actor, {"summary": "Call with the buyer: budget approved", "channel": "call"})


@sample("scheduleDealFollowUp")
def schedule_deal_follow_up(actor: Any) -> Sample:
    due = (timezone.localdate() + timedelta(days=3)).isoformat()
    return _deal(actor, {"due": due, "summary": "Send the revised proposal"})


@sample("getDealFollowUpsDue")
def get_deal_follow_ups_due(actor: Any) -> Sample:
    found = _deal(actor)
    services.follow_up_schedule(
        actor=actor, deal_id=found.arguments["dealId"], due=timezone.localdate(), summary="Call back"
    )
    return Sample({"withinDays": 7}, private=found.private)


@sample("openDeal")
def open_deal(actor: Any) -> Sample:
    return _deal(actor)


@sample("openDeals")
def open_deals(actor: Any) -> Sample:
    return Sample({})


@sample("shareDeal")
def share_deal(actor: Any) -> Sample:
    return _deal(actor, {"visibility": "private"}, visibility="private")


@sample("deleteDeal")
def delete_deal(actor: Any) -> Sample:
    return _deal(actor)


@sample("restoreDeal")
def restore_deal(actor: Any) -> Sample:
    found = _deal(actor)
    services.deal_trash(actor=actor, deal_id=found.arguments["dealId"])
    return found


@sample("getDealHistory")
def get_deal_history(actor: Any) -> Sample:
    return _deal(actor)


from apps.deals.tests import samples_outreach  # noqa: E402, F401  (deal finders, campaigns, e-mail)
