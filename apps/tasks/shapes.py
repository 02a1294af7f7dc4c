"""What the task tools answer (camelCase JSON; apps.catalogue.shapes.Out)."""

from datetime import datetime
from typing import Any, Self

from django.db.models import Count, Q
from pydantic import Field

from apps.catalogue.shapes import EntityOut, Out, PersonRef, ShareOut
from apps.core import spending
from apps.core.actors import Actor
from apps.tasks import runner, schedules, selectors
from apps.tasks.models import ScheduledTask, Task, TaskEvent, TaskStep


class TaskRef(Out):
    id: int
    title: str
    is_template: bool
    status: str


class Progress(Out):
    done: int
    total: int


class StepSummary(Out):
    id: int
    position: int
    title: str
    kind: str
    status: str
    waiting_on: str
    column: str
    assignee: PersonRef | None
    due_at: datetime | None
    labels: list[str]
    checklist: Progress
    links: int
    # Agent steps: the gateway conversation doing it (its owner follows it with GET /api/agent/{uuid}).
    agent_conversation: str | None

    @classmethod
    def of(cls, step: TaskStep, **given: Any) -> Self:
        """`given`: the fields of a fuller shape (StepDetailOut) the step holds as they are."""
        return cls.of_record(
            step,
            position=step.position + 1,
            column=step.column.name,
            checklist=Progress(done=getattr(step, "items_done", 0), total=getattr(step, "items", 0)),
            links=getattr(step, "link_count", 0),
            agent_conversation=str(step.agent_conversation) if step.agent_conversation else None,
            **given,
        )


def counted_steps(task: Task) -> list[TaskStep]:
    return list(
        selectors.steps_of(task).annotate(
            items=Count("checklist", distinct=True),
            items_done=Count("checklist", filter=Q(checklist__done=True), distinct=True),
            link_count=Count("links", distinct=True),
        )
    )


class ColumnOut(Out):
    name: str
    position: int
    finished_steps_go_here: bool
    steps: list[StepSummary]


class RunOut(Out):
    number: int
    trigger: str
    status: str
    started_by: PersonRef | None
    started_at: datetime
    finished_at: datetime | None


class EventOut(Out):
    id: int
    at: datetime
    kind: str
    actor: PersonRef | None = Field(description="null: the service")
    step_id: int | None
    step_title: str
    run: int | None
    message: str

    @classmethod
    def of(cls, event: TaskEvent) -> "EventOut":
        return cls.of_record(event, run=event.run.number if event.run is not None else None)


class ScheduleOut(Out):
    id: int
    task: TaskRef
    rrule: str
    starts_at: datetime
    time_zone: str
    enabled: bool
    disabled_reason: str
    next_run_at: datetime | None
    upcoming: list[datetime]
    last_run_at: datetime | None
    run_count: int
    created_by: PersonRef | None  # runs act as this person

    @classmethod
    def of(cls, schedule: ScheduledTask) -> "ScheduleOut":
        return cls.of_record(schedule, upcoming=schedules.upcoming(schedule) if schedule.enabled else [])


class ScheduledRunOut(Out):
    id: int
    due_at: datetime
    ran_at: datetime
    status: str = Field(description="started or failed")
    missed: int = Field(description="Occurrences missed before this one")
    message: str
    task: TaskRef | None = Field(description="The task it started, as it is now")


def waiting_for(task: Task, steps: list[TaskStep]) -> str:
    """What a waiting task waits for, in a sentence (empty when it does not wait)."""
    if task.status not in (Task.Status.WAITING, Task.Status.PAUSED):
        return ""
    step = next(
        (s for s in steps if s.status in (TaskStep.Status.WAITING, TaskStep.Status.IN_PROGRESS)), None
    )
    if step is None:
        return ""
    paused = "Paused. " if task.status == Task.Status.PAUSED else ""
    if step.waiting_on == Task.WaitingOn.PERSON or step.status == TaskStep.Status.IN_PROGRESS:
        who = step.assignee.email if step.assignee is not None else "a person"
        doing = "do it" if step.status == TaskStep.Status.WAITING else "finish it"
        what = f"Waiting for {who} to {doing} and move it to “{runner.done_column(task).name}”."
    else:
        what = step.result or step.get_status_display()
    return f"{paused}Step {step.position + 1} “{step.title}”: {what}"


class TaskSummary(Out):
    id: int
    title: str
    is_template: bool
    status: str
    waiting_on: str
    priority: str
    due_at: datetime | None
    owner: PersonRef | None
    visibility: str
    updated_at: datetime
    archived_at: datetime | None


class AgentKeyOut(Out):
    id: int
    label: str
    status: str

    @classmethod
    def of(cls, task: Task) -> "AgentKeyOut | None":
        key = spending.keys().key_of(key_id=task.agent_key_id) if task.agent_key_id else None
        return cls.of_record(key) if key else None


class GuidanceOut(Out):
    at: datetime
    by: PersonRef | None
    text: str


class TaskOut(TaskSummary):
    description: str
    instructions: str
    waiting_for: str
    your_access: str
    shared_with: list[ShareOut]
    template: TaskRef | None
    copied_from: TaskRef | None
    progress: Progress  # steps done or skipped, of all
    columns: list[ColumnOut]
    current_run: RunOut | None
    runs: int
    guidance: list[GuidanceOut]  # steerTask's, newest first (10)
    agent_key: AgentKeyOut | None  # pays for the agent's steps
    schedule: ScheduleOut | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None

    @classmethod
    def of(cls, task: Task, actor: Actor) -> "TaskOut":
        steps = counted_steps(task)
        steered = task.events.filter(kind=TaskEvent.Kind.STEERED).select_related("actor")[:10]
        schedule = ScheduledTask.objects.filter(task=task).select_related("task", "created_by").first()
        # The task it was made from, only for a reader who may see that one (made private since,
        # its title is not theirs to read).
        sources = {pk for pk in (task.template_id, task.copied_from_id) if pk}
        seen = set(Task.objects.restrict(actor).filter(pk__in=sources).values_list("pk", flat=True))
        return cls.of_record(
            task,
            template=TaskRef.of_record(task.template) if task.template_id in seen else None,
            copied_from=TaskRef.of_record(task.copied_from) if task.copied_from_id in seen else None,
            waiting_for=waiting_for(task, steps),
            your_access=Task.access.level(actor, task),
            shared_with=ShareOut.many(task.shares.select_related("user")),
            progress=Progress(done=sum(1 for s in steps if s.is_finished), total=len(steps)),
            columns=board_of(task, steps),
            current_run=runner.current_run(task),
            runs=task.runs.count(),
            guidance=[GuidanceOut.of_record(event, by=event.actor, text=event.message) for event in steered],
            agent_key=AgentKeyOut.of(task),
            schedule=ScheduleOut.of(schedule) if schedule else None,
        )


def board_of(task: Task, steps: list[TaskStep]) -> list[ColumnOut]:
    columns = runner.columns_of(task)
    return [
        ColumnOut(
            name=column.name,
            position=index + 1,
            finished_steps_go_here=index == len(columns) - 1,
            steps=[StepSummary.of(step) for step in steps if step.column_id == column.pk],
        )
        for index, column in enumerate(columns)
    ]


class ChecklistItemOut(Out):
    id: int
    text: str
    done: bool
    done_by: PersonRef | None
    done_at: datetime | None


class StepDetailOut(StepSummary):
    task_id: int
    instructions: str
    notes: str
    result: str = Field(description="What it did or waits for, last time it ran")
    notify: list[PersonRef] = Field(description="Empty: the owner and sharees")
    file: dict[str, str] | None = Field(description="write_file steps: name, text, folder")
    checklist_items: list[ChecklistItemOut]
    linked: list[EntityOut]
    started_at: datetime | None
    finished_at: datetime | None
    finished_by: PersonRef | None
    history: list[EventOut] = Field(description="Newest first (50)")

    @classmethod
    def of(cls, step: TaskStep, actor: Actor) -> "StepDetailOut":  # type: ignore[override]
        from apps.accounts.models import User

        items = list(step.checklist.select_related("done_by"))
        # What StepSummary reads of a step its list counted in the query (counted_steps).
        step.items, step.items_done, step.link_count = (  # type: ignore[attr-defined]
            len(items),
            sum(i.done for i in items),
            step.links.count(),
        )
        recipients = User.objects.filter(pk__in=step.config.get("recipients") or []).order_by("email")
        events = step.events.select_related("actor", "run")[:50]
        return super().of(
            step,
            notify=list(recipients),
            file=step.config.get("file"),
            checklist_items=items,
            linked=[EntityOut.checked(link, actor) for link in step.links.all()],
            history=[EventOut.of(event) for event in events],
        )
