"""briefDealPipeline: the pipeline summed up in a few lines, computed from the deals (no model
phrases it yet, so nothing in it is made up)."""

from datetime import timedelta
from typing import Annotated, Literal

from django.utils import timezone
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Out
from apps.deals import selectors
from apps.deals.models import Deal
from apps.deals.permissions import DealsPerm
from apps.deals.tools.pipelines import BoardOut, board_out


class BriefOut(Out):
    source: Literal["computed"] = Field(description="computed from the records")
    brief: list[str] = Field(description="Lines to read out")
    pipelines: list[BoardOut]
    follow_ups_due: int
    overdue: int
    closing_soon: int = Field(description="Open, expected to close within 14 days")


@tool("briefDealPipeline", permission=DealsPerm.VIEW, title="Brief me on the pipeline", read_only=True)
def brief_deal_pipeline(
    ctx: ToolContext, *, pipeline_id: Annotated[int | None, Field(ge=1, description="Default: all")] = None
) -> BriefOut:
    """A short brief of the pipeline: deals, value by stage, forecast, rotting deals, follow-ups due."""
    boards = selectors.boards(actor=ctx.actor, pipeline_id=pipeline_id)
    due = selectors.follow_ups_due(actor=ctx.actor)
    if pipeline_id:
        due = [(a, late) for a, late in due if a.deal.pipeline_id == pipeline_id]
    overdue = sum(1 for _activity, late in due if late)
    soon = Deal.objects.restrict(ctx.actor).filter(
        status=Deal.Status.OPEN,
        expected_close__lte=timezone.localdate() + timedelta(days=14),
        pipeline__in=[b.pipeline for b in boards],
    )
    lines = []
    for board in boards:
        money = board.pipeline.currency
        lines.append(
            f"{board.pipeline.name}: {board.open} open deal(s) worth {board.value} {money}, "
            f"forecast {board.weighted} {money}; won {board.won} ({board.won_value} {money}) and "
            f"lost {board.lost} in 30 days."
        )
        stages = [f"{c.stage.name} {len(c.deals)} ({c.value} {money})" for c in board.columns if c.deals]
        if stages:
            lines.append("By stage: " + "; ".join(stages) + ".")
        if board.rotting:
            names = ", ".join(f"{d.title} ({d.pk})" for d in board.rotting[:5])
            lines.append(f"Rotting: {len(board.rotting)} deal(s) idle past their stage's limit: {names}.")
    if not boards:
        lines.append("No pipeline yet: createPipeline makes one.")
    lines.append(f"Follow-ups due today or overdue: {len(due)} ({overdue} overdue).")
    closing = soon.count()
    if closing:
        lines.append(f"Open deals expected to close within 14 days: {closing}.")
    return BriefOut(
        source="computed",
        brief=lines,
        pipelines=[board_out(b, per_stage=5) for b in boards],
        follow_ups_due=len(due),
        overdue=overdue,
        closing_soon=closing,
    )
