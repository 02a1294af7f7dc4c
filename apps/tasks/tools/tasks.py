"""Tasks themselves: create, read, list, change and share them."""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.kit import share_tool
from apps.catalogue.registry import tool
from apps.catalogue.shapes import (
    Changes,
    Limit,
    Offset,
    Out,
    Page,
    paginate,
)
from apps.core import search
from apps.tasks import runner, services
from apps.tasks.models import Task
from apps.tasks.permissions import TasksPerm
from apps.tasks.shapes import TaskOut, TaskSummary
from apps.tasks.tools.common import (
    AgentKeyId,
    ColumnName,
    Priority,
    ScheduleIn,
    StepIn,
    TaskId,
    Visibility,
    set_schedule,
    step_fields,
    task_of,
    task_out,
)


@tool("createTask", permission=TasksPerm.CREATE, title="Create a task")
def create_task(
    ctx: ToolContext,
    *,
    title: Annotated[str, Field(min_length=1, max_length=200, description="What the task is")],
    description: Annotated[str, Field(max_length=10_000, description="What it is about, for people")] = "",
    instructions: Annotated[
        str, Field(max_length=20_000, description="How to do it: what people and the service's agent follow")
    ] = "",
    steps: Annotated[list[StepIn], Field(max_length=100, description="Its steps, in order")] = [],  # noqa: B006
    columns: Annotated[
        list[ColumnName] | None,
        Field(
            min_length=2,
            max_length=12,
            description="The board's columns (default To do, In progress, Done); the last is where finished "
            "steps go",
        ),
    ] = None,
    priority: Annotated[Priority, Field(description="low, normal (default), high or urgent")] = "normal",
    due_at: Annotated[datetime | None, Field(description="When it is due (ISO 8601)")] = None,
    visibility: Annotated[
        Visibility,
        Field(
            description="workspace (default: everyone who may see tasks), or private: you and the people "
            "you share it with"
        ),
    ] = "workspace",
    schedule: Annotated[
        ScheduleIn | None, Field(description="Run a copy of it at each occurrence of a recurrence rule")
    ] = None,
    agent_key_id: Annotated[
        int | None,
        Field(
            ge=1,
            le=2**63 - 1,
            description="The API key whose budget pays for the task's agent steps: one of your active keys "
            "(Settings → API keys lists them). Without one, agent steps wait for it",
        ),
    ] = None,
    start: Annotated[bool, Field(description="Start it right away (default: it stays a draft)")] = False,
) -> TaskOut:
    """Create a task as a draft: a title, instructions, and steps on a board (each step a card
    with an assignee, due date, labels, checklist). Steps are done by a person (manual), by the
    service's agent (agent), or by the service itself (notify). The agent's steps are paid by
    `agentKeyId`, one of your API keys. Give `start: true` to start it at once, and `schedule` to
    run a copy of it on a recurrence rule. You watch the tasks you create."""
    task = services.task_create(
        actor=ctx.actor,
        fields={
            "title": title,
            "description": description,
            "instructions": instructions,
            "priority": priority,
            "due_at": due_at,
            "visibility": visibility,
            "agent_key_id": agent_key_id,
        },
        steps=[step_fields(step) for step in steps],
        columns=columns,
    )
    set_schedule(ctx, task, schedule)
    if start:
        runner.task_start(actor=ctx.actor, task=task)
    return task_out(ctx, task)


@tool("getTask", permission=TasksPerm.VIEW, title="Get a task", read_only=True)
def get_task(ctx: ToolContext, *, task_id: TaskId) -> TaskOut:
    """Fetch a task (or template) in full: its text, status and what it waits for, its board
    with every step, the current run, steering given, who it is shared with, and its schedule."""
    return TaskOut.of(task_of(ctx, task_id), ctx.actor)


@tool("listTasks", permission=TasksPerm.VIEW, title="List tasks", read_only=True)
def list_tasks(
    ctx: ToolContext,
    *,
    kind: Annotated[
        Literal["tasks", "templates", "all"], Field(description="tasks (default), templates, or all")
    ] = "tasks",
    status: Annotated[
        Literal["draft", "running", "waiting", "paused", "completed", "failed"] | None,
        Field(description="Only tasks in this state"),
    ] = None,
    waiting_on: Annotated[
        Literal["person", "agent"] | None, Field(description="Only tasks waiting on this")
    ] = None,
    query: Annotated[
        str, Field(max_length=200, description="Words to find in the title or description")
    ] = "",
    mine: Annotated[bool, Field(description="Only tasks you own")] = False,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[TaskSummary]:
    """List the tasks (or templates) you may see, most recently changed first, with filters."""
    rows = Task.objects.restrict(ctx.actor).select_related("owner")
    if kind != "all":
        rows = rows.filter(is_template=kind == "templates")
    if status:
        rows = rows.filter(status=status)
    if waiting_on:
        rows = rows.filter(waiting_on=waiting_on)
    if mine:
        rows = rows.filter(owner=ctx.actor)
    rows = search.matching(rows, query, ("title", "description"))
    return paginate(
        rows.order_by("-updated_at", "-id"), limit=limit, offset=offset, item=TaskSummary.of_record
    )


class TaskChanges(Changes):
    title: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(None, description="New title")
    description: Annotated[str, Field(max_length=10_000)] | None = Field(None, description="New description")
    priority: Priority | None = Field(None, description="low, normal, high or urgent")
    due_at: datetime | None = Field(None, description="When it is due (ISO 8601); null clears it")
    visibility: Visibility | None = Field(None, description="workspace or private")
    columns: Annotated[list[ColumnName], Field(min_length=2, max_length=12)] | None = Field(
        None, description="Drafts only: the board's columns, in order (steps of removed ones go to the first)"
    )
    schedule: ScheduleIn | None = Field(
        None, description="A new recurrence for it (deleteScheduledTask removes one)"
    )
    agent_key_id: AgentKeyId | None = Field(
        None,
        description="The owner's API key whose budget pays for the agent's steps (the owner chooses it); "
        "null clears it. Given while an agent step waits for a key, it hands the step to the agent",
    )


class UpdatedTaskOut(Out):
    task: TaskOut
    changed: list[str]


@tool("updateTask", permission=TasksPerm.EDIT, title="Update a task", idempotent=True)
def update_task(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    changes: Annotated[TaskChanges, Field(description="Only the fields to change")],
) -> UpdatedTaskOut:
    """Change a task's title, description, priority, due date, visibility, a draft's board
    columns, its schedule, or the API key that pays for its agent steps (`agentKeyId`). Use
    updateTaskInstructions for its instructions and the step tools for its steps."""
    task = task_of(ctx, task_id)
    given = changes.given()
    schedule = given.pop("schedule", None)
    task, changed = services.task_update(actor=ctx.actor, task=task, fields=given)
    if schedule is not None:
        set_schedule(ctx, task, changes.schedule)
        changed = sorted([*changed, "schedule"])
    return UpdatedTaskOut(task=task_out(ctx, task), changed=changed)


@tool(
    "updateTaskInstructions", permission=TasksPerm.EDIT, title="Update a task's instructions", idempotent=True
)
def update_task_instructions(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    instructions: Annotated[
        str, Field(max_length=20_000, description="What the people and the agent doing its steps follow")
    ],
    mode: Annotated[
        Literal["replace", "append"], Field(description="replace (default) them, or append to them")
    ] = "replace",
) -> TaskOut:
    """Replace or extend what a task's steps follow: the instructions for the people and the
    service's agent doing them. The previous text is kept in the task's history. To guide a task
    while it runs, steerTask."""
    task = task_of(ctx, task_id)
    services.task_set_instructions(
        actor=ctx.actor, task=task, instructions=instructions, append=mode == "append"
    )
    return task_out(ctx, task)


share_tool(
    "shareTask",
    model=Task,
    permission=TasksPerm.SHARE,
    title="Share a task",
    id_argument=("task_id", TaskId),
    description="""Share a task with a person of the workspace, so they can see it (view) or also change and
    run it (edit), or stop sharing (none); and/or make it private or visible to everyone who may
    see tasks (its owner or an admin). Returns who can see it now.""",
    after=services.task_shared,
)
