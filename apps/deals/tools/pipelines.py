"""Pipelines and their stages: create, manage, and the board (getPipelineOverview)."""

from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import EntityId, In, Out
from apps.deals import selectors, services
from apps.deals.permissions import DealsPerm
from apps.deals.shapes import Amount, DealSummary, PipelineId, PipelineOut, StageOut

Currency = Annotated[str, Field(min_length=3, max_length=3, description="ISO 4217, reporting")]


class StageIn(In):
    name: Annotated[str, Field(max_length=80)] = ""
    probability: Annotated[int, Field(ge=0, le=100, description="Win %")] = 0
    rotting_days: Annotated[int | None, Field(ge=1, le=3650, description="Idle days; null: never")] = None


@tool("createPipeline", permission=DealsPerm.PIPELINES, title="Create a sales pipeline")
def create_pipeline(
    ctx: ToolContext,
    *,
    name: Annotated[str, Field(min_length=1, max_length=120, description="Unique")],
    stages: Annotated[list[StageIn], Field(min_length=1, max_length=20, description="In order")],
    currency: Currency = "EUR",
    description: Annotated[str, Field(max_length=500, description="What it is for")] = "",
) -> PipelineOut:
    """Make a sales pipeline: ordered stages with win % and rotting days. Change it: managePipeline."""
    pipeline = services.pipeline_create(
        actor=ctx.actor,
        name=name,
        stages=[stage.model_dump() for stage in stages],
        description=description,
        currency=currency,
    )
    return PipelineOut.of_record(pipeline)


class ManagedOut(Out):
    pipeline: PipelineOut
    message: str


@tool("managePipeline", permission=DealsPerm.PIPELINES, title="Manage a sales pipeline")
def manage_pipeline(
    ctx: ToolContext,
    *,
    pipeline_id: PipelineId,
    action: Annotated[
        Literal["rename", "add_stage", "update_stage", "remove_stage", "reorder", "archive", "restore"],
        Field(description="Arguments name their actions"),
    ],
    name: Annotated[str, Field(max_length=120, description="rename")] = "",
    description: Annotated[str | None, Field(max_length=500, description="rename")] = None,
    stage: Annotated[StageIn | None, Field(description="add_stage, update_stage")] = None,
    stage_id: Annotated[int | None, Field(ge=1, description="update_stage, remove_stage")] = None,
    move_to_stage_id: Annotated[int | None, Field(ge=1, description="remove_stage: deals go to")] = None,
    stage_ids: Annotated[list[EntityId] | None, Field(max_length=20, description="reorder: all")] = None,
) -> ManagedOut:
    """Rename or archive a pipeline; add, change, remove or reorder its stages."""
    pipeline, message = services.pipeline_manage(
        actor=ctx.actor,
        pipeline_id=pipeline_id,
        action=action,
        name=name,
        description=description,
        stage=stage.model_dump(exclude_unset=True) if stage else None,
        stage_id=stage_id,
        move_to_stage_id=move_to_stage_id,
        stage_ids=stage_ids,
    )
    return ManagedOut(pipeline=PipelineOut.of_record(pipeline), message=message)


class ColumnOut(Out):
    stage: StageOut
    count: int
    value: Amount
    weighted: Amount
    deals: list[DealSummary] = Field(description="Largest first, at most 20")


class BoardOut(Out):
    id: int
    name: str
    currency: str
    open: int
    value: Amount
    weighted: Amount = Field(description="Forecast: value x win %")
    won: int = Field(description="In 30 days")
    lost: int = Field(description="In 30 days")
    rotting: list[DealSummary]
    stages: list[ColumnOut]


class OverviewOut(Out):
    pipelines: list[BoardOut]


def board_out(board: selectors.Board, *, per_stage: int = 20) -> BoardOut:
    return BoardOut(
        id=board.pipeline.pk,
        name=board.pipeline.name,
        currency=board.pipeline.currency,
        open=board.open,
        value=str(board.value),
        weighted=str(board.weighted),
        won=board.won,
        lost=board.lost,
        rotting=[DealSummary.of(deal) for deal in board.rotting[:20]],
        stages=[
            ColumnOut(
                stage=StageOut.of_record(column.stage),
                count=len(column.deals),
                value=str(column.value),
                weighted=str(column.weighted),
                deals=[DealSummary.of(deal) for deal in column.deals[:per_stage]],
            )
            for column in board.columns
        ],
    )


@tool("getPipelineOverview", permission=DealsPerm.VIEW, title="Sales pipeline overview", read_only=True)
def get_pipeline_overview(
    ctx: ToolContext, *, pipeline_id: Annotated[int | None, Field(ge=1, description="Default: all")] = None
) -> OverviewOut:
    """The board: each pipeline's stages (ids, win %) with open deals, value, forecast, rotting deals."""
    return OverviewOut(
        pipelines=[board_out(b) for b in selectors.boards(actor=ctx.actor, pipeline_id=pipeline_id)]
    )
