"""Reachout campaigns: sequenced e-mails from one mailbox (apps.deals.reachout). Starting one
sends mail to the outside world: controlReachoutCampaign is HIGH RISK."""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import In, Limit, Offset, Out, Page, id_field, paginate
from apps.deals import reachout
from apps.deals.models import DealFinder, ReachoutCampaign
from apps.deals.permissions import DealsPerm
from apps.mail import api as mail

CampaignId = Annotated[int, id_field("listReachoutCampaigns")]


class StepIn(In):
    subject: Annotated[str, Field(min_length=1, max_length=200)]
    body: Annotated[str, Field(min_length=1, max_length=20_000, description="{first_name} {company}")]
    delay_days: Annotated[int, Field(ge=0, le=90, description="After the previous step")] = 3


class StepOut(Out):
    position: int
    delay_days: int
    subject: str


class CampaignOut(Out):
    id: int
    name: str
    status: str
    inbox_id: int | None
    window: str = Field(description="Local hours and ISO weekdays")
    time_zone: str
    daily_cap: int
    counts: dict[str, int] = Field(description="Recipients by state; sent messages")
    started_at: datetime | None


class CampaignDetail(CampaignOut):
    steps: list[StepOut]


class RecipientOut(Out):
    email: str
    name: str
    state: str
    next_step: int
    sends: bool
    reason: str = Field(description="Why it is skipped")
    next_send_at: datetime | None
    time_zone: str


def _campaign(campaign: ReachoutCampaign) -> CampaignOut:
    return CampaignOut.of_record(
        campaign,
        inbox_id=campaign.mailbox_id,
        window=f"{campaign.window_start}-{campaign.window_end}h days {','.join(map(str, campaign.weekdays))}",
        counts=reachout.counts(campaign),
    )


def _detail(campaign: ReachoutCampaign) -> CampaignDetail:
    return CampaignDetail.model_validate(
        {
            **_campaign(campaign).model_dump(),
            "steps": [StepOut.of_record(step) for step in campaign.steps.order_by("position")],
        }
    )


@tool("createReachoutCampaign", permission=DealsPerm.CAMPAIGNS, title="Create a reachout campaign")
def create_reachout_campaign(
    ctx: ToolContext,
    *,
    name: Annotated[str, Field(min_length=1, max_length=120, description="Unique")],
    inbox_id: Annotated[int, id_field("listInboxes")],
    steps: Annotated[list[StepIn], Field(min_length=1, max_length=6, description="E-mails in order")],
    contact_ids: Annotated[list[int], Field(max_length=1000, description="Recipients")] = [],  # noqa: B006
    finder_id: Annotated[int | None, Field(ge=1, description="Its leads")] = None,
    emails: Annotated[list[str], Field(max_length=1000, description="More recipients")] = [],  # noqa: B006
    send_window: Annotated[
        list[Annotated[int, Field(ge=0, le=24)]],
        Field(min_length=2, max_length=2, description="Local hours [from, to]"),
    ] = [9, 17],  # noqa: B006
    daily_cap: Annotated[int, Field(ge=1, le=2000, description="Mails a day from the mailbox")] = 50,
) -> CampaignDetail:
    """Set up an e-mail sequence to contacts, a finder's leads or addresses; sends nothing yet."""
    mailbox = mail.mailbox(actor=ctx.actor, mailbox_id=inbox_id)
    finder = DealFinder.objects.fetch(ctx.actor, finder_id) if finder_id is not None else None
    campaign = reachout.campaign_create(
        actor=ctx.actor,
        name=name,
        mailbox=mailbox,
        steps=[reachout.Step(step.subject, step.body, step.delay_days) for step in steps],
        contact_ids=contact_ids,
        finder=finder,
        emails=emails,
        window=(send_window[0], send_window[1]),
        daily_cap=daily_cap,
    )
    return _detail(campaign)


@tool(
    "controlReachoutCampaign",
    permission=DealsPerm.CAMPAIGNS,
    title="Start, pause or stop a campaign",
    markers=Marker.HIGH_RISK,
    open_world=True,
)
def control_reachout_campaign(
    ctx: ToolContext,
    *,
    campaign_id: CampaignId,
    action: Annotated[Literal["start", "pause", "resume", "stop"], Field(description="start sends mail")],
) -> CampaignDetail:
    """Start a reachout campaign (sending begins), pause, resume or stop it for good."""
    campaign = ReachoutCampaign.objects.select_related("mailbox").fetch(ctx.actor, campaign_id, "change")
    return _detail(reachout.campaign_control(actor=ctx.actor, campaign=campaign, action=action))


@tool("getReachoutCampaign", permission=DealsPerm.VIEW, title="Get a reachout campaign", read_only=True)
def get_reachout_campaign(ctx: ToolContext, *, campaign_id: CampaignId) -> CampaignDetail:
    """Get a campaign's steps, state and counts (replied, bounced, unsubscribed, sent)."""
    return _detail(ReachoutCampaign.objects.fetch(ctx.actor, campaign_id))


@tool("listReachoutCampaigns", permission=DealsPerm.VIEW, title="List reachout campaigns", read_only=True)
def list_reachout_campaigns(
    ctx: ToolContext,
    *,
    status: Annotated[
        Literal["draft", "running", "paused", "stopped", "finished"] | None, Field(description="Only these")
    ] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[CampaignOut]:
    """List the outbound e-mail sequences you may see, newest first."""
    rows = ReachoutCampaign.objects.restrict(ctx.actor)
    if status:
        rows = rows.filter(status=status)
    return paginate(rows.order_by("-created_at", "-id"), limit=limit, offset=offset, item=_campaign)


@tool(
    "previewReachoutRecipients",
    permission=DealsPerm.VIEW,
    title="Preview a campaign's recipients",
    read_only=True,
)
def preview_reachout_recipients(
    ctx: ToolContext, *, campaign_id: CampaignId, limit: Limit = 25, offset: Offset = 0
) -> Page[RecipientOut]:
    """Who a campaign writes to next and when (their local window), and whom it skips and why."""
    campaign = ReachoutCampaign.objects.fetch(ctx.actor, campaign_id)
    found, total = reachout.preview(campaign, limit=limit, offset=offset)
    items = [
        RecipientOut.of_record(
            row.recipient,
            sends=row.sends,
            reason=row.reason,
            next_send_at=row.next_send_at,
            time_zone=row.time_zone,
        )
        for row in found
    ]
    following = offset + limit if offset + limit < total else None
    return Page[RecipientOut](items=items, total=total, limit=limit, offset=offset, next_offset=following)
