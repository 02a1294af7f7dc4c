"""Running a task: start, pause, resume, steer, run again, skip a step."""

from typing import Annotated

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Out
from apps.tasks import runner, selectors
from apps.tasks.permissions import TasksPerm
from apps.tasks.shapes import TaskOut, TaskSummary
from apps.tasks.tools.common import StepId, TaskId, task_out


@tool("startTask", permission=TasksPerm.RUN, title="Start a task")
def start_task(ctx: ToolContext, *, task_id: TaskId) -> TaskOut:
    """Start a draft task: its steps run in order; the agent's steps need its agentKeyId."""
    task = selectors.task_for_change(actor=ctx.actor, task_id=task_id)
    runner.task_start(actor=ctx.actor, task=task)
    return task_out(ctx, task)


@tool("pauseTask", permission=TasksPerm.RUN, title="Pause a task", idempotent=True)
def pause_task(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    reason: Annotated[str, Field(max_length=500, description="Why, for the history")] = "",
) -> TaskOut:
    """Pause a running task: no further step starts until resumeTask."""
    task = selectors.task_for_change(actor=ctx.actor, task_id=task_id)
    runner.task_pause(actor=ctx.actor, task=task, reason=reason)
    return task_out(ctx, task)


@tool("resumeTask", permission=TasksPerm.RUN, title="Resume a paused task", idempotent=True)
def resume_task(ctx: ToolContext, *, task_id: TaskId) -> TaskOut:
    """Resume a paused task where it stopped (pauseTask paused it)."""
    task = selectors.task_for_change(actor=ctx.actor, task_id=task_id)
    runner.task_resume(actor=ctx.actor, task=task)
    return task_out(ctx, task)


@tool("steerTask", permission=TasksPerm.RUN, title="Steer a running task")
def steer_task(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    guidance: Annotated[str, Field(min_length=1, max_length=4000, description="What should change, and how")],
) -> TaskOut:
    """Guide a running task's agent steps from now on. Its instructions: updateTaskInstructions."""
    task = selectors.task_for_change(actor=ctx.actor, task_id=task_id)
    runner.task_steer(actor=ctx.actor, task=task, guidance=guidance)
    return task_out(ctx, task)


@tool("rerunTask", permission=TasksPerm.RUN, title="Run a task again")
def rerun_task(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    from_step_id: Annotated[
        int | None, Field(ge=1, description="Default: the first; steps before it stay done")
    ] = None,
) -> TaskOut:
    """Run a completed or failed task again, as a new run, from the first step or a later one."""
    task = selectors.task_for_change(actor=ctx.actor, task_id=task_id)
    step = selectors.step_get(task=task, step_id=from_step_id) if from_step_id else None
    runner.task_rerun(actor=ctx.actor, task=task, from_step=step)
    return task_out(ctx, task)


@tool("skipTaskStep", permission=TasksPerm.RUN, title="Skip a step")
def skip_task_step(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    step_id: StepId,
    reason: Annotated[str, Field(max_length=500, description="Why, for the history")] = "",
) -> TaskOut:
    """Skip a step that is not done: it goes to the last column as skipped and the next step starts."""
    task = selectors.task_for_change(actor=ctx.actor, task_id=task_id)
    step = selectors.step_get(task=task, step_id=step_id)
    runner.step_skip(actor=ctx.actor, task=task, step=step, reason=reason)
    return task_out(ctx, task)


class SkippedStepOut(Out):
    id: int
    title: str


class CompletedTaskOut(Out):
    task: TaskSummary
    skipped: list[SkippedStepOut]


@tool("completeTask", permission=TasksPerm.RUN, title="Complete a task")
def complete_task(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    note: Annotated[
        str, Field(max_length=500, description="Why, for the history and the skipped steps")
    ] = "",
) -> CompletedTaskOut:
    """Mark a task completed now, whatever is left: its unfinished steps are skipped, not finished.

    One step only: skipTaskStep. A scheduled task's schedule goes on (disableScheduledTask)."""
    task = selectors.task_for_change(actor=ctx.actor, task_id=task_id)
    skipped = runner.task_complete(actor=ctx.actor, task=task, note=note)
    task.refresh_from_db()
    return CompletedTaskOut(
        task=TaskSummary.of_record(task), skipped=[SkippedStepOut.of_record(step) for step in skipped]
    )
