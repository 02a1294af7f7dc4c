"""Marketing's figures over a period and the advice computed from them (fixed rules, no model)."""

from datetime import datetime
from typing import Annotated, Any

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Out
from apps.core.errors import invalid
from apps.marketing import analytics
from apps.marketing.models import MarketingPlan
from apps.marketing.permissions import MarketingPerm
from apps.marketing.tools.plans import PlanOut


class RowOut(Out):
    kind: str = Field(description="campaign or sequence")
    id: int
    name: str
    status: str
    sent: int
    delivered: int
    bounced: int
    clicks: int
    unique_clicks: int
    click_rate: float
    unsubscribes: int
    conversions: int | None = Field(
        description="Campaigns: forms sent from landing pages; sequences: goal reached"
    )
    opens: int = Field(description="Unreliable: Apple Mail Privacy Protection opens every message")


class TotalsOut(Out):
    sent: int
    delivered: int
    bounced: int
    clicks: int
    unique_clicks: int
    unsubscribes: int
    conversions: int
    opens: int


class AnalyticsOut(Out):
    since: datetime
    until: datetime
    totals: TotalsOut
    campaigns: list[RowOut]
    sequences: list[RowOut]
    plans: list[PlanOut] = Field(description="Plans whose period overlaps")
    notes: list[str]


def _row(row: analytics.Row) -> RowOut:
    return RowOut(
        kind=row.kind,
        id=row.id,
        name=row.name,
        status=row.status,
        sent=row.sent,
        delivered=row.delivered,
        bounced=row.bounced,
        clicks=row.clicks,
        unique_clicks=row.unique_clicks,
        click_rate=row.click_rate,
        unsubscribes=row.unsubscribes,
        conversions=row.conversions,
        opens=row.opens,
    )


@tool("getMarketingAnalytics", permission=MarketingPerm.VIEW, title="Get marketing analytics", read_only=True)
def get_marketing_analytics(
    ctx: ToolContext,
    *,
    since: Annotated[datetime, Field(description="Default: 30 days ago")] | None = None,
    until: Annotated[datetime, Field(description="Default: now")] | None = None,
) -> AnalyticsOut:
    """Marketing results over a period per campaign and e-mail sequence, with the period's plans.
    Sent, delivered, bounced, clicks, unsubscribes, conversions; opens last (unreliable)."""
    if since and until and until <= since:
        raise invalid("until", _("must be after since"))
    found = analytics.analytics(ctx.actor, since=since, until=until)
    names = (
        "sent",
        "delivered",
        "bounced",
        "clicks",
        "unique_clicks",
        "unsubscribes",
        "conversions",
        "opens",
    )
    plans = (
        MarketingPlan.objects.restrict(ctx.actor)
        .exclude(ends_on__lt=found.since.date())
        .exclude(starts_on__gt=found.until.date())
        .select_related("owner")[:20]
    )
    return AnalyticsOut(
        since=found.since,
        until=found.until,
        totals=TotalsOut(**{name: found.total(name) for name in names}),
        campaigns=[_row(row) for row in found.rows if row.kind == "campaign"],
        sequences=[_row(row) for row in found.rows if row.kind == "sequence"],
        plans=[PlanOut.of(plan, ctx.actor) for plan in plans],
        notes=[
            _("Clicks lead: opens are unreliable since Apple Mail Privacy Protection loads every pixel."),
            _("Conversions are sequence contacts who reached its goal (a lifecycle stage)."),
            _("Campaign figures are whole campaigns that sent in the period; sequences count its messages."),
        ],
    )


class AdviceOut(Out):
    kind: str
    title: str
    why: str
    next_tool: str = Field(description="The tool that acts on it")
    record_id: int | None
    figures: dict[str, Any]


def _advice(item: analytics.Advice) -> AdviceOut:
    return AdviceOut(
        kind=item.kind,
        title=item.title,
        why=item.why,
        next_tool=item.next_tool,
        record_id=item.record_id,
        figures=item.figures,
    )


class AdviceListOut(Out):
    items: list[AdviceOut]
    rules: str


@tool(
    "getMarketingRecommendations",
    permission=MarketingPerm.VIEW,
    title="Get marketing recommendations",
    read_only=True,
)
def get_marketing_recommendations(ctx: ToolContext) -> AdviceListOut:
    """What to fix or do next in marketing, from your own figures. By fixed rules, each with why:
    high unsubscribes, few clicks, idle sequences, best send hour. New campaigns: listCampaignSuggestions."""
    return AdviceListOut(
        items=[_advice(item) for item in analytics.recommendations(ctx.actor)],
        rules=_("Last 90 days; unsubscribes above 2%, click rate below 1% (20 messages or more)."),
    )


@tool(
    "listCampaignSuggestions",
    permission=MarketingPerm.VIEW,
    title="List campaign suggestions",
    read_only=True,
)
def list_campaign_suggestions(
    ctx: ToolContext, *, limit: Annotated[int, Field(ge=1, le=20, description="At most this many")] = 10
) -> AdviceListOut:
    """Ideas for new campaigns from your own figures, each with why. Segments never mailed, follow-ups
    to who clicked, who finished a sequence without its goal. Fixes: getMarketingRecommendations."""
    return AdviceListOut(
        items=[_advice(item) for item in analytics.campaign_suggestions(ctx.actor, limit=limit)],
        rules=_("Reachable contacts counted as a launch would (consent, suppression, cap)."),
    )
