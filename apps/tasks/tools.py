"""The Tasks area of the catalogue (SPEC 4.7): thin doors onto services, the runner and schedules."""

from datetime import datetime
from typing import Annotated, Any, Literal

from django.db.models import Q
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import (
    Changes,
    EntityId,
    EntityType,
    In,
    Limit,
    Offset,
    Out,
    Page,
    PersonEmail,
    ShareAccess,
    SharingOut,
    VisibilityChange,
    paginate,
)
from apps.core import entities
from apps.files.shapes import ContentBase64, FileOut, Name, Text
from apps.tasks import files as task_files
from apps.tasks import runner, schedules, selectors, services
from apps.tasks.errors import InvalidTask
from apps.tasks.models import Task
from apps.tasks.permissions import TasksPerm
from apps.tasks.shapes import (
    ColumnOut,
    ScheduledRunOut,
    ScheduleOut,
    StepDetailOut,
    StepSummary,
    TaskOut,
    TaskSummary,
    board_of,
    counted_steps,
    waiting_for,
)

TaskId = Annotated[int, Field(ge=1, le=2**63 - 1, description="The task's (or template's) id")]
StepId = Annotated[int, Field(ge=1, le=2**63 - 1, description="The step's id (getTaskSteps lists them)")]
ScheduleId = Annotated[
    int, Field(ge=1, le=2**63 - 1, description="The scheduled task's id (listScheduledTasks lists them)")
]
AgentKeyId = Annotated[int, Field(ge=1, le=2**63 - 1)]
Priority = Literal["low", "normal", "high", "urgent"]
Visibility = Literal["workspace", "private"]
StepKind = Literal["manual", "agent", "notify", "write_file"]
FolderPath = Annotated[
    str,
    Field(
        min_length=1,
        max_length=500,
        description='The folder in Files, e.g. "/Reports/2026" (created where missing)',
    ),
]


class StepFileIn(In):
    name: Name = Field(description="The file's name, with its extension (report.md)")
    text: Annotated[str, Field(max_length=200_000)] = Field("", description="What the file holds")
    folder: FolderPath = Field(task_files.DEFAULT_FOLDER, description="The folder in Files")


Label = Annotated[str, Field(min_length=1, max_length=40)]
Email = Annotated[str, Field(max_length=254)]
ColumnName = Annotated[str, Field(min_length=1, max_length=60)]
ChecklistText = Annotated[str, Field(min_length=1, max_length=300)]


class StepIn(In):
    title: Annotated[str, Field(min_length=1, max_length=200)] = Field(description="What the step is")
    instructions: Annotated[str, Field(max_length=10_000)] = Field(
        "", description="How to do it (for a person, or for the service's agent)"
    )
    kind: StepKind = Field(
        "manual",
        description="manual: a person does it; agent: the service's agent does it; notify: the service "
        "notifies `notifyEmails` (default: the owner and the people it is shared with); write_file: the "
        "service writes `file` into the workspace's files",
    )
    column: ColumnName | None = Field(None, description="The board column to put it in (default: the first)")
    assignee_email: Email | None = Field(None, description="Who does it (a person of this workspace)")
    due_at: datetime | None = Field(None, description="When it is due (ISO 8601)")
    notes: Annotated[str, Field(max_length=10_000)] = Field("", description="Notes on the card")
    labels: Annotated[list[Label], Field(max_length=20)] = Field([], description="Labels on the card")
    checklist: Annotated[list[ChecklistText], Field(max_length=50)] = Field([], description="Checklist items")
    notify_emails: Annotated[list[Email], Field(max_length=50)] | None = Field(
        None, description="notify steps: whom to notify"
    )
    file: StepFileIn | None = Field(None, description="write_file steps: the file to write")


class ScheduleIn(In):
    rrule: Annotated[str, Field(min_length=1, max_length=500)] = Field(
        description="An RFC 5545 recurrence rule, e.g. FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0 (at most "
        "every 15 minutes)"
    )
    starts_at: datetime | None = Field(None, description="From when (ISO 8601; default now)")
    time_zone: Annotated[str, Field(max_length=64)] | None = Field(
        None, description="IANA time zone the rule is read in (default: the workspace's)"
    )


def _step_fields(step: In) -> dict[str, Any]:
    return step.model_dump(exclude_none=True)


def _schedule(ctx: ToolContext, task: Task, schedule: ScheduleIn | None) -> None:
    if schedule is not None:
        schedules.schedule_set(
            actor=ctx.actor,
            task=task,
            rule=schedule.rrule,
            starts_at=schedule.starts_at,
            time_zone=schedule.time_zone,
        )


def _task_out(ctx: ToolContext, task: Task) -> TaskOut:
    task.refresh_from_db()
    return TaskOut.of(task, ctx.actor)


# --- tasks ----------------------------------------------------------------------------------------


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
        steps=[_step_fields(step) for step in steps],
        columns=columns,
    )
    _schedule(ctx, task, schedule)
    if start:
        runner.task_start(actor=ctx.actor, task=task)
    return _task_out(ctx, task)


@tool("getTask", permission=TasksPerm.VIEW, title="Get a task", read_only=True)
def get_task(ctx: ToolContext, *, task_id: TaskId) -> TaskOut:
    """Fetch a task (or template) in full: its text, status and what it waits for, its board
    with every step, the current run, steering given, who it is shared with, and its schedule."""
    return TaskOut.of(selectors.task_get(actor=ctx.actor, task_id=task_id), ctx.actor)


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
    rows = selectors.task_visible(actor=ctx.actor).select_related("owner")
    if kind != "all":
        rows = rows.filter(is_template=kind == "templates")
    if status:
        rows = rows.filter(status=status)
    if waiting_on:
        rows = rows.filter(waiting_on=waiting_on)
    if mine:
        rows = rows.filter(owner=ctx.actor)
    for term in query.split()[:8]:
        rows = rows.filter(Q(title__icontains=term) | Q(description__icontains=term))
    return paginate(rows.order_by("-updated_at", "-id"), limit=limit, offset=offset, item=TaskSummary.of)


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
    task = selectors.task_get(actor=ctx.actor, task_id=task_id)
    given = changes.given()
    schedule = given.pop("schedule", None)
    task, changed = services.task_update(actor=ctx.actor, task=task, fields=given)
    if schedule is not None:
        _schedule(ctx, task, changes.schedule)
        changed = sorted([*changed, "schedule"])
    return UpdatedTaskOut(task=_task_out(ctx, task), changed=changed)


@tool(
    "updateTaskInstructions", permission=TasksPerm.EDIT, title="Update a task's instructions", idempotent=True
)
def update_task_instructions(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    instructions: Annotated[str, Field(max_length=20_000, description="The instructions")],
    mode: Annotated[
        Literal["replace", "append"], Field(description="replace (default) them, or append to them")
    ] = "replace",
) -> TaskOut:
    """Replace or extend what a task's steps follow: the instructions for the people and the
    service's agent doing them. The previous text is kept in the task's history. To guide a task
    while it runs, steerTask."""
    task = selectors.task_get(actor=ctx.actor, task_id=task_id)
    services.task_set_instructions(
        actor=ctx.actor, task=task, instructions=instructions, append=mode == "append"
    )
    return _task_out(ctx, task)


@tool("shareTask", permission=TasksPerm.SHARE, title="Share a task", idempotent=True)
def share_task(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    person_email: PersonEmail = None,
    access: ShareAccess = "view",
    visibility: VisibilityChange = None,
) -> SharingOut:
    """Share a task with a person of the workspace, so they can see it (view) or also change and
    run it (edit), or stop sharing (none); and/or make it private or visible to everyone who may
    see tasks (its owner or an admin). Returns who can see it now."""
    task = selectors.task_get(actor=ctx.actor, task_id=task_id)
    return SharingOut.of(
        services.task_share(
            actor=ctx.actor, task=task, person_email=person_email, access=access, visibility=visibility
        )
    )


# --- drafts and templates ---------------------------------------------------------------------------

NewTitle = Annotated[str | None, Field(max_length=200, description="Its title (default: the source's)")]


@tool("saveTaskAsTemplate", permission=TasksPerm.CREATE, title="Save a task as a template")
def save_task_as_template(ctx: ToolContext, *, task_id: TaskId, title: NewTitle = None) -> TaskOut:
    """Save a task as a reusable template: its instructions, board, steps, cards and checklists
    (unticked) and linked records, without its runs or due dates. createTaskFromTemplate makes
    new tasks of it."""
    source = selectors.task_get(actor=ctx.actor, task_id=task_id)
    return _task_out(ctx, services.task_copy(actor=ctx.actor, source=source, title=title, as_template=True))


@tool("createTaskFromTemplate", permission=TasksPerm.CREATE, title="Create a task from a template")
def create_task_from_template(
    ctx: ToolContext,
    *,
    template_id: Annotated[int, Field(ge=1, description="The template's id (listTasks with kind templates)")],
    title: NewTitle = None,
    start: Annotated[bool, Field(description="Start it right away (default: it stays a draft)")] = False,
    schedule: Annotated[
        ScheduleIn | None, Field(description="Run a copy of the new task at each occurrence of a rule")
    ] = None,
) -> TaskOut:
    """Make a new draft task from a template, with everything the template has; optionally start
    it at once or schedule it."""
    template = selectors.task_get(actor=ctx.actor, task_id=template_id)
    if not template.is_template:
        raise InvalidTask.on(
            "template_id", f"task {template_id} is not a template (copyTaskToNewDraft copies a task)"
        )
    task = services.task_copy(actor=ctx.actor, source=template, title=title)
    _schedule(ctx, task, schedule)
    if start:
        runner.task_start(actor=ctx.actor, task=task)
    return _task_out(ctx, task)


@tool("copyTaskToNewDraft", permission=TasksPerm.CREATE, title="Copy a task to a new draft")
def copy_task_to_new_draft(ctx: ToolContext, *, task_id: TaskId, title: NewTitle = None) -> TaskOut:
    """Copy a task (or a template) into a new draft, to change and run separately: the text,
    board, steps, cards, checklists (unticked) and links, not its runs."""
    source = selectors.task_get(actor=ctx.actor, task_id=task_id)
    return _task_out(ctx, services.task_copy(actor=ctx.actor, source=source, title=title))


@tool("revertTaskToDraft", permission=TasksPerm.EDIT, title="Revert a task to a draft", idempotent=True)
def revert_task_to_draft(ctx: ToolContext, *, task_id: TaskId) -> TaskOut:
    """Take a task back to a draft to change it: a run in progress ends (kept in the history as
    reverted), every step is set back to not started with its checklist unticked, and the cards
    return to the first column. startTask runs it again."""
    task = selectors.task_get_for_edit(actor=ctx.actor, task_id=task_id)
    runner.task_revert_to_draft(actor=ctx.actor, task=task)
    return _task_out(ctx, task)


# --- running ----------------------------------------------------------------------------------------


@tool("startTask", permission=TasksPerm.RUN, title="Start a task")
def start_task(ctx: ToolContext, *, task_id: TaskId) -> TaskOut:
    """Start a draft task: it works through its steps in order. The service does notify steps
    itself; a manual step waits for a person (its assignee is notified) until its card is moved
    to the board's last column; an agent step is handed to the service's agent, paid by the
    task's `agentKeyId`, and finished by its reply (see `waitingFor`)."""
    task = selectors.task_get_for_edit(actor=ctx.actor, task_id=task_id)
    runner.task_start(actor=ctx.actor, task=task)
    return _task_out(ctx, task)


@tool("pauseTask", permission=TasksPerm.RUN, title="Pause a task", idempotent=True)
def pause_task(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    reason: Annotated[str, Field(max_length=500, description="Why, for the history")] = "",
) -> TaskOut:
    """Pause a running task: no further step starts until resumeTask (finishing the step in
    hand is still recorded)."""
    task = selectors.task_get_for_edit(actor=ctx.actor, task_id=task_id)
    runner.task_pause(actor=ctx.actor, task=task, reason=reason)
    return _task_out(ctx, task)


@tool("resumeTask", permission=TasksPerm.RUN, title="Resume a paused task", idempotent=True)
def resume_task(ctx: ToolContext, *, task_id: TaskId) -> TaskOut:
    """Resume a paused task where it stopped."""
    task = selectors.task_get_for_edit(actor=ctx.actor, task_id=task_id)
    runner.task_resume(actor=ctx.actor, task=task)
    return _task_out(ctx, task)


@tool("steerTask", permission=TasksPerm.RUN, title="Steer a running task")
def steer_task(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    guidance: Annotated[str, Field(min_length=1, max_length=4000, description="What should change, and how")],
) -> TaskOut:
    """Guide a task while it runs (or is paused): the guidance is kept in its history, shown with
    the task (`guidance`), told to its watchers, and given to the service's agent with each step
    it takes on from now on. It does not change the task's instructions."""
    task = selectors.task_get_for_edit(actor=ctx.actor, task_id=task_id)
    runner.task_steer(actor=ctx.actor, task=task, guidance=guidance)
    return _task_out(ctx, task)


@tool("rerunTask", permission=TasksPerm.RUN, title="Run a task again")
def rerun_task(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    from_step_id: Annotated[
        int | None, Field(ge=1, description="Run again from this step (default: from the first)")
    ] = None,
) -> TaskOut:
    """Run a completed or failed task again, as a new run: from the first step, or from the step
    named (the steps before it stay done). Its earlier runs stay in the history."""
    task = selectors.task_get_for_edit(actor=ctx.actor, task_id=task_id)
    step = selectors.step_get(task=task, step_id=from_step_id) if from_step_id else None
    runner.task_rerun(actor=ctx.actor, task=task, from_step=step)
    return _task_out(ctx, task)


@tool("skipTaskStep", permission=TasksPerm.RUN, title="Skip a step")
def skip_task_step(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    step_id: StepId,
    reason: Annotated[str, Field(max_length=500, description="Why, for the history")] = "",
) -> TaskOut:
    """Skip a step that is not done: it goes to the board's last column as skipped and, if the
    task is running, the next step starts."""
    task = selectors.task_get_for_edit(actor=ctx.actor, task_id=task_id)
    step = selectors.step_get(task=task, step_id=step_id)
    runner.step_skip(actor=ctx.actor, task=task, step=step, reason=reason)
    return _task_out(ctx, task)


# --- steps and the board ------------------------------------------------------------------------------


class BoardOut(Out):
    task_id: int
    title: str
    status: str
    waiting_for: str
    steps: list[StepSummary] = Field(description="Every step, in order")
    columns: list[ColumnOut] = Field(description="The board: each column with its steps")


def _board(task: Task) -> BoardOut:
    task.refresh_from_db()
    steps = counted_steps(task)
    return BoardOut(
        task_id=task.pk,
        title=task.title,
        status=task.status,
        waiting_for=waiting_for(task, steps),
        steps=[StepSummary.of(step) for step in steps],
        columns=board_of(task, steps),
    )


@tool("getTaskSteps", permission=TasksPerm.VIEW, title="Get a task's steps", read_only=True)
def get_task_steps(ctx: ToolContext, *, task_id: TaskId) -> BoardOut:
    """A task's steps in order and its board: each column with its cards (status, kind,
    assignee, due date, labels, checklist progress, links)."""
    return _board(selectors.task_get(actor=ctx.actor, task_id=task_id))


@tool("getTaskStepDetail", permission=TasksPerm.VIEW, title="Get a step in detail", read_only=True)
def get_task_step_detail(ctx: ToolContext, *, task_id: TaskId, step_id: StepId) -> StepDetailOut:
    """One step in full: its instructions, card, checklist items, linked records, what it did or
    waits for, and its history."""
    task = selectors.task_get(actor=ctx.actor, task_id=task_id)
    return StepDetailOut.of(selectors.step_get(task=task, step_id=step_id), ctx.actor)


@tool("addTaskStep", permission=TasksPerm.EDIT, title="Add a step to a task")
def add_task_step(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    step: Annotated[StepIn, Field(description="The new step")],
    position: Annotated[
        int | None, Field(ge=1, le=100, description="Where it goes, 1 for first (default: last)")
    ] = None,
) -> BoardOut:
    """Add a step to a task (or template). If the task is running and waits on nothing, the new
    step starts at once."""
    task = selectors.task_get(actor=ctx.actor, task_id=task_id)
    services.step_add(actor=ctx.actor, task=task, fields=_step_fields(step), position=position)
    return _board(task)


@tool("removeTaskStep", permission=TasksPerm.EDIT, title="Remove a step from a task")
def remove_task_step(ctx: ToolContext, *, task_id: TaskId, step_id: StepId) -> BoardOut:
    """Remove a step, with its card, checklist and links. Its past events stay in the history."""
    task = selectors.task_get(actor=ctx.actor, task_id=task_id)
    services.step_remove(actor=ctx.actor, task=task, step=selectors.step_get(task=task, step_id=step_id))
    return _board(task)


@tool("reorderTaskSteps", permission=TasksPerm.EDIT, title="Reorder a task's steps", idempotent=True)
def reorder_task_steps(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    step_ids: Annotated[
        list[EntityId], Field(min_length=1, max_length=100, description="Every step, in the new order")
    ],
) -> BoardOut:
    """Put a task's steps in a new order (name every step once). A run follows the new order for
    the steps not started yet."""
    task = selectors.task_get(actor=ctx.actor, task_id=task_id)
    services.steps_reorder(actor=ctx.actor, task=task, step_ids=step_ids)
    return _board(task)


@tool("moveTaskStepColumn", permission=TasksPerm.EDIT, title="Move a step to another column", idempotent=True)
def move_task_step_column(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    step_id: StepId,
    column: Annotated[str, Field(min_length=1, max_length=60, description="The column's name")],
) -> BoardOut:
    """Move a step's card to another column of the task's board. The last column means done: the
    step is finished and, if the task is running, the next step starts. A middle column means in
    progress; moving a finished step out of the last column reopens it."""
    task = selectors.task_get(actor=ctx.actor, task_id=task_id)
    step = selectors.step_get(task=task, step_id=step_id)
    services.step_move(actor=ctx.actor, task=task, step=step, column_name=column)
    return _board(task)


class CardChanges(Changes):
    title: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        None, description="The step's title"
    )
    instructions: Annotated[str, Field(max_length=10_000)] | None = Field(None, description="How to do it")
    kind: StepKind | None = Field(None, description="manual, agent or notify (before the step starts)")
    notes: Annotated[str, Field(max_length=10_000)] | None = Field(None, description="Notes on the card")
    labels: Annotated[list[Label], Field(max_length=20)] | None = Field(
        None, description="The labels (replaced)"
    )
    due_at: datetime | None = Field(None, description="When it is due (ISO 8601); null clears it")
    assignee_email: Email | None = Field(None, description="Who does it; null: nobody")
    notify_emails: Annotated[list[Email], Field(max_length=50)] | None = Field(
        None, description="notify steps: whom to notify"
    )
    file: StepFileIn | None = Field(None, description="write_file steps: the file to write")


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
    """Change a step's card: title, instructions, kind, notes, labels, due date, assignee, or the
    people a notify step tells. Move it with moveTaskStepColumn, tick its checklist with
    updateTaskStepChecklist."""
    task = selectors.task_get(actor=ctx.actor, task_id=task_id)
    step = selectors.step_get(task=task, step_id=step_id)
    step, changed = services.step_update_card(actor=ctx.actor, task=task, step=step, fields=changes.given())
    return UpdatedStepOut(step=StepDetailOut.of(step, ctx.actor), changed=changed)


ItemIds = Annotated[
    list[EntityId], Field(max_length=50, description="Checklist item ids (getTaskStepDetail)")
]


@tool(
    "updateTaskStepChecklist", permission=TasksPerm.EDIT, title="Update a step's checklist", idempotent=True
)
def update_task_step_checklist(
    ctx: ToolContext,
    *,
    task_id: TaskId,
    step_id: StepId,
    add: Annotated[list[ChecklistText], Field(max_length=50, description="New items, added at the end")] = [],  # noqa: B006
    check: ItemIds = [],  # noqa: B006
    uncheck: ItemIds = [],  # noqa: B006
    remove: ItemIds = [],  # noqa: B006
) -> StepDetailOut:
    """Add checklist items to a step, tick or untick them, or remove them, in one call. Ticking
    every item does not finish the step: move it to the board's last column for that."""
    task = selectors.task_get(actor=ctx.actor, task_id=task_id)
    step = selectors.step_get(task=task, step_id=step_id)
    if not (add or check or uncheck or remove):
        raise InvalidTask.on("add", "say what to change: add, check, uncheck or remove")
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
    entity_id: Annotated[EntityId, Field(description="The record's id")],
    remove: Annotated[bool, Field(description="Unlink it instead")] = False,
) -> StepDetailOut:
    """Link a record of any area (a contact, another task, ...) to a step, so whoever does the
    step has it at hand; or unlink it. You must be able to see the record."""
    task = selectors.task_get(actor=ctx.actor, task_id=task_id)
    step = selectors.step_get(task=task, step_id=step_id)
    if remove:
        # The record may be gone or hidden by now: unlinking needs only its kind and id.
        entity = entities.Entity(kind=entities.kind_named(entity_type), id=entity_id, title="", instance=None)
    else:
        entity = entities.resolve(actor=ctx.actor, entity_type=entity_type, entity_id=entity_id)
    services.step_link(actor=ctx.actor, task=task, step=step, entity=entity, remove=remove)
    return StepDetailOut.of(selectors.step_get(task=task, step_id=step_id), ctx.actor)


# --- files -----------------------------------------------------------------------------------------

OptionalTaskId = Annotated[
    int | None,
    Field(ge=1, description="The task it is for: recorded in its history (and linked to `stepId`)"),
]
OptionalStepId = Annotated[int | None, Field(ge=1, description="The step of that task it is the output of")]
IfExists = Annotated[
    Literal["rename", "error"],
    Field(description='When the name is taken in the folder: rename (default, "name (2).txt") or error'),
]


class WrittenFileOut(Out):
    file: FileOut
    task_id: int | None
    step_id: int | None
    combined: str = Field(description="combineFiles: pages (PDFs) or text; empty for writeFile")


@tool("writeFile", permission=TasksPerm.EDIT, title="Write a file into the workspace's files")
def write_file(
    ctx: ToolContext,
    *,
    name: Name,
    text: Text = None,
    content_base64: ContentBase64 = None,
    folder: FolderPath = task_files.DEFAULT_FOLDER,
    task_id: OptionalTaskId = None,
    step_id: OptionalStepId = None,
    if_exists: IfExists = "rename",
) -> WrittenFileOut:
    """Write a file (text, or base64 for binary content) into the workspace's files, for example
    what a task produced: a report, a CSV, a letter. With `taskId` it is recorded in the task's
    history, and with `stepId` linked to that step. Needs files.edit too; the workspace's file
    size limit applies."""
    from apps.files.shapes import content_of

    task, step = task_files.task_and_step(actor=ctx.actor, task_id=task_id, step_id=step_id)
    file = task_files.file_write(
        actor=ctx.actor,
        name=name,
        content=content_of(text, content_base64),
        folder_path=folder,
        task=task,
        step=step,
        if_exists=if_exists,
    )
    return WrittenFileOut(file=FileOut.of(file), task_id=task_id, step_id=step_id, combined="")


@tool("combineFiles", permission=TasksPerm.EDIT, title="Combine files into one")
def combine_files(
    ctx: ToolContext,
    *,
    file_ids: Annotated[
        list[EntityId],
        Field(min_length=2, max_length=20, description="The files, in the order to combine them"),
    ],
    name: Name,
    folder: FolderPath = task_files.DEFAULT_FOLDER,
    headings: Annotated[bool, Field(description="Text: put each file's name as a heading before it")] = True,
    task_id: OptionalTaskId = None,
    step_id: OptionalStepId = None,
    if_exists: IfExists = "rename",
) -> WrittenFileOut:
    """Combine several files of the workspace into one new file. If the new name ends in .pdf and
    every file is a PDF, their pages are joined into one PDF. Otherwise their text (text files,
    and PDF, Word, Excel and PowerPoint files read as readFileContent does) is joined, each under
    its name, into a text or Markdown file (.txt, .md). The files themselves do not change."""
    task, step = task_files.task_and_step(actor=ctx.actor, task_id=task_id, step_id=step_id)
    file, how = task_files.files_combine(
        actor=ctx.actor,
        file_ids=file_ids,
        name=name,
        folder_path=folder,
        headings=headings,
        task=task,
        step=step,
        if_exists=if_exists,
    )
    return WrittenFileOut(file=FileOut.of(file), task_id=task_id, step_id=step_id, combined=how)


# --- scheduled tasks ----------------------------------------------------------------------------------


@tool("listScheduledTasks", permission=TasksPerm.VIEW, title="List scheduled tasks", read_only=True)
def list_scheduled_tasks(
    ctx: ToolContext,
    *,
    enabled: Annotated[bool | None, Field(description="Only enabled (true) or disabled (false) ones")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[ScheduleOut]:
    """The scheduled tasks you may see, next due first: their rule, time zone, next occurrences,
    and how often they ran."""
    rows = selectors.schedule_visible(actor=ctx.actor)
    if enabled is not None:
        rows = rows.filter(enabled=enabled)
    return paginate(rows.order_by("next_run_at", "id"), limit=limit, offset=offset, item=ScheduleOut.of)


@tool("getScheduledTask", permission=TasksPerm.VIEW, title="Get a scheduled task", read_only=True)
def get_scheduled_task(ctx: ToolContext, *, scheduled_task_id: ScheduleId) -> ScheduleOut:
    """One scheduled task: the task it runs, its RFC 5545 rule and time zone, whether it is
    enabled (and why not), the next occurrences and the last run."""
    return ScheduleOut.of(selectors.schedule_get(actor=ctx.actor, schedule_id=scheduled_task_id))


@tool(
    "getScheduledTaskHistory",
    permission=TasksPerm.VIEW,
    title="Get a scheduled task's history",
    read_only=True,
)
def get_scheduled_task_history(
    ctx: ToolContext, *, scheduled_task_id: ScheduleId, limit: Limit = 25, offset: Offset = 0
) -> Page[ScheduledRunOut]:
    """Every run of a scheduled task, newest first: when it was due, when it ran, the task it
    started (and how that task stands now), or why it failed."""
    schedule = selectors.schedule_get(actor=ctx.actor, schedule_id=scheduled_task_id)
    return paginate(
        schedule.runs.select_related("task").order_by("-due_at", "-id"),
        limit=limit,
        offset=offset,
        item=ScheduledRunOut.of,
    )


@tool("enableScheduledTask", permission=TasksPerm.SCHEDULE, title="Enable a scheduled task", idempotent=True)
def enable_scheduled_task(ctx: ToolContext, *, scheduled_task_id: ScheduleId) -> ScheduleOut:
    """Enable a scheduled task again: it runs from its next occurrence after now (occurrences
    missed while it was disabled are not caught up)."""
    schedule = selectors.schedule_get(actor=ctx.actor, schedule_id=scheduled_task_id)
    return ScheduleOut.of(schedules.schedule_enable(actor=ctx.actor, schedule=schedule, enabled=True))


@tool(
    "disableScheduledTask", permission=TasksPerm.SCHEDULE, title="Disable a scheduled task", idempotent=True
)
def disable_scheduled_task(ctx: ToolContext, *, scheduled_task_id: ScheduleId) -> ScheduleOut:
    """Stop a scheduled task from running, keeping its rule and history (enableScheduledTask
    starts it again)."""
    schedule = selectors.schedule_get(actor=ctx.actor, schedule_id=scheduled_task_id)
    return ScheduleOut.of(schedules.schedule_enable(actor=ctx.actor, schedule=schedule, enabled=False))


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
    """Delete a scheduled task with its run history, for good. The task it ran, and the tasks
    its runs started, stay. To stop it for a while, disableScheduledTask instead."""
    schedule = selectors.schedule_get(actor=ctx.actor, schedule_id=scheduled_task_id)
    task_id = schedule.task_id
    schedules.schedule_delete(actor=ctx.actor, schedule=schedule)
    return DeletedScheduleOut(
        id=scheduled_task_id,
        task=task_id,
        message=f"Scheduled task {scheduled_task_id} deleted; task {task_id} stays.",
    )
