"""Scheduled tasks: list them, read their history, enable, disable or delete them."""

from typing import Annotated

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, paginate
from apps.tasks import schedules
from apps.tasks.models import ScheduledTask
from apps.tasks.permissions import TasksPerm
from apps.tasks.shapes import ScheduledRunOut, ScheduleOut
from apps.tasks.tools.common import ScheduleId


def _schedule(ctx: ToolContext, scheduled_task_id: int) -> ScheduledTask:
    return ScheduledTask.objects.select_related("task", "created_by").fetch(ctx.actor, scheduled_task_id)


@tool("listScheduledTasks", permission=TasksPerm.VIEW, title="List scheduled tasks", read_only=True)
def list_scheduled_tasks(
    ctx: ToolContext,
    *,
    enabled: Annotated[bool | None, Field(description="Only enabled (true) or disabled ones")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[ScheduleOut]:
    """List the scheduled tasks you may see, next due first. Their past runs: getScheduledTaskHistory."""
    rows = ScheduledTask.objects.restrict(ctx.actor).select_related("task", "created_by")
    if enabled is not None:
        rows = rows.filter(enabled=enabled)
    return paginate(rows.order_by("next_run_at", "id"), limit=limit, offset=offset, item=ScheduleOut.of)


@tool("getScheduledTask", permission=TasksPerm.VIEW, title="Get a scheduled task", read_only=True)
def get_scheduled_task(ctx: ToolContext, *, scheduled_task_id: ScheduleId) -> ScheduleOut:
    """Get one scheduled task: its task, rule, time zone, whether it is enabled, next and last runs."""
    return ScheduleOut.of(_schedule(ctx, scheduled_task_id))


@tool(
    "getScheduledTaskHistory",
    permission=TasksPerm.VIEW,
    title="Get a scheduled task's history",
    read_only=True,
)
def get_scheduled_task_history(
    ctx: ToolContext, *, scheduled_task_id: ScheduleId, limit: Limit = 25, offset: Offset = 0
) -> Page[ScheduledRunOut]:
    """List a scheduled task's runs, newest first: when, the task each started, or why it failed."""
    return paginate(
        _schedule(ctx, scheduled_task_id).runs.select_related("task").order_by("-due_at", "-id"),
        limit=limit,
        offset=offset,
        item=ScheduledRunOut.of_record,
    )


@tool("enableScheduledTask", permission=TasksPerm.SCHEDULE, title="Enable a scheduled task", idempotent=True)
def enable_scheduled_task(ctx: ToolContext, *, scheduled_task_id: ScheduleId) -> ScheduleOut:
    """Enable a scheduled task again, from its next occurrence (missed ones are not caught up)."""
    return _enable(ctx, scheduled_task_id, enabled=True)


@tool(
    "disableScheduledTask", permission=TasksPerm.SCHEDULE, title="Disable a scheduled task", idempotent=True
)
def disable_scheduled_task(ctx: ToolContext, *, scheduled_task_id: ScheduleId) -> ScheduleOut:
    """Stop a scheduled task, keeping its rule and history; enableScheduledTask starts it again."""
    return _enable(ctx, scheduled_task_id, enabled=False)


def _enable(ctx: ToolContext, scheduled_task_id: int, *, enabled: bool) -> ScheduleOut:
    schedule = _schedule(ctx, scheduled_task_id)
    return ScheduleOut.of(schedules.schedule_enable(actor=ctx.actor, schedule=schedule, enabled=enabled))


class DeletedScheduleOut(Out):
    id: int
    task: int
    message: str


@tool(
    "deleteScheduledTask",
    permission=TasksPerm.DELETE,
    title="Delete a scheduled task",
    markers=Marker.DESTRUCTIVE,
)
def delete_scheduled_task(ctx: ToolContext, *, scheduled_task_id: ScheduleId) -> DeletedScheduleOut:
    """Delete a scheduled task and its history for good. To pause it: disableScheduledTask."""
    schedule = _schedule(ctx, scheduled_task_id)
    task_id = schedule.task_id
    schedules.schedule_delete(actor=ctx.actor, schedule=schedule)
    return DeletedScheduleOut(
        id=scheduled_task_id,
        task=task_id,
        message=f"Scheduled task {scheduled_task_id} deleted; task {task_id} stays.",
    )
