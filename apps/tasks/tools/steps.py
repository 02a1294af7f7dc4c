"""A task's steps and its board: cards, columns, checklists and linked records."""

from datetime import datetime
from typing import Annotated

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Changes, EntityId, EntityType, Out
from apps.core import kinds
from apps.core.errors import invalid
from apps.tasks import selectors, services
from apps.tasks.models import Task
from apps.tasks.permissions import TasksPerm
from apps.tasks.shapes import ColumnOut, StepDetailOut, StepSummary, board_of, counted_steps, waiting_for
from apps.tasks.tools.common import (
    ChecklistText,
    Email,
    Label,
    StepFileIn,
    StepId,
    StepIn,
    StepKind,
    TaskId,
    step_fields,
    step_of,
    task_of,
)


class BoardOut(Out):
    task_id: int
    title: str
    status: str
    waiting_for: str
    steps: list[StepSummary]
    columns: list[ColumnOut]


def _board(task: Task) -> BoardOut:
    task.refresh_from_db()
    steps = counted_steps(task)
    return BoardOut.of_record(
        task,
        task_id=task.pk,
        waiting_for=waiting_for(task, steps),
        steps=[StepSummary.of(step) for step in steps],
        columns=board_of(task, steps),
    )


@tool("getTaskSteps", permission=TasksPerm.VIEW, title="Get a task's steps", read_only=True)
def get_task_steps(ctx: ToolContext, *, task_id: TaskId) -> BoardOut:
    """Get a task's steps in order and its board of columns. One step in full: getTaskStepDetail."""
    return _board(task_of(ctx, task_id))


@tool("getTaskStepDetail", permission=TasksPerm.VIEW, title="Get a step in detail", read_only=True)
def get_task_step_detail(ctx: ToolContext, *, task_id: TaskId, step_id: StepId) -> StepDetailOut:
    """Get one step in full: instructions, card, checklist, linked records, result and history."""
    _task, step = step_of(ctx, task_id, step_id)
    return StepDetailOut.of(step, ctx.actor)


@tool("addTaskStep", permission=TasksPerm.EDIT, title="Add a step to a task")
def add_task_step(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    step: Annotated[StepIn, Field(description="The new step")],
    position: Annotated[int | None, Field(ge=1, le=100, description="1 for first (default: last)")] = None,
) -> BoardOut:
    """Add a step to a task or template. It starts at once if the task runs and waits on nothing."""
    task = task_of(ctx, task_id)
    services.step_add(actor=ctx.actor, task=task, fields=step_fields(step), position=position)
    return _board(task)


@tool("removeTaskStep", permission=TasksPerm.EDIT, title="Remove a step from a task")
def remove_task_step(ctx: ToolContext, *, task_id: TaskId, step_id: StepId) -> BoardOut:
    """Remove a step with its card, checklist and links; its past events stay in the history."""
    task, step = step_of(ctx, task_id, step_id)
    services.step_remove(actor=ctx.actor, task=task, step=step)
    return _board(task)


@tool("reorderTaskSteps", permission=TasksPerm.EDIT, title="Reorder a task's steps", idempotent=True)
def reorder_task_steps(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    step_ids: Annotated[
        list[EntityId], Field(min_length=1, max_length=100, description="Every step once, in the new order")
    ],
) -> BoardOut:
    """Put a task's steps in a new order; a run follows it for the steps not started yet."""
    task = task_of(ctx, task_id)
    services.steps_reorder(actor=ctx.actor, task=task, step_ids=step_ids)
    return _board(task)


@tool("moveTaskStepColumn", permission=TasksPerm.EDIT, title="Move a step to another column", idempotent=True)
def move_task_step_column(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    step_id: StepId,
    column: Annotated[str, Field(min_length=1, max_length=60, description="Its name")],
) -> BoardOut:
    """Move a step's card to another column: the last one finishes the step, others reopen it."""
    task, step = step_of(ctx, task_id, step_id)
    services.step_move(actor=ctx.actor, task=task, step=step, column_name=column)
    return _board(task)


class CardChanges(Changes):
    title: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    instructions: Annotated[str, Field(max_length=10_000)] | None = None
    kind: StepKind | None = Field(None, description="Before the step starts")
    notes: Annotated[str, Field(max_length=10_000)] | None = None
    labels: Annotated[list[Label], Field(max_length=20)] | None = Field(None, description="Replaces them")
    due_at: datetime | None = None
    assignee_email: Email | None = None
    notify_emails: Annotated[list[Email], Field(max_length=50)] | None = None
    file: StepFileIn | None = None


class UpdatedStepOut(Out):
    step: StepDetailOut
    changed: list[str]


@tool("updateTaskStepCard", permission=TasksPerm.EDIT, title="Update a step's card", idempotent=True)
def update_task_step_card(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    step_id: StepId,
    changes: Annotated[CardChanges, Field(description="Only the fields to change; null clears one")],
) -> UpdatedStepOut:
    """Change a step's card. To move it: moveTaskStepColumn; its checklist: updateTaskStepChecklist."""
    task, step = step_of(ctx, task_id, step_id)
    step, changed = services.step_update_card(actor=ctx.actor, task=task, step=step, fields=changes.given())
    return UpdatedStepOut(step=StepDetailOut.of(step, ctx.actor), changed=changed)


ItemIds = Annotated[list[EntityId], Field(max_length=50, description="Item ids, from getTaskStepDetail")]


@tool(
    "updateTaskStepChecklist", permission=TasksPerm.EDIT, title="Update a step's checklist", idempotent=True
)
def update_task_step_checklist(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    step_id: StepId,
    add: Annotated[list[ChecklistText], Field(max_length=50, description="New items, at the end")] = [],  # noqa: B006
    check: ItemIds = [],  # noqa: B006
    uncheck: ItemIds = [],  # noqa: B006
    remove: ItemIds = [],  # noqa: B006
) -> StepDetailOut:
    """Add, tick, untick or remove a step's checklist items (this does not finish the step)."""
    task, step = step_of(ctx, task_id, step_id)
    if not (add or check or uncheck or remove):
        raise invalid("add", _("say what to change: add, check, uncheck or remove"))
    services.checklist_update(
        actor=ctx.actor, task=task, step=step, add=add, check=check, uncheck=uncheck, remove=remove
    )
    return StepDetailOut.of(selectors.step_get(task=task, step_id=step_id), ctx.actor)


@tool("linkEntityToTaskStep", permission=TasksPerm.EDIT, title="Link a record to a step", idempotent=True)
def link_entity_to_task_step(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    step_id: StepId,
    entity_type: EntityType,
    entity_id: Annotated[EntityId, Field(description="Of that kind")],
    remove: Annotated[bool, Field(description="Unlink it instead")] = False,
) -> StepDetailOut:
    """Link a record of any area (a contact, a task, ...) to a step, or unlink it."""
    task, step = step_of(ctx, task_id, step_id)
    if remove:
        # The record may be gone or hidden by now: unlinking needs only its kind and id.
        entity = kinds.Entity(kind=kinds.kind_named(entity_type), id=entity_id, title="", instance=None)
    else:
        entity = kinds.resolve(actor=ctx.actor, entity_type=entity_type, entity_id=entity_id)
    services.step_link(actor=ctx.actor, task=task, step=step, entity=entity, remove=remove)
    return StepDetailOut.of(selectors.step_get(task=task, step_id=step_id), ctx.actor)
