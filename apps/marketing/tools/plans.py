"""Marketing plans (goals, channels, budget, period, linked campaigns) and a strategy the model
proposes. Thin doors onto apps.marketing.plans."""

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Changes, In, Out, PersonRef, id_field
from apps.core.records import Action
from apps.marketing import analytics, plans
from apps.marketing.models import MarketingPlan
from apps.marketing.permissions import MarketingPerm

PlanId = Annotated[int, id_field("getMarketingAnalytics")]


def _plan(ctx: ToolContext, plan_id: int, action: Action = "view") -> MarketingPlan:
    found: MarketingPlan = MarketingPlan.objects.select_related("owner").fetch(ctx.actor, plan_id, action)
    return found


class Goal(In):
    text: Annotated[str, Field(min_length=1, max_length=300)]
    metric: Annotated[str, Field(max_length=60, description="clicks, signups, conversions…")] = ""
    target: Annotated[float, Field(ge=0)] | None = None


Channel = Literal["email", "sequences", "social", "blog", "landing_pages", "ads", "events", "partners", "seo"]


class PlanFields(Changes):
    name: Annotated[str, Field(min_length=1, max_length=120)] | None = None
    summary: Annotated[str, Field(max_length=10_000)] | None = None
    goals: Annotated[list[Goal], Field(max_length=20)] | None = None
    channels: list[Channel] | None = None
    budget: Annotated[float, Field(ge=0, lt=1e12, description="Money to spend, in currency")] | None = None
    currency: Annotated[str, Field(min_length=3, max_length=3, description="ISO 4217")] | None = None
    starts_on: date | None = None
    ends_on: date | None = None
    campaign_ids: Annotated[list[int], Field(max_length=100, description="All linked campaigns")] | None = (
        None
    )
    visibility: Literal["workspace", "private"] | None = None

    def fields(self, *, required: bool = False) -> dict[str, Any]:
        given = self.given(required=required)
        if given.get("goals") is not None:
            given["goals"] = [goal.model_dump() for goal in given["goals"]]
        return given


class GoalOut(Out):
    text: str
    metric: str = ""
    target: float | None = None


class CampaignRef(Out):
    id: int
    name: str
    status: str


class PlanOut(Out):
    id: int
    name: str
    summary: str
    goals: list[GoalOut]
    channels: list[str]
    budget: Decimal | None
    currency: str
    starts_on: date | None
    ends_on: date | None
    campaigns: list[CampaignRef]
    visibility: str
    owner: PersonRef | None
    ai_generated: bool
    updated_at: datetime

    @classmethod
    def of(cls, plan: MarketingPlan, actor: Any) -> "PlanOut":
        linked = plan.campaigns.restrict(actor).order_by("-created_at", "-id")  # never another's private one
        return cls.of_record(
            plan,
            goals=[GoalOut(**goal) for goal in plan.goals],
            campaigns=[CampaignRef(id=c.pk, name=c.name, status=c.status) for c in linked],
        )


@tool("createMarketingPlan", permission=MarketingPerm.EDIT, title="Create a marketing plan")
def create_marketing_plan(
    ctx: ToolContext, *, plan: Annotated[PlanFields, Field(description="name is required")]
) -> PlanOut:
    """Write a marketing plan: goals, channels, budget, period and its campaigns."""
    made = plans.plan_create(actor=ctx.actor, fields=plan.fields())
    return PlanOut.of(_plan(ctx, made.pk), ctx.actor)


@tool("getMarketingPlan", permission=MarketingPerm.VIEW, title="Get a marketing plan", read_only=True)
def get_marketing_plan(ctx: ToolContext, *, plan_id: PlanId) -> PlanOut:
    """One marketing plan with its goals, channels, budget, period and linked campaigns."""
    return PlanOut.of(_plan(ctx, plan_id), ctx.actor)


@tool("updateMarketingPlan", permission=MarketingPerm.EDIT, title="Update a marketing plan", idempotent=True)
def update_marketing_plan(
    ctx: ToolContext, *, plan_id: PlanId, changes: Annotated[PlanFields, Field(description="Only these")]
) -> PlanOut:
    """Change a plan's goals, channels, budget, period or linked campaigns."""
    found = _plan(ctx, plan_id, "change")
    plans.plan_update(actor=ctx.actor, plan=found, fields=changes.fields(required=True))
    return PlanOut.of(_plan(ctx, plan_id), ctx.actor)


class StrategyOut(Out):
    proposed: dict[str, Any] = Field(description="name, summary, goals, channels, budgetSplit")
    saved_plan: PlanOut | None = Field(description="Only with save: true")
    model: str
    cost_micro_usd: int


@tool(
    "generateMarketingStrategy",
    permission=MarketingPerm.EDIT,
    title="Generate a marketing strategy",
    open_world=True,
)
def generate_marketing_strategy(
    ctx: ToolContext,
    *,
    brief: Annotated[str, Field(min_length=3, max_length=2000, description="Business, audience, aims")],
    starts_on: Annotated[date, Field(description="The plan's period")] | None = None,
    ends_on: Annotated[date, Field(description="Its last day")] | None = None,
    budget: Annotated[float, Field(ge=0, lt=1e12, description="Money to spend, in currency")] | None = None,
    currency: Annotated[str, Field(min_length=3, max_length=3, description="ISO 4217, with budget")]
    | None = None,
    save: bool = Field(False, description="true: also write it as a plan"),
) -> StrategyOut:
    """Propose a marketing plan from a brief and the workspace's own figures; writes nothing unless
    save. Spends credits."""
    fields, proposed = plans.strategy(
        api_key_id=ctx.principal.api_key_id,
        brief=brief.strip(),
        starts_on=starts_on,
        ends_on=ends_on,
        budget=budget,
        facts=analytics.facts(ctx.actor),
    )
    saved = None
    if save:
        split = fields.pop("budget_split")
        made = plans.plan_create(
            actor=ctx.actor, fields={**fields, "budget": budget, "currency": currency or ""}
        )
        MarketingPlan.objects.filter(pk=made.pk).update(ai_generated=True)
        saved = PlanOut.of(_plan(ctx, made.pk), ctx.actor)
        fields["budget_split"] = split
    shown = {
        "name": fields["name"],
        "summary": fields["summary"],
        "goals": fields["goals"],
        "channels": fields["channels"],
        "budgetSplit": fields["budget_split"],
    }
    return StrategyOut(
        proposed=shown, saved_plan=saved, model=proposed.model, cost_micro_usd=proposed.cost_micro_usd
    )
