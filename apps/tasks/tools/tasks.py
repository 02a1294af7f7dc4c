"""Tasks themselves: create, read, list, change and share them."""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.customfields import FieldsOf
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
from apps.core import customfields, search
from apps.tasks import runner, services
from apps.tasks.models import Task
from apps.tasks.permissions import TasksPerm
from apps.tasks.shapes import TaskOut, TaskSummary
from apps.tasks.tools.common import (
    AgentKeyId,
    ColumnName,
    NewStepIn,
    Priority,
    ScheduleIn,
    TaskId,
    Visibility,
    set_schedule,
    step_fields,
    task_of,
    task_out,
)


@tool(
    "createTask",
    permission=TasksPerm.CREATE,
    title="Create a task",
    custom_fields=FieldsOf("tasks", "create"),
)
def create_task(
    ctx: ToolContext,
    *,
    title: Annotated[str, Field(min_length=1, max_length=200, description="What the task is")],
    description: Annotated[str, Field(max_length=10_000, description="For people to read")] = "",
    instructions: Annotated[
        str, Field(max_length=20_000, description="What people and the agent doing it follow")
    ] = "",
    steps: Annotated[list[NewStepIn], Field(max_length=100, description="In order")] = [],  # noqa: B006
    columns: Annotated[
        list[ColumnName] | None,
        Field(min_length=2, max_length=12, description="Default: To do, In progress, Done"),
    ] = None,
    priority: Annotated[Priority, Field(description="How urgent")] = "normal",
    due_at: Annotated[datetime | None, Field(description="When it is due")] = None,
    visibility: Annotated[
        Visibility, Field(description="private: you and those you share it with")
    ] = "workspace",
    agent_key_id: Annotated[
        int | None,
        Field(ge=1, le=2**63 - 1, description="Your API key paying for agent steps"),
    ] = None,
    start: Annotated[bool, Field(description="Start at once (default: stay a draft)")] = False,
) -> TaskOut:
    """Create a task: steps on a board for people, the agent or the service. From a template:
    createTaskFromTemplate; to repeat it: updateTask's schedule; write_file steps: addTaskStep."""
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
    if start:
        runner.task_start(actor=ctx.actor, task=task)
    return task_out(ctx, task)


@tool(
    "getTask",
    permission=TasksPerm.VIEW,
    title="Get a task",
    read_only=True,
    custom_fields=FieldsOf("tasks", "get"),
)
def get_task(ctx: ToolContext, *, task_id: TaskId) -> TaskOut:
    """Get a task or template in full: status, what it waits for, board and steps, run, schedule."""
    # With its custom field values, in the same statement (apps.core.customfields).
    task = customfields.annotate(Task.objects.select_related("owner"), "tasks").fetch(ctx.actor, task_id)
    customfields.seen("tasks", task)
    return TaskOut.of(task, ctx.actor)


@tool("listTasks", permission=TasksPerm.VIEW, title="List tasks", read_only=True)
def list_tasks(
    ctx: ToolContext,
    *,
    kind: Annotated[
        Literal["tasks", "templates", "all"], Field(description="Tasks, templates or both")
    ] = "tasks",
    status: Annotated[
        Literal["draft", "running", "waiting", "paused", "completed", "failed"] | None,
        Field(description="Only in this state"),
    ] = None,
    waiting_on: Annotated[
        Literal["person", "agent"] | None, Field(description="Only waiting on this")
    ] = None,
    query: Annotated[str, Field(max_length=200, description="Words in the title or description")] = "",
    mine: Annotated[bool, Field(description="Only those you own")] = False,
    archived: Annotated[
        bool, Field(description="Only archived ones (archiveTask); false: the others")
    ] = False,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[TaskSummary]:
    """List the tasks or templates you may see, last changed first, with filters."""
    rows = Task.objects.restrict(ctx.actor).select_related("owner").filter(archived_at__isnull=not archived)
    if kind != "all":
        rows = rows.filter(is_template=kind == "templates")
    if status:
        rows = rows.filter(status=status)
    if waiting_on:
        rows = rows.filter(waiting_on=waiting_on)
    if mine:
        rows = rows.filter(owner=ctx.actor.pk)
    rows = search.matching(rows, query, ("title", "description"))
    return paginate(
        rows.order_by("-updated_at", "-id"), limit=limit, offset=offset, item=TaskSummary.of_record
    )


class TaskChanges(Changes):
    title: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    description: Annotated[str, Field(max_length=10_000)] | None = None
    priority: Priority | None = None
    due_at: datetime | None = None
    visibility: Visibility | None = None
    columns: Annotated[list[ColumnName], Field(min_length=2, max_length=12)] | None = Field(
        None, description="Drafts only; steps of removed columns go to the first"
    )
    schedule: ScheduleIn | None = Field(None, description="A new rule (deleteScheduledTask removes it)")
    agent_key_id: AgentKeyId | None = Field(None, description="The owner's API key that pays for agent steps")


class UpdatedTaskOut(Out):
    task: TaskOut
    changed: list[str]


@tool(
    "updateTask",
    permission=TasksPerm.EDIT,
    title="Update a task",
    idempotent=True,
    custom_fields=FieldsOf("tasks", "update", answer="task"),
)
def update_task(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    changes: Annotated[TaskChanges, Field(description="Only the fields to change; null clears one")],
) -> UpdatedTaskOut:
    """Change a task's fields, columns, schedule or key. Instructions: updateTaskInstructions."""
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
        Literal["replace", "append"], Field(description="Replace them or add to them")
    ] = "replace",
) -> TaskOut:
    """Replace or extend a task's instructions (kept in its history). To guide a running task: steerTask."""
    task = task_of(ctx, task_id)
    services.task_set_instructions(
        actor=ctx.actor, task=task, instructions=instructions, append=mode == "append"
    )
    return task_out(ctx, task)


share_tool(
    "shareTask",
    model=Task,
    title="Share a task",
    id_argument=("task_id", TaskId),
    after=services.task_shared,
)
