"""Pipelines and deals for tests, made through the services as a person makes them
(apps.core.factories): `PipelineFactory(actor=people["admin"])`,
`DealFactory(actor=people["member"], pipeline=pipeline, value=1000)`."""

import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import factory
from django.utils import timezone

from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered, private_rows
from apps.deals import services
from apps.deals.models import Deal, DealFinder, Pipeline, ReachoutCampaign

STAGES = [
    {"name": "Qualified", "probability": 10, "rotting_days": 14},
    {"name": "Proposal", "probability": 40, "rotting_days": 10},
    {"name": "Negotiation", "probability": 70, "rotting_days": 7},
]


def _pipeline(*, actor: Any, fields: dict[str, Any]) -> Pipeline:
    return services.pipeline_create(actor=actor, **fields)


class PipelineFactory(ServiceFactory):
    class Meta:
        model = Pipeline

    name = numbered(fake.word, " pipeline ")
    stages = factory.LazyFunction(lambda: [dict(stage) for stage in STAGES])
    currency = "EUR"
    _service = staticmethod(_pipeline)


def _deal(*, actor: Any, fields: dict[str, Any]) -> Deal:
    pipeline = fields.pop("pipeline", None)
    stage = fields.pop("stage", None)
    return services.deal_create(
        actor=actor,
        pipeline_id=pipeline.pk if pipeline is not None else None,
        stage_id=stage.pk if stage is not None else None,
        fields=fields,
    )


class DealFactory(ServiceFactory):
    class Meta:
        model = Deal

    title = numbered(fake.company, " deal ")
    value = 10000
    currency = "EUR"
    _service = staticmethod(_deal)


# --- the rows of each deals record, for the access test (tests/test_access_per_model.py) -------------


Make = Callable[[Any, str], Any]


def _owned(people: dict[str, Any], make: Make, then: Callable[[Any, Any], Any]) -> AccessRows:
    """`then(actor, make(actor, visibility))` for private records of the member's and the owner's
    and one everyone sees: the rows of a record follow it."""
    return private_rows(people, lambda actor, visibility: then(actor, make(actor, visibility)))


def _listed_by(people: dict[str, Any], make: Make, tool: str) -> AccessRows:
    rows = _owned(people, make, _itself)
    rows.listed = lambda person: listed(person, tool, {"limit": 100})
    return rows


def _itself(actor: Any, record: Any) -> Any:
    return record


@access_rows("deals.Pipeline")
def _pipelines(people: dict[str, Any]) -> AccessRows:
    return AccessRows(everyone=[PipelineFactory(actor=people["owner"])])


def _deal_of(people: dict[str, Any]) -> Make:
    pipeline = PipelineFactory(actor=people["owner"])

    def deal(actor: Any, visibility: str) -> Deal:
        return DealFactory(actor=actor, pipeline=pipeline, visibility=visibility)

    return deal


@access_rows("deals.Deal")
def _deals(people: dict[str, Any]) -> AccessRows:
    return _listed_by(people, _deal_of(people), "listDeals")


@access_rows("deals.Activity")
def _activities(people: dict[str, Any]) -> AccessRows:
    def follow_up(actor: Any, deal: Deal) -> Any:
        due = timezone.localdate() + timedelta(days=2)
        return services.follow_up_schedule(actor=actor, deal_id=deal.pk, due=due, summary="Call back")

    return _owned(people, _deal_of(people), follow_up)


def _campaign(actor: Any, visibility: str, contact: Any = None) -> ReachoutCampaign:
    """A campaign to a new address, or to `contact`."""
    from apps.deals import reachout
    from apps.mail.tests.factories import mailbox

    return reachout.campaign_create(
        actor=actor,
        name=f"Outreach {uuid.uuid4().hex[:8]}",
        mailbox=mailbox(actor),
        steps=[reachout.Step("Hello {first_name}", "A short note.")],
        emails=[] if contact else [f"prospect-{uuid.uuid4().hex[:8]}@example.org"],
        contact_ids=[contact.pk] if contact else [],
        private=visibility == "private",
    )


@access_rows("deals.ReachoutCampaign")
def _campaigns(people: dict[str, Any]) -> AccessRows:
    return _listed_by(people, _campaign, "listReachoutCampaigns")


@access_rows("deals.CampaignStep")
def _campaign_steps(people: dict[str, Any]) -> AccessRows:
    return _owned(people, _campaign, lambda actor, campaign: campaign.steps.get())


@access_rows("deals.CampaignRecipient")
def _campaign_recipients(people: dict[str, Any]) -> AccessRows:
    return _owned(people, _campaign, lambda actor, campaign: campaign.recipients.get())


@access_rows("deals.CampaignMessage")
def _campaign_messages(people: dict[str, Any]) -> AccessRows:
    from apps.deals.models import CampaignMessage

    def sent(actor: Any, campaign: ReachoutCampaign) -> CampaignMessage:
        return CampaignMessage.objects.create(
            recipient=campaign.recipients.get(),
            position=1,
            mailbox=campaign.mailbox,
            message_id=f"<{uuid.uuid4().hex}@acme.example>",
        )

    return _owned(people, _campaign, sent)


def _finder(actor: Any, visibility: str) -> DealFinder:
    from apps.deals import finding

    return finding.finder_create(
        actor=actor,
        name=f"Finder {uuid.uuid4().hex[:8]}",
        criteria={"titles": ["procurement"]},
        sources=["contacts"],
        schedule=DealFinder.Schedule.MANUAL,
        private=visibility == "private",
    )


@access_rows("deals.DealFinder")
def _finders(people: dict[str, Any]) -> AccessRows:
    return _listed_by(people, _finder, "listDealFinders")


@access_rows("deals.FoundLead")
def _leads(people: dict[str, Any]) -> AccessRows:
    from apps.deals.models import FoundLead

    def lead(actor: Any, finder: DealFinder) -> FoundLead:
        return FoundLead.objects.create(finder=finder, key=f"lead:{uuid.uuid4().hex}", source="provider")

    return _owned(people, _finder, lead)


@factories.privacy_rows("deals")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private deal, a deal (the workspace's) with the owner's private contact, and
    a finder (the workspace's) the owner ran over their contacts."""
    from apps.contacts.tests.factories import ContactFactory
    from apps.deals import finding

    owner = people["owner"]
    pipeline = PipelineFactory(actor=owner)
    rows.add("pipelineId", record=pipeline)
    hidden = DealFactory(
        actor=owner, pipeline=pipeline, title=f"{marker} deal", notes=f"{marker} notes", visibility="private"
    )
    rows.add("dealId", "entityId", record=hidden)
    contact = ContactFactory(
        actor=owner,
        first_name=f"{marker} Buyer",
        email=f"{marker}.buyer@example.org",
        job_title="Head of procurement",
        visibility="private",
    )
    rows.add("dealId", "entityId", record=DealFactory(actor=owner, pipeline=pipeline, contact_id=contact.pk))
    rows.add("campaignId", record=_campaign(owner, "workspace", contact))
    # A finder everyone sees, run by the owner, over contacts the private one matches.
    finder = _finder(owner, "workspace")
    finding.finder_run(finder=finder, actor=owner)
    rows.add("finderId", record=finder)
