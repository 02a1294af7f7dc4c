"""Deal finders: saved ideal-customer searches over contacts, group accounts and the enrichment
provider (apps.deals.finding). Creating and running one may spend the provider's credits: GATED."""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, id_field, paginate
from apps.deals import finding
from apps.deals.models import DealFinder, FoundLead
from apps.deals.permissions import DealsPerm

FinderId = Annotated[int, id_field("listDealFinders")]
Words = Annotated[list[str], Field(max_length=20)]


class LeadOut(Out):
    id: int
    source: str
    status: str = Field(description="new, existing (contactId) or dismissed")
    name: str
    email: str
    company: str
    domain: str
    title: str
    country: str
    industry: str
    contact_id: int | None
    group_account_id: int | None
    matched: list[str]
    score: int


class FinderOut(Out):
    id: int
    name: str
    criteria: dict[str, list[str]]
    sources: list[str]
    schedule: str
    status: str
    next_run_at: datetime | None
    last_run_at: datetime | None
    problem: str
    credits_used: int
    leads: int


class RunOut(Out):
    found: int
    new: int
    existing: int
    credits: int


class FinderDetail(FinderOut):
    last_run: RunOut | None
    top_leads: Page[LeadOut]


def _finder(finder: DealFinder) -> FinderOut:
    return FinderOut.of_record(finder, leads=finder.leads.count())


def _lead(lead: FoundLead) -> LeadOut:
    return LeadOut.of_record(lead)


@tool("createDealFinder", permission=DealsPerm.FINDERS, title="Create a deal finder", markers=Marker.GATED)
def create_deal_finder(
    ctx: ToolContext,
    *,
    name: Annotated[str, Field(min_length=1, max_length=120, description="Unique")],
    keywords: Annotated[Words, Field(description="Any of these words")] = [],  # noqa: B006
    industries: Annotated[Words, Field(description="Software, logistics...")] = [],  # noqa: B006
    countries: Annotated[Words, Field(description="ISO codes: DE, US")] = [],  # noqa: B006
    titles: Annotated[Words, Field(description="Job titles")] = [],  # noqa: B006
    tags: Annotated[Words, Field(description="Contact or account tags")] = [],  # noqa: B006
    sources: Annotated[
        list[Literal["contacts", "accounts", "provider"]],
        Field(min_length=1, max_length=3, description="provider spends credits"),
    ] = ["contacts", "accounts"],  # noqa: B006
    schedule: Annotated[
        Literal["manual", "daily", "weekly"], Field(description="When it runs again")
    ] = "daily",
) -> FinderDetail:
    """Save an ideal-customer search that finds leads on a schedule; runs once now."""
    finder = finding.finder_create(
        actor=ctx.actor,
        name=name,
        criteria={
            "keywords": keywords,
            "industries": industries,
            "countries": countries,
            "titles": titles,
            "tags": tags,
        },
        sources=list(sources),
        schedule=schedule,
    )
    run = finding.finder_run(finder=finder, actor=ctx.actor)
    return _detail(finder, run, limit=10, offset=0)


def _detail(finder: DealFinder, run: finding.RunResult | None, *, limit: int, offset: int) -> FinderDetail:
    leads = paginate(
        finder.leads.exclude(status=FoundLead.Status.DISMISSED), limit=limit, offset=offset, item=_lead
    )
    return FinderDetail.of_record(
        finder,
        leads=leads.total,
        last_run=RunOut.model_validate(run.__dict__) if run else None,
        top_leads=leads,
    )


@tool(
    "controlDealFinder",
    permission=DealsPerm.FINDERS,
    title="Run, pause or stop a deal finder",
    markers=Marker.GATED,
)
def control_deal_finder(
    ctx: ToolContext,
    *,
    finder_id: FinderId,
    action: Annotated[Literal["run", "pause", "resume", "stop"], Field(description="stop is final")],
    dismiss_lead_ids: Annotated[
        list[Annotated[int, Field(ge=1)]], Field(max_length=100, description="Leads to hide")
    ] = [],  # noqa: B006
) -> FinderDetail:
    """Run a deal finder now, pause, resume or stop it, and dismiss leads."""
    finder = DealFinder.objects.select_related("owner").fetch(ctx.actor, finder_id, "change")
    if dismiss_lead_ids:
        finder.leads.filter(pk__in=dismiss_lead_ids).update(status=FoundLead.Status.DISMISSED)
    run = finding.finder_control(actor=ctx.actor, finder=finder, action=action)
    return _detail(finder, run, limit=10, offset=0)


@tool("getDealFinder", permission=DealsPerm.VIEW, title="Get a deal finder and its leads", read_only=True)
def get_deal_finder(
    ctx: ToolContext,
    *,
    finder_id: FinderId,
    limit: Limit = 25,
    offset: Offset = 0,
) -> FinderDetail:
    """Get a deal finder's criteria, state and found leads, best match first."""
    finder = DealFinder.objects.fetch(ctx.actor, finder_id)
    return _detail(finder, None, limit=limit, offset=offset)


@tool("listDealFinders", permission=DealsPerm.VIEW, title="List deal finders", read_only=True)
def list_deal_finders(
    ctx: ToolContext,
    *,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[FinderOut]:
    """List the deal finders (prospecting searches) you may see; getDealFinder shows leads."""
    rows = DealFinder.objects.restrict(ctx.actor)
    return paginate(rows.order_by("name", "id"), limit=limit, offset=offset, item=_finder)
