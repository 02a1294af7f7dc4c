"""Marketing plans: goals, channels, budget and period, with the campaigns that carry them out.
`strategy` asks the model backends for a proposed plan (generateMarketingStrategy), checked like a
person's, and written only when asked."""

import logging
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from apps.core import clean, records
from apps.core.actors import Actor
from apps.core.errors import AppError, invalid
from apps.marketing import proposals
from apps.marketing.errors import MarketingModelCallFailed
from apps.marketing.models import Campaign, MarketingPlan
from apps.marketing.permissions import MarketingPerm

logger = logging.getLogger(__name__)
CHANNELS = ("email", "sequences", "social", "blog", "landing_pages", "ads", "events", "partners", "seo")
PLAN_FIELDS = (
    "name",
    "summary",
    "goals",
    "channels",
    "budget",
    "currency",
    "starts_on",
    "ends_on",
    "visibility",
)
MAX_GOALS = 20


def checked_goals(raw: Any) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or len(raw) > MAX_GOALS:
        raise invalid("goals", _("must be a list of at most {n} goals"), n=MAX_GOALS)
    goals = []
    for index, goal in enumerate(raw):
        where = f"goals[{index}]"
        if not isinstance(goal, dict):
            raise invalid(where, _("must be an object with text, and metric and target if measured"))
        target = goal.get("target")
        if target is not None and (
            isinstance(target, bool) or not isinstance(target, int | float) or target < 0
        ):
            raise invalid(f"{where}.target", _("must be a number of zero or more"))
        goals.append(
            {
                "text": clean.text(goal.get("text"), field=f"{where}.text", limit=300, required=True),
                "metric": clean.text(goal.get("metric") or "", field=f"{where}.metric", limit=60),
                "target": target,
            }
        )
    return goals


def checked_channels(raw: Any) -> list[str]:
    if not isinstance(raw, list):
        raise invalid("channels", _("must be a list"))
    unknown = [str(name) for name in raw if name not in CHANNELS]
    if unknown:
        raise invalid(
            "channels",
            _("{names} is not a channel: {known}"),
            names=", ".join(unknown),
            known=", ".join(CHANNELS),
        )
    return list(dict.fromkeys(raw))


def _budget(value: Any) -> Decimal | None:
    if value is None:
        return None
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise invalid("budget", _("must be an amount")) from None
    if not amount.is_finite() or amount < 0 or amount >= Decimal("1e12"):
        raise invalid("budget", _("must be an amount of zero or more"))
    return amount.quantize(Decimal("0.01"))


def _apply(actor: Actor, plan: MarketingPlan, fields: dict[str, Any], creating: bool) -> None:
    if "name" in fields or creating:
        plan.name = records.unique_name(plan, fields.get("name"), what=_("a plan"), limit=120)
    if "summary" in fields:
        plan.summary = clean.long_text(fields["summary"] or "", field="summary", limit=10_000)
    if "goals" in fields:
        plan.goals = checked_goals(fields["goals"] or [])
    if "channels" in fields:
        plan.channels = checked_channels(fields["channels"] or [])
    if "budget" in fields:
        plan.budget = _budget(fields["budget"])
    if "currency" in fields:
        plan.currency = clean.currency(fields["currency"]) if fields["currency"] else ""
    for name in ("starts_on", "ends_on"):
        if name in fields:
            setattr(plan, name, fields[name])
    if plan.starts_on and plan.ends_on and plan.ends_on < plan.starts_on:
        raise invalid("endsOn", _("must not be before startsOn"))
    if plan.budget is not None and not plan.currency:
        raise invalid("currency", _("a budget needs its currency (ISO 4217, such as EUR)"))
    if "visibility" in fields:
        plan.visibility = fields["visibility"] or "workspace"


def _campaigns(actor: Actor, ids: list[int]) -> list[Campaign]:
    found = list(Campaign.objects.restrict(actor).filter(pk__in=ids))
    missing = sorted(set(ids) - {campaign.pk for campaign in found})
    if missing:
        raise invalid(
            "campaignIds", _("no campaign {id}; find them with searchMarketingCampaigns"), id=missing[0]
        )
    return found


def plan_create(*, actor: Actor, fields: dict[str, Any]) -> MarketingPlan:
    with transaction.atomic():
        plan = records.create(
            MarketingPlan,
            actor=actor,
            permission=MarketingPerm.EDIT,
            fields=fields,
            apply=_apply,
            owner=actor,
        )
        if fields.get("campaign_ids"):
            plan.campaigns.set(_campaigns(actor, fields["campaign_ids"]))
    return plan


def plan_update(*, actor: Actor, plan: MarketingPlan, fields: dict[str, Any]) -> list[str]:
    with transaction.atomic():
        changed = records.update(
            plan, actor=actor, permission=MarketingPerm.EDIT, fields=fields, apply=_apply, names=PLAN_FIELDS
        )
        if "campaign_ids" in fields:
            # The actor says which of the campaigns they see are linked: a colleague's private one,
            # which they were never shown, stays.
            unseen = plan.campaigns.exclude(pk__in=Campaign.objects.restrict(actor).values("pk"))
            plan.campaigns.set([*_campaigns(actor, fields["campaign_ids"] or []), *unseen])
            changed.append("campaigns")
    return changed


def strategy(
    *,
    api_key_id: int | None,
    brief: str,
    starts_on: date | None,
    ends_on: date | None,
    budget: Any,
    facts: dict[str, Any],
) -> tuple[dict[str, Any], proposals.Proposed]:
    """A plan the model proposes for the brief and the workspace's own figures, checked like a
    person's: fields ready for `plan_create` (nothing written here)."""
    proposed = proposals.ask(
        api_key_id=api_key_id,
        tool="generateMarketingStrategy",
        system=(
            "You are a marketing strategist for a small company. From the brief, period, budget and "
            "the company's own marketing figures, propose a plan as "
            '{"name": short title, "summary": the strategy in a few paragraphs, "goals": [{"text", '
            '"metric", "target": a number}], "channels": a list from ' + ", ".join(CHANNELS) + ", "
            '"budgetSplit": {channel: share of the budget from 0 to 1}}.'
        ),
        given={"brief": brief, "startsOn": starts_on, "endsOn": ends_on, "budget": budget, "figures": facts},
    )
    data = proposed.data
    try:
        fields: dict[str, Any] = {
            "name": clean.text(data.get("name"), field="name", limit=120, required=True),
            "summary": clean.long_text(data.get("summary") or "", field="summary", limit=10_000),
            "goals": checked_goals(data.get("goals") or []),
            "channels": [name for name in data.get("channels") or [] if name in CHANNELS],
            "starts_on": starts_on,
            "ends_on": ends_on,
        }
    except AppError as error:  # the model's answer is not a person's input: its fault, said so
        raise MarketingModelCallFailed(tool="generateMarketingStrategy", problem=error.message) from None
    split = data.get("budgetSplit")
    fields["budget_split"] = (
        {
            name: float(share)
            for name, share in split.items()
            if name in CHANNELS and isinstance(share, int | float)
        }
        if isinstance(split, dict)
        else {}
    )
    return fields, proposed
