"""A deal's contacts with the customer and its follow-ups, due in their owners' time zones."""

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Out
from apps.core import clean
from apps.deals import selectors, services
from apps.deals.permissions import DealsPerm
from apps.deals.shapes import ActivityOut, DealId, DealSummary

Channel = Annotated[
    Literal["call", "email", "meeting", "message", "visit", "other"], Field(description="How")
]


class LoggedOut(Out):
    contact: ActivityOut
    follow_up_done: ActivityOut | None


@tool("logDealContact", permission=DealsPerm.MANAGE, title="Log a contact on a deal")
def log_deal_contact(
    ctx: ToolContext,
    *,
    deal_id: DealId,
    summary: Annotated[str, Field(min_length=1, max_length=1000, description="What was said")],
    channel: Channel = "call",
    outcome: Annotated[str, Field(max_length=300, description="e.g. sent pricing")] = "",
    happened_at: Annotated[datetime | None, Field(description="Default now; no offset: your zone")] = None,
    follow_up_id: Annotated[int | None, Field(ge=1, description="Follow-up this completes")] = None,
) -> LoggedOut:
    """Record a call, e-mail or meeting held with the customer of a deal (it stops it rotting)."""
    activity, done = services.contact_log(
        actor=ctx.actor,
        deal_id=deal_id,
        channel=channel,
        summary=summary,
        outcome=outcome,
        happened_at=happened_at,
        follow_up_id=follow_up_id,
    )
    return LoggedOut(contact=ActivityOut.of(activity), follow_up_done=ActivityOut.of(done) if done else None)


@tool("scheduleDealFollowUp", permission=DealsPerm.MANAGE, title="Schedule a deal follow-up")
def schedule_deal_follow_up(
    ctx: ToolContext,
    *,
    deal_id: DealId,
    due: Annotated[date | datetime, Field(description="Day or time in the owner's zone")],
    summary: Annotated[str, Field(min_length=1, max_length=1000, description="What to do")],
    channel: Channel = "call",
    owner_email: Annotated[str | None, Field(max_length=254, description="Default: the deal's owner")] = None,
) -> ActivityOut:
    """Plan the next step on a deal, due on a day in its owner's time zone. Done: logDealContact."""
    follow_up = services.follow_up_schedule(
        actor=ctx.actor, deal_id=deal_id, due=due, summary=summary, channel=channel, owner_email=owner_email
    )
    return ActivityOut.of(follow_up)


class DueOut(Out):
    follow_up: ActivityOut
    overdue: bool
    deal: DealSummary


class DueListOut(Out):
    items: list[DueOut]


@tool("getDealFollowUpsDue", permission=DealsPerm.VIEW, title="Deal follow-ups due", read_only=True)
def get_deal_follow_ups_due(
    ctx: ToolContext,
    *,
    within_days: Annotated[int, Field(ge=0, le=90, description="0: today and overdue")] = 0,
    mine: Annotated[bool, Field(description="Only yours")] = False,
    owner_email: Annotated[str | None, Field(max_length=254, description="Only this person's")] = None,
) -> DueListOut:
    """Open follow-ups due by each owner's day in their time zone, overdue first."""
    owner_id = None
    if owner_email:
        owner_id = clean.person_by_email(owner_email).pk
    elif mine:
        owner_id = ctx.actor.pk
    found = selectors.follow_ups_due(actor=ctx.actor, within_days=within_days, owner_id=owner_id)
    return DueListOut(
        items=[
            DueOut(follow_up=ActivityOut.of(a), overdue=overdue, deal=DealSummary.of(a.deal))
            for a, overdue in found
        ]
    )
