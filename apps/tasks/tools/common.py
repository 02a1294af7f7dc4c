"""What the Tasks area's tools share: argument types, nested input shapes and small helpers."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.shapes import In
from apps.files.api import Name
from apps.tasks import files as task_files
from apps.tasks import schedules, selectors
from apps.tasks.models import Task, TaskStep
from apps.tasks.shapes import TaskOut

TaskId = Annotated[int, Field(ge=1, le=2**63 - 1, description="From listTasks")]
StepId = Annotated[int, Field(ge=1, le=2**63 - 1, description="From getTaskSteps")]
ScheduleId = Annotated[int, Field(ge=1, le=2**63 - 1, description="From listScheduledTasks")]
AgentKeyId = Annotated[int, Field(ge=1, le=2**63 - 1)]
Priority = Literal["low", "normal", "high", "urgent"]
Visibility = Literal["workspace", "private"]
StepKind = Literal["manual", "agent", "notify", "write_file"]
FolderPath = Annotated[
    str,
    Field(
        min_length=1,
        max_length=500,
        description="A path in Files, made if missing",
    ),
]


class StepFileIn(In):
    name: Name = Field(description="With its extension: report.md")
    text: Annotated[str, Field(max_length=200_000)] = ""
    folder: FolderPath = task_files.DEFAULT_FOLDER


Label = Annotated[str, Field(min_length=1, max_length=40)]
Email = Annotated[str, Field(max_length=254)]
ColumnName = Annotated[str, Field(min_length=1, max_length=60)]
ChecklistText = Annotated[str, Field(min_length=1, max_length=300)]


class _Step(In):
    title: Annotated[str, Field(min_length=1, max_length=200)]
    instructions: Annotated[str, Field(max_length=10_000)] = ""
    column: ColumnName | None = Field(None, description="Default: the first")
    assignee_email: Email | None = Field(None, description="Who does it")
    due_at: datetime | None = None
    checklist: Annotated[list[ChecklistText], Field(max_length=50)] = []
    notify_emails: Annotated[list[Email], Field(max_length=50)] | None = Field(
        None, description="Default: the owner and sharees"
    )


class NewStepIn(_Step):
    """A step as createTask takes it. A card's notes and labels, and write_file steps with their
    file, come with addTaskStep (StepIn): createTask stays within the catalogue's budget."""

    kind: Literal["manual", "agent", "notify"] = Field(
        "manual", description="Who does it; notify tells notifyEmails"
    )


class StepIn(_Step):
    kind: StepKind = Field(
        "manual",
        description="Who does it; notify tells notifyEmails, write_file writes file",
    )
    notes: Annotated[str, Field(max_length=10_000)] = ""
    labels: Annotated[list[Label], Field(max_length=20)] = []
    file: StepFileIn | None = None


class ScheduleIn(In):
    rrule: Annotated[str, Field(min_length=1, max_length=500)] = Field(
        description="RFC 5545, e.g. FREQ=WEEKLY;BYDAY=MO;BYHOUR=9 (at most every 15 minutes)"
    )
    starts_at: datetime | None = Field(None, description="Default: now")
    time_zone: Annotated[str, Field(max_length=64)] | None = Field(
        None, description="IANA; default: the workspace's"
    )


def step_fields(step: In) -> dict[str, Any]:
    """A step's fields for the services: what the agent left out takes the services' default."""
    return step.model_dump(exclude_none=True)


def set_schedule(ctx: ToolContext, task: Task, schedule: ScheduleIn | None) -> None:
    """Runs `task` on the recurrence `schedule` gives, if one is given."""
    if schedule is not None:
        schedules.schedule_set(
            actor=ctx.actor,
            task=task,
            rule=schedule.rrule,
            starts_at=schedule.starts_at,
            time_zone=schedule.time_zone,
        )


def task_of(ctx: ToolContext, task_id: int) -> Task:
    """The task (or template) a tool names, as the actor may see it."""
    return Task.objects.select_related("owner").fetch(ctx.actor, task_id)


def step_of(ctx: ToolContext, task_id: int, step_id: int) -> tuple[Task, TaskStep]:
    """The task a tool names, and the step of it."""
    task = task_of(ctx, task_id)
    return task, selectors.step_get(task=task, step_id=step_id)


def task_out(ctx: ToolContext, task: Task) -> TaskOut:
    """The task as it stands after a change (the runner and services write it in the database)."""
    task.refresh_from_db()
    return TaskOut.of(task, ctx.actor)
