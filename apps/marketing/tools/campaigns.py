"""Marketing's segments and e-mail campaigns (their launch, pause and autonomy) and their figures.
Thin doors onto services and selectors."""

from typing import Annotated, Any, Literal

from django.db.models import Count
from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, In, Limit, Offset, Out, Page, paginate
from apps.core.records import Action
from apps.marketing import selectors, sending, services
from apps.marketing.errors import AgentMayNotLaunch, NoRecipients
from apps.marketing.models import Campaign, Click, LandingPage, MarketingSettings, Segment
from apps.marketing.permissions import MarketingPerm
from apps.marketing.shapes import CampaignId, CampaignOut, CampaignSummary, FiguresOut, SegmentId, SegmentOut
from apps.tenancy import links


def _segment(ctx: ToolContext, segment_id: int, action: Action = "view") -> Segment:
    found: Segment = Segment.objects.fetch(ctx.actor, segment_id, action)
    return found


def _campaign(ctx: ToolContext, campaign_id: int, action: Action = "view") -> Campaign:
    found: Campaign = Campaign.objects.select_related("owner", "segment", "mailbox").fetch(
        ctx.actor, campaign_id, action
    )
    return found


# --- segments -------------------------------------------------------------------------------------


class Rule(In):
    field: Annotated[
        str, Field(max_length=60, description="firstName, country, tags, createdAt, data.<key>…")
    ]
    op: Annotated[str, Field(max_length=20, description="equals, contains, in, has, before, after, isEmpty…")]
    value: str | list[str] | None = None


class SegmentFields(Changes):
    name: Annotated[str, Field(min_length=1, max_length=120)] | None = None
    description: Annotated[str, Field(max_length=500)] | None = None
    match: Literal["all", "any"] | None = Field(None, description="Default: all")
    rules: (
        Annotated[list[Rule], Field(max_length=30, description="On contact fields; none: every contact")]
        | None
    ) = None

    def fields(self, *, required: bool = False) -> dict[str, Any]:
        given = self.given(required=required)
        if given.get("rules") is not None:
            given["rules"] = [rule.model_dump() for rule in given["rules"]]
        return given


@tool("createMarketingSegment", permission=MarketingPerm.EDIT, title="Create a marketing segment")
def create_marketing_segment(
    ctx: ToolContext, *, segment: Annotated[SegmentFields, Field(description="name is required")]
) -> SegmentOut:
    """Define an audience of contacts by rules on their fields. Who it reaches: previewSegmentContacts."""
    made = services.segment_create(actor=ctx.actor, fields=segment.fields())
    return SegmentOut.of(made)


@tool(
    "updateMarketingSegment",
    permission=MarketingPerm.EDIT,
    title="Update a marketing segment",
    idempotent=True,
)
def update_marketing_segment(
    ctx: ToolContext,
    *,
    segment_id: SegmentId,
    changes: Annotated[SegmentFields, Field(description="Only these")],
) -> SegmentOut:
    """Change a segment's name, rules or match; launched campaigns keep the members they had."""
    found = _segment(ctx, segment_id, "change")
    services.segment_update(actor=ctx.actor, segment=found, fields=changes.fields(required=True))
    return SegmentOut.of(_segment(ctx, segment_id))


class DeletedOut(Out):
    id: int
    name: str


def _segment_deletable(ctx: ToolContext, *, segment_id: int) -> bool:
    _segment(ctx, segment_id, "delete")
    return True


@tool(
    "deleteMarketingSegment",
    permission=MarketingPerm.DELETE,
    title="Delete a marketing segment",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_segment_deletable,
)
def delete_marketing_segment(ctx: ToolContext, *, segment_id: SegmentId) -> DeletedOut:
    """Delete a segment no draft or running campaign uses; contacts stay as they are."""
    found = _segment(ctx, segment_id, "delete")
    services.segment_delete(actor=ctx.actor, segment=found)
    return DeletedOut(id=found.pk, name=found.name)


@tool("listMarketingSegments", permission=MarketingPerm.VIEW, title="List marketing segments", read_only=True)
def list_marketing_segments(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words in name or description")] = "",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[SegmentOut]:
    """List the segments (audiences) with their rules, by name."""
    return paginate(
        selectors.segments(ctx.actor, query=query), limit=limit, offset=offset, item=SegmentOut.of
    )


class RecipientOut(Out):
    contact_id: int
    email: str
    name: str
    time_zone: str


class SkippedOut(RecipientOut):
    reason: str = Field(description="unsubscribed, bounced, complained, suppressed, no_consent, cap")


class PreviewOut(Out):
    members: int = Field(description="Contacts you see with an address, one per address")
    reached: int
    skipped: int
    skipped_by_reason: dict[str, int]
    reached_sample: list[RecipientOut]
    skipped_contacts: list[SkippedOut]


def _recipient(member: sending.Member) -> dict[str, Any]:
    return {
        "contact_id": member.contact_id,
        "email": member.email,
        "name": member.name,
        "time_zone": member.time_zone,
    }


@tool(
    "previewSegmentContacts",
    permission=MarketingPerm.VIEW,
    title="Preview a segment's contacts",
    read_only=True,
)
def preview_segment_contacts(
    ctx: ToolContext,
    *,
    segment_id: SegmentId,
    limit: Annotated[int, Field(ge=1, le=200, description="Contacts listed of each kind")] = 50,
) -> PreviewOut:
    """Exactly who a launch to this segment reaches now, and who is skipped and why. Writes nothing."""
    found = sending.audience(ctx.actor, _segment(ctx, segment_id))
    by_reason: dict[str, int] = {}
    for _member, reason in found.skipped:
        by_reason[reason] = by_reason.get(reason, 0) + 1
    return PreviewOut(
        members=found.members,
        reached=len(found.reached),
        skipped=len(found.skipped),
        skipped_by_reason=by_reason,
        reached_sample=[RecipientOut(**_recipient(member)) for member in found.reached[:limit]],
        skipped_contacts=[
            SkippedOut(**_recipient(member), reason=reason) for member, reason in found.skipped[:limit]
        ],
    )


# --- campaigns ------------------------------------------------------------------------------------


class CampaignFields(Changes):
    name: Annotated[str, Field(min_length=1, max_length=120)] | None = None
    subject: Annotated[str, Field(min_length=1, max_length=200, description="One line")] | None = None
    body: (
        Annotated[str, Field(max_length=100_000, description="Text; {first_name}, {name}; links tracked")]
        | None
    ) = None
    segment_id: SegmentId | None = None
    mailbox_id: (
        Annotated[int, Field(ge=1, description="Sent from; from listInboxes. Default: yours")] | None
    ) = None
    visibility: Literal["workspace", "private"] | None = Field(None, description="private: only you")


@tool("createMarketingCampaign", permission=MarketingPerm.EDIT, title="Create a marketing campaign")
def create_marketing_campaign(
    ctx: ToolContext,
    *,
    campaign: Annotated[CampaignFields, Field(description="name, subject and body are required")],
) -> CampaignOut:
    """Write an e-mail campaign as a draft for a segment. Then: launchMarketingCampaign."""
    made = services.campaign_create(actor=ctx.actor, fields=campaign.given())
    return CampaignOut.of(_campaign(ctx, made.pk))


@tool(
    "updateMarketingCampaign",
    permission=MarketingPerm.EDIT,
    title="Update a marketing campaign",
    idempotent=True,
)
def update_marketing_campaign(
    ctx: ToolContext,
    *,
    campaign_id: CampaignId,
    changes: Annotated[CampaignFields, Field(description="Only these; content only while a draft")],
) -> CampaignOut:
    """Change a draft campaign's subject, text, segment or mailbox (name and visibility at any time)."""
    found = _campaign(ctx, campaign_id, "change")
    services.campaign_update(actor=ctx.actor, campaign=found, fields=changes.given(required=True))
    return CampaignOut.of(_campaign(ctx, campaign_id))


class CampaignDetailOut(Out):
    campaign: CampaignOut
    figures: FiguresOut


@tool("getMarketingCampaign", permission=MarketingPerm.VIEW, title="Get a marketing campaign", read_only=True)
def get_marketing_campaign(ctx: ToolContext, *, campaign_id: CampaignId) -> CampaignDetailOut:
    """One campaign in full: its text, segment, status, autonomy and figures."""
    found = _campaign(ctx, campaign_id)
    return CampaignDetailOut(campaign=CampaignOut.of(found), figures=FiguresOut.of(selectors.figures(found)))


@tool(
    "searchMarketingCampaigns",
    permission=MarketingPerm.VIEW,
    title="Search marketing campaigns",
    read_only=True,
)
def search_marketing_campaigns(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words in name, subject or text")] = "",
    status: Literal["draft", "sending", "paused", "sent"] | None = Field(None, description="Default: any"),
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[CampaignSummary]:
    """Find e-mail campaigns by words or status, newest first. One in full: getMarketingCampaign."""
    rows = selectors.campaigns(ctx.actor, query=query, status=status)
    return paginate(rows, limit=limit, offset=offset, item=CampaignSummary.of)


def _campaign_deletable(ctx: ToolContext, *, campaign_id: int) -> bool:
    _campaign(ctx, campaign_id, "delete")
    return True


@tool(
    "deleteMarketingCampaign",
    permission=MarketingPerm.DELETE,
    title="Delete a marketing campaign",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_campaign_deletable,
)
def delete_marketing_campaign(ctx: ToolContext, *, campaign_id: CampaignId) -> DeletedOut:
    """Delete a campaign to the trash; one still sending stops. To keep it: pauseMarketingCampaign."""
    found = _campaign(ctx, campaign_id, "delete")
    services.campaign_delete(actor=ctx.actor, campaign=found)
    return DeletedOut(id=found.pk, name=found.name)


class LaunchedOut(Out):
    campaign: CampaignSummary
    figures: FiguresOut
    message: str


def _launchable(ctx: ToolContext, *, campaign_id: int) -> bool:
    """Everything a launch needs checked first; the campaign's autonomy says whether a person confirms."""
    found = _campaign(ctx, campaign_id, "change")
    services.launch_check(found)
    if found.autonomy == Campaign.Autonomy.MANUAL:
        raise AgentMayNotLaunch(id=found.pk)
    if found.status == Campaign.Status.DRAFT and found.segment is not None:
        audience = sending.audience(ctx.actor, found.segment, campaign=found)
        if not audience.reached:
            raise NoRecipients(
                id=found.pk, members=audience.members, skipped=services.skipped_words(audience)
            )
    return found.autonomy != Campaign.Autonomy.AUTONOMOUS


@tool(
    "launchMarketingCampaign",
    permission=MarketingPerm.LAUNCH,
    title="Launch a marketing campaign",
    markers=Marker.HIGH_RISK,
    confirm_if=_launchable,
)
def launch_marketing_campaign(ctx: ToolContext, *, campaign_id: CampaignId) -> LaunchedOut:
    """Send a draft campaign to its segment now (members fixed at launch), or resume a paused one."""
    found = _campaign(ctx, campaign_id, "change")
    if found.autonomy == Campaign.Autonomy.MANUAL:
        raise AgentMayNotLaunch(id=found.pk)
    launched = services.campaign_launch(actor=ctx.actor, campaign=found)
    figures = FiguresOut.of(selectors.figures(launched))
    message = _("Sending to {n} recipients ({skipped} skipped); getCampaignPerformance follows it.").format(
        n=figures.queued + figures.sent, skipped=sum(figures.skipped.values())
    )
    return LaunchedOut(
        campaign=CampaignSummary.of(_campaign(ctx, campaign_id)), figures=figures, message=message
    )


class PausedOut(Out):
    campaign: CampaignSummary
    figures: FiguresOut


@tool(
    "pauseMarketingCampaign",
    permission=MarketingPerm.LAUNCH,
    title="Pause a marketing campaign",
    idempotent=True,
)
def pause_marketing_campaign(ctx: ToolContext, *, campaign_id: CampaignId) -> PausedOut:
    """Stop a sending campaign where it is; launchMarketingCampaign resumes it, sending nobody twice."""
    found = _campaign(ctx, campaign_id, "change")
    services.campaign_pause(actor=ctx.actor, campaign=found)
    found = _campaign(ctx, campaign_id)
    return PausedOut(campaign=CampaignSummary.of(found), figures=FiguresOut.of(selectors.figures(found)))


class AutonomyOut(Out):
    campaign: CampaignSummary
    was: str


def _autonomy_settable(ctx: ToolContext, *, campaign_id: int, autonomy: str) -> bool:
    _campaign(ctx, campaign_id, "change")
    return True


@tool(
    "setCampaignAutonomy",
    permission=MarketingPerm.LAUNCH,
    title="Set a campaign's autonomy",
    markers=Marker.HIGH_RISK,
    confirm_if=_autonomy_settable,
)
def set_campaign_autonomy(
    ctx: ToolContext,
    *,
    campaign_id: CampaignId,
    autonomy: Annotated[
        Literal["manual", "approve", "autonomous"],
        Field(description="manual: people launch; approve: agents, you confirm; autonomous: agents alone"),
    ],
) -> AutonomyOut:
    """Decide whether an agent may launch a campaign, with a person's confirmation, or alone."""
    found = _campaign(ctx, campaign_id, "change")
    was = services.campaign_autonomy(actor=ctx.actor, campaign=found, autonomy=autonomy)
    return AutonomyOut(campaign=CampaignSummary.of(_campaign(ctx, campaign_id)), was=was)


class LinkClicksOut(Out):
    url: str
    clicks: int


class PerformanceOut(Out):
    campaign: CampaignSummary
    figures: FiguresOut
    links: list[LinkClicksOut] = Field(description="Most clicked first")


@tool(
    "getCampaignPerformance",
    permission=MarketingPerm.VIEW,
    title="Get a campaign's performance",
    read_only=True,
)
def get_campaign_performance(ctx: ToolContext, *, campaign_id: CampaignId) -> PerformanceOut:
    """A campaign's figures: sent, delivered, bounced, clicks per link, unsubscribes, then opens."""
    found = _campaign(ctx, campaign_id)
    rows = (
        Click.objects.filter(send__campaign=found)
        .values("url")
        .annotate(n=Count("id"))
        .order_by("-n", "url")[:20]
    )
    return PerformanceOut(
        campaign=CampaignSummary.of(found),
        figures=FiguresOut.of(selectors.figures(found)),
        links=[LinkClicksOut(url=row["url"], clicks=row["n"]) for row in rows],
    )


class LandingSummary(Out):
    id: int
    name: str
    url: str = Field(description="Its public address, once published")
    status: str
    visibility: str
    visits: int
    conversions: int

    @classmethod
    def of(cls, page: LandingPage) -> "LandingSummary":
        return cls.of_record(page, url=links.page("marketing:landing", slug=page.slug))


class RecentOut(Out):
    campaign: CampaignSummary
    figures: FiguresOut


class DashboardOut(Out):
    campaigns: dict[str, int] = Field(description="By status")
    segments: int
    consent: dict[str, int] = Field(description="Contacts by consent status")
    suppressed: dict[str, int] = Field(description="Addresses on the suppression list by reason")
    postal_address_set: bool
    double_opt_in: bool
    frequency_cap: str
    quiet_hours: str
    recent: list[RecentOut]
    landing_pages: list[LandingSummary] = Field(description="With visits and conversions")


@tool(
    "getMarketingDashboard",
    permission=MarketingPerm.VIEW,
    title="Get the marketing dashboard",
    read_only=True,
)
def get_marketing_dashboard(ctx: ToolContext) -> DashboardOut:
    """Marketing at a glance: campaigns by status with figures, segments, consent, suppression, rules."""
    found = selectors.dashboard(ctx.actor)
    settings = MarketingSettings.current()
    return DashboardOut(
        campaigns=found["campaigns"],
        segments=found["segments"],
        consent=found["consent"],
        suppressed=found["suppressed"],
        postal_address_set=bool(settings.postal_address.strip()),
        double_opt_in=settings.double_opt_in,
        frequency_cap=_("{cap} in {days} days").format(
            cap=settings.frequency_cap, days=settings.frequency_days
        ),
        quiet_hours=_("{start}:00 to {end}:00 recipient's time").format(
            start=settings.quiet_start, end=settings.quiet_end
        ),
        recent=[
            RecentOut(
                campaign=CampaignSummary.of(campaign), figures=FiguresOut.of(selectors.figures(campaign))
            )
            for campaign in found["recent"]
        ],
        landing_pages=[LandingSummary.of(page) for page in selectors.landing_pages(ctx.actor)],
    )
