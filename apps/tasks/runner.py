"""How a task runs: it works through its steps in order, one at a time.

`advance` looks at the steps. If one is waiting (for a person or for the service's agent) or in
progress, the task waits on it. Otherwise the first step not yet started starts:

- `manual`: a person does it. The step waits; its assignee is notified. Moving its card to the
  board's last column (or skipping it) finishes it.
- `agent`: the service's agent does it (apps.tasks.agent_steps, through apps.core.agents: the
  message gateway's conversation, paid by the task's `agent_key`). The step waits on the agent
  until it reports the end of its work (`agent_finished`); when it could not be handed over (no
  key chosen, the key revoked, its budget spent) it waits and says why, and `agent_retry` hands
  it over again once a key is chosen. A person may do it instead, or skip it.
- `notify`: the service notifies the step's recipients (default: the task's owner and the people
  it is shared with) with the step's title and instructions, and the step is done.
- `write_file`: the service writes a file into the workspace's files (apps.tasks.files).

When every step is done or skipped the task is completed. Everything is recorded as TaskEvents
of the run (what each step did). All of it runs in the caller's transaction.
"""

import logging
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.accounts.models import person
from apps.core import actors, agents, history
from apps.core.actors import Actor
from apps.core.errors import invalid
from apps.notifications import api as notifications
from apps.tasks import agent_steps, errors, selectors
from apps.tasks.models import ChecklistItem, Task, TaskColumn, TaskEvent, TaskRun, TaskStep
from apps.tasks.permissions import TasksPerm

logger = logging.getLogger(__name__)
Status = Task.Status
StepStatus = TaskStep.Status
ACTIVE = (Status.RUNNING, Status.WAITING, Status.PAUSED)
# Events too small to tell the task's watchers about.
QUIET = {TaskEvent.Kind.CREATED, TaskEvent.Kind.STEP_STARTED}


def require(actor: Actor | None, permission: str) -> None:
    """`actor` None is the service itself: a scheduled run, whose person was checked already."""
    if actor is not None:
        actors.require(actor, permission)


def record(
    task: Task,
    actor: Actor | None,
    kind: str,
    message: str = "",
    *,
    step: TaskStep | None = None,
    run: TaskRun | None = None,
    data: dict[str, Any] | None = None,
) -> TaskEvent:
    """Keeps the event in the task's history (apps.core.history: with the tool call that made
    it, if one did), and tells the task's watchers."""
    event = history.record(
        TaskEvent,
        actor=actor,
        task=task,
        run=run,
        step=step,
        step_title=step.title if step else "",
        kind=kind,
        message=message[:2000],
        data=data or {},
    )
    if kind not in QUIET:
        what = f"{step.title}: {message}" if step and message else (step.title if step else message)
        notifications.entity_changed(entity=task, actor=actor, summary=what or event.get_kind_display())
    return event


def current_run(task: Task) -> TaskRun | None:
    return task.runs.filter(
        status__in=[TaskRun.Status.RUNNING, TaskRun.Status.WAITING, TaskRun.Status.PAUSED]
    ).first()


def columns_of(task: Task) -> list[TaskColumn]:
    return list(task.columns.order_by("position", "id"))


def done_column(task: Task) -> TaskColumn:
    return columns_of(task)[-1]


def first_column(task: Task) -> TaskColumn:
    return columns_of(task)[0]


def _set_task(task: Task, run: TaskRun | None, status: str, waiting_on: str = "") -> None:
    task.status, task.waiting_on = status, waiting_on
    fields = ["status", "waiting_on", "updated_at"]
    if status in (Status.COMPLETED, Status.FAILED):
        task.finished_at = timezone.now()
        fields.append("finished_at")
    task.save(update_fields=fields)
    if run is not None:
        run.status = status
        if status in (Status.COMPLETED, Status.FAILED):
            run.finished_at = task.finished_at
        run.save(update_fields=["status", "finished_at"])


# --- steps ----------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What performing a step came to: done (with what it did), waiting on someone, or failed."""

    message: str
    waiting_on: str = ""
    failed: bool = False
    data: dict[str, Any] | None = None


def _notify_step(task: Task, step: TaskStep, actor: Actor | None) -> Outcome:
    from apps.accounts.models import User

    ids = step.config.get("recipients") or [task.owner_id, *task.shares.values_list("user_id", flat=True)]
    people = User.objects.filter(pk__in=[pk for pk in ids if pk], is_active=True).order_by("email")
    told = [
        person.pk
        for person in people
        # Only those who see the task now (made private, or a share taken back, since the step
        # was written): its title and words go to nobody else.
        if selectors.sees(person, task)
        and notifications.notify(
            recipient=person,
            title=step.title,
            body=step.instructions or task.title,
            actor=actor,
            entity=task,
            kind=notifications.Kind.TASK,
        )
    ]
    if not told:
        return Outcome(
            _("Nobody could be notified (no recipient may see the task and receive notifications)."),
            failed=True,
        )
    # Who, by id in the event's data: messages stay free of personal data.
    return Outcome(
        ngettext("Notified %(n)s person.", "Notified %(n)s people.", len(told)) % {"n": len(told)},
        data={"notified": told},
    )


def _manual_step(task: Task, step: TaskStep, actor: Actor | None) -> Outcome:
    who = _("its assignee") if step.assignee_id else _("a person")
    if step.assignee_id and not selectors.sees(step.assignee, task):
        return Outcome(
            _(
                "Its assignee may not see the task: share it with them (shareTask), or give the step to "
                "someone else."
            ),
            failed=True,
        )
    if step.assignee_id and step.assignee_id != getattr(actor, "pk", None):
        notifications.notify(
            recipient=step.assignee,
            title=_("Step “%(step)s” of “%(task)s” is yours") % {"step": step.title, "task": task.title},
            body=step.instructions,
            actor=actor,
            entity=task,
            kind=notifications.Kind.TASK,
            priority=notifications.Priority.HIGH if task.priority in ("high", "urgent") else "normal",
        )
    return Outcome(
        _("Waiting for %(who)s to do it and move it to “%(done)s”.")
        % {"who": who, "done": done_column(task).name},
        waiting_on=Task.WaitingOn.PERSON,
    )


def _hand_over(
    handler: agents.HandOver, task: Task, step: TaskStep, run: TaskRun | None, actor: Actor | None
) -> agents.HandedOver:
    """The step handed to the agent, told what the task's owner (whom it acts as) may read."""
    brief = agent_steps.brief_of(task=task, step=step, run=run, reader=task.owner)
    return handler.hand_over(
        task=task, step=step, run=run, actor=actor, brief=brief, instead=agent_steps.instead(task)
    )


def _agent_step(task: Task, step: TaskStep, actor: Actor | None, run: TaskRun | None) -> Outcome:
    handler = agents.handler()
    if handler is None:
        return Outcome(
            _(
                "Waiting for the service's agent, which this workspace does not have (the message gateway "
                "is not installed). A person can do the step and move it to “%(done)s”, or skip it."
            )
            % {"done": done_column(task).name},
            waiting_on=Task.WaitingOn.AGENT,
        )
    handed = _hand_over(handler, task, step, run, actor)
    step.agent_conversation = handed.reference or None
    return Outcome(
        handed.message,
        waiting_on=Task.WaitingOn.AGENT,
        data={"conversation": handed.reference} if handed.reference else None,
    )


def _perform(task: Task, step: TaskStep, actor: Actor | None, run: TaskRun | None) -> Outcome:
    step.status, step.started_at, step.result = StepStatus.IN_PROGRESS, timezone.now(), ""
    step.agent_conversation = None
    step.save(update_fields=["status", "started_at", "result", "agent_conversation"])
    record(task, actor, TaskEvent.Kind.STEP_STARTED, step.get_kind_display(), step=step, run=run)
    if step.kind == TaskStep.Kind.NOTIFY:
        return _notify_step(task, step, actor)
    if step.kind == TaskStep.Kind.AGENT:
        return _agent_step(task, step, actor, run)
    if step.kind == TaskStep.Kind.WRITE_FILE:
        from apps.tasks import files

        return files.write_step(task, step, actor)
    return _manual_step(task, step, actor)


def step_finish(
    *,
    task: Task,
    step: TaskStep,
    actor: Actor | None,
    status: str = StepStatus.DONE,
    message: str = "",
    data: dict[str, Any] | None = None,
) -> None:
    """The step is done (or skipped): its card goes to the last column, and the run goes on."""
    run = current_run(task)
    step.status, step.finished_at, step.waiting_on = status, timezone.now(), ""
    step.finished_by = person(actor)
    step.column = done_column(task)
    if message:
        step.result = message[:4000]
    step.save(update_fields=["status", "finished_at", "finished_by", "column", "waiting_on", "result"])
    kind = TaskEvent.Kind.STEP_SKIPPED if status == StepStatus.SKIPPED else TaskEvent.Kind.STEP_DONE
    record(task, actor, kind, message, step=step, run=run, data=data)
    advance(task=task, actor=actor)


def step_fail(
    *, task: Task, step: TaskStep, actor: Actor | None, message: str, data: dict[str, Any] | None = None
) -> None:
    run = current_run(task)
    step.status, step.finished_at, step.result, step.waiting_on = (
        StepStatus.FAILED,
        timezone.now(),
        message,
        "",
    )
    step.save(update_fields=["status", "finished_at", "result", "waiting_on"])
    record(task, actor, TaskEvent.Kind.STEP_FAILED, message, step=step, run=run, data=data)
    _set_task(task, run, Status.FAILED)
    record(task, actor, TaskEvent.Kind.FAILED, _("Step “%(step)s” failed.") % {"step": step.title}, run=run)


def advance(*, task: Task, actor: Actor | None) -> None:
    """Works through the steps while the service can do them itself (see the module's text)."""
    if task.status not in (Status.RUNNING, Status.WAITING):
        return
    run = current_run(task)
    steps = list(selectors.steps_of(task))
    while True:
        busy = next((s for s in steps if s.status in (StepStatus.WAITING, StepStatus.IN_PROGRESS)), None)
        if busy is not None:
            waiting_on = busy.waiting_on or Task.WaitingOn.PERSON
            if task.status != Status.WAITING or task.waiting_on != waiting_on:
                _set_task(task, run, Status.WAITING, waiting_on)
            return
        step = next((s for s in steps if s.status == StepStatus.PENDING), None)
        if step is None:
            _set_task(task, run, Status.COMPLETED)
            record(task, actor, TaskEvent.Kind.COMPLETED, _("Every step is finished."), run=run)
            return
        if task.status != Status.RUNNING:
            _set_task(task, run, Status.RUNNING)
        outcome = _perform(task, step, actor, run)
        if outcome.failed:
            step_fail(task=task, step=step, actor=actor, message=outcome.message)
            return
        if outcome.waiting_on:
            step.status, step.waiting_on, step.result = (
                StepStatus.WAITING,
                outcome.waiting_on,
                outcome.message,
            )
            step.save(update_fields=["status", "waiting_on", "result", "agent_conversation"])
            record(
                task,
                actor,
                TaskEvent.Kind.STEP_WAITING,
                outcome.message,
                step=step,
                run=run,
                data=outcome.data,
            )
            continue
        step.status, step.finished_at, step.result = StepStatus.DONE, timezone.now(), outcome.message
        step.column = done_column(task)
        step.save(update_fields=["status", "finished_at", "result", "column"])
        record(task, actor, TaskEvent.Kind.STEP_DONE, outcome.message, step=step, run=run, data=outcome.data)


# --- the run's life -------------------------------------------------------------------------------


def _not_a_template(task: Task) -> None:
    if task.is_template:
        raise errors.TemplateNotRun(id=task.pk)


def not_archived(task: Task) -> None:
    """An archived task never runs, nor is scheduled: archiveTask brings it back first."""
    if task.archived_at is not None:
        raise errors.TaskArchived(id=task.pk)


def _new_run(task: Task, actor: Actor | None, trigger: str) -> TaskRun:
    number = (task.runs.aggregate(last=Max("number"))["last"] or 0) + 1
    run = TaskRun.objects.create(task=task, number=number, trigger=trigger, started_by=person(actor))
    task.status, task.waiting_on, task.started_at, task.finished_at = Status.RUNNING, "", run.started_at, None
    task.save(update_fields=["status", "waiting_on", "started_at", "finished_at", "updated_at"])
    return run


def task_start(*, actor: Actor | None, task: Task, trigger: str = TaskRun.Trigger.START) -> TaskRun:
    require(actor, TasksPerm.RUN)
    _not_a_template(task)
    not_archived(task)
    if task.status != Status.DRAFT:
        hint = _("resumeTask continues it") if task.status == Status.PAUSED else _("rerunTask runs it again")
        if task.status in (Status.RUNNING, Status.WAITING):
            hint = _("it is running already")
        raise errors.NotADraft(id=task.pk, status=task.status, hint=hint)
    if not task.steps.exists():
        raise invalid("task_id", _("the task has no steps; add some with addTaskStep first"))
    run = _new_run(task, actor, trigger)
    record(task, actor, TaskEvent.Kind.STARTED, _("Run %(n)s started.") % {"n": run.number}, run=run)
    advance(task=task, actor=actor)
    return run


def task_pause(*, actor: Actor, task: Task, reason: str = "") -> None:
    require(actor, TasksPerm.RUN)
    if task.status not in (Status.RUNNING, Status.WAITING):
        raise errors.NotRunning(id=task.pk, status=task.status)
    run = current_run(task)
    _set_task(task, run, Status.PAUSED, task.waiting_on)
    record(task, actor, TaskEvent.Kind.PAUSED, reason, run=run)


def task_resume(*, actor: Actor, task: Task) -> None:
    require(actor, TasksPerm.RUN)
    if task.status != Status.PAUSED:
        raise errors.NotPaused(id=task.pk, status=task.status)
    run = current_run(task)
    _set_task(task, run, Status.RUNNING)
    record(task, actor, TaskEvent.Kind.RESUMED, run=run)
    advance(task=task, actor=actor)
    agent_retry(task=task, actor=actor)


def task_steer(*, actor: Actor, task: Task, guidance: str) -> TaskEvent:
    """Guidance for a running task: kept in its history, shown with its steps, and given to the
    service's agent with every step it takes on from now on."""
    require(actor, TasksPerm.RUN)
    _not_a_template(task)
    if task.status not in ACTIVE:
        raise errors.NotSteerable(id=task.pk, status=task.status)
    if not guidance.strip():
        raise invalid("guidance", _("say what should change"))
    return record(task, actor, TaskEvent.Kind.STEERED, guidance.strip(), run=current_run(task))


def _reset_steps(task: Task, steps: list[TaskStep]) -> None:
    first = first_column(task)
    for step in steps:
        step.status, step.waiting_on, step.result, step.column = StepStatus.PENDING, "", "", first
        step.started_at = step.finished_at = step.finished_by = step.agent_conversation = None
    TaskStep.objects.bulk_update(
        steps,
        [
            "status",
            "waiting_on",
            "result",
            "column",
            "started_at",
            "finished_at",
            "finished_by",
            "agent_conversation",
        ],
    )
    ChecklistItem.objects.filter(step__in=steps).update(done=False, done_by=None, done_at=None)


def task_rerun(*, actor: Actor, task: Task, from_step: TaskStep | None = None) -> TaskRun:
    require(actor, TasksPerm.RUN)
    _not_a_template(task)
    not_archived(task)
    if task.status not in (Status.COMPLETED, Status.FAILED):
        raise errors.NotRerunnable(id=task.pk, status=task.status)
    steps = list(selectors.steps_of(task))
    if from_step is not None:
        steps = steps[[s.pk for s in steps].index(from_step.pk) :]
    _reset_steps(task, steps)
    run = _new_run(task, actor, TaskRun.Trigger.RERUN)
    message = (
        _("Run %(n)s started again from “%(step)s”.") % {"n": run.number, "step": steps[0].title}
        if steps
        else ""
    )
    record(task, actor, TaskEvent.Kind.STARTED, message, run=run)
    advance(task=task, actor=actor)
    return run


def task_revert_to_draft(*, actor: Actor, task: Task) -> None:
    """Back to a draft to change it: an active run ends (kept in the history as reverted), every
    step is not started again and its checklist unticked."""
    require(actor, TasksPerm.EDIT)
    if task.status == Status.DRAFT:
        raise errors.AlreadyDraft(id=task.pk)
    run = current_run(task)
    if run is not None:
        run.status, run.finished_at = TaskRun.Status.REVERTED, timezone.now()
        run.save(update_fields=["status", "finished_at"])
    _reset_steps(task, list(selectors.steps_of(task)))
    task.status, task.waiting_on, task.finished_at = Status.DRAFT, "", None
    task.save(update_fields=["status", "waiting_on", "finished_at", "updated_at"])
    record(task, actor, TaskEvent.Kind.REVERTED, run=run)


def step_skip(*, actor: Actor, task: Task, step: TaskStep, reason: str = "") -> None:
    require(actor, TasksPerm.RUN)
    _not_a_template(task)
    if step.is_finished:
        raise errors.StepFinished(id=step.pk, status=step.status)
    step_finish(task=task, step=step, actor=actor, status=StepStatus.SKIPPED, message=reason or _("skipped"))


def step_reopen(*, actor: Actor, task: Task, step: TaskStep, column: TaskColumn) -> None:
    """A finished step moved back out of the last column: not started, or in progress."""
    if task.status == Status.COMPLETED:
        raise errors.TaskCompleted(id=task.pk)
    first = column.pk == first_column(task).pk
    step.status = StepStatus.PENDING if first else StepStatus.IN_PROGRESS
    step.finished_at = step.finished_by = None
    step.save(update_fields=["status", "finished_at", "finished_by"])
    record(task, actor, TaskEvent.Kind.STEP_REOPENED, column.name, step=step, run=current_run(task))


# --- the agent's steps ----------------------------------------------------------------------------


def _agent_waiting(task: Task) -> TaskStep | None:
    """The agent step the task waits on that was not handed over (no key, a revoked key...)."""
    return (
        TaskStep.objects.filter(
            task=task,
            kind=TaskStep.Kind.AGENT,
            status=StepStatus.WAITING,
            waiting_on=Task.WaitingOn.AGENT,
            agent_conversation__isnull=True,
        )
        .order_by("position", "id")
        .first()
    )


def agent_retry(*, task: Task, actor: Actor) -> bool:
    """Hands the agent step the task waits on over again, when it could not be handed over before
    (a key is chosen now, the budget reset). True when the agent took it on."""
    handler = agents.handler()
    if handler is None or task.status not in (Status.RUNNING, Status.WAITING):
        return False
    step = _agent_waiting(task)
    if step is None:
        return False
    run = current_run(task)
    handed = _hand_over(handler, task, step, run, actor)
    if not handed.reference and handed.message == step.result:
        return False
    step.result, step.agent_conversation = handed.message, handed.reference or None
    step.save(update_fields=["result", "agent_conversation"])
    record(
        task,
        actor,
        TaskEvent.Kind.STEP_WAITING,
        handed.message,
        step=step,
        run=run,
        data={"conversation": handed.reference} if handed.reference else None,
    )
    return bool(handed.reference)


def agent_finished(*, task_id: int, step_id: int, reference: str, done: bool, text: str) -> bool:
    """The end of the agent's work `reference` on a step (apps.tasks.agent_steps.finished): done, the
    step is finished with `text` as its result and the run goes on; failed, the step fails with
    `text`. Run it in a transaction: it locks the task. Idempotent, and it never moves a task
    that changed meanwhile: a step that is no longer waiting on this very work (finished or
    skipped by a person, set back by a rerun or a revert to draft, handed over again) is left
    alone. A paused task gets the step's end recorded but does not go on until it is resumed.
    True when it finished (or failed) the step."""
    task = Task.objects.select_for_update(of=("self",)).filter(pk=task_id).first()
    step = TaskStep.objects.filter(pk=step_id, task_id=task_id).select_related("column").first()
    if (
        task is None
        or step is None
        or task.status not in ACTIVE
        or step.kind != TaskStep.Kind.AGENT
        or step.status not in (StepStatus.WAITING, StepStatus.IN_PROGRESS)
        or step.waiting_on != Task.WaitingOn.AGENT
        or str(step.agent_conversation or "") != reference
    ):
        logger.info("agent's work %s on step %s of task %s: nothing to finish", reference, step_id, task_id)
        return False
    data = {"conversation": reference}
    if done:
        step_finish(task=task, step=step, actor=None, message=text or _("done"), data=data)
    else:
        step_fail(
            task=task,
            step=step,
            actor=None,
            message=text or _("The service's agent could not do it."),
            data=data,
        )
    logger.info("step %s of task %s %s by the agent's work %s", step_id, task_id, step.status, reference)
    return True


def agent_steps_sweep(*, limit: int = 200) -> int:
    """The steps waiting on the agent's work whose end was not reported (a broker that did not
    answer): asks the handler how each ended and finishes those that did. Returns how many."""
    handler = agents.handler()
    if handler is None:
        return 0
    waiting = TaskStep.objects.filter(
        kind=TaskStep.Kind.AGENT,
        status__in=[StepStatus.WAITING, StepStatus.IN_PROGRESS],
        waiting_on=Task.WaitingOn.AGENT,
        agent_conversation__isnull=False,
        task__status__in=ACTIVE,
    ).values_list("task_id", "pk", "agent_conversation")[:limit]
    finished = 0
    for task_id, step_id, reference in list(waiting):
        outcome = handler.outcome(reference=str(reference))
        if outcome is None:
            continue
        with transaction.atomic():
            finished += agent_finished(
                task_id=task_id,
                step_id=step_id,
                reference=str(reference),
                done=outcome.done,
                text=outcome.text,
            )
    return finished


# --- done with it, or put away --------------------------------------------------------------------


def task_complete(*, actor: Actor, task: Task, note: str = "") -> list[TaskStep]:
    """Done with the task, whatever its steps: each step not finished is skipped (recorded so,
    never as done: a person's or the agent's work not done is not said to be), and the task and its
    run are completed. A step handed to the agent is left to its conversation, whose end no longer
    finishes it. A draft completes without a run. Its schedule, if it has one, goes on: each
    occurrence is a new copy (disableScheduledTask stops it). The skipped steps, in order."""
    require(actor, TasksPerm.RUN)
    _not_a_template(task)
    if task.status == Status.COMPLETED:
        raise errors.AlreadyCompleted(id=task.pk)
    run = current_run(task)
    reason = note or _("skipped: the task was completed")
    skipped = [step for step in selectors.steps_of(task) if not step.is_finished]
    last = done_column(task)
    for step in skipped:
        step.status, step.finished_at, step.waiting_on = StepStatus.SKIPPED, timezone.now(), ""
        step.finished_by, step.column, step.result = person(actor), last, reason[:4000]
        step.save(update_fields=["status", "finished_at", "finished_by", "column", "waiting_on", "result"])
        record(task, actor, TaskEvent.Kind.STEP_SKIPPED, reason, step=step, run=run)
    _set_task(task, run, Status.COMPLETED)
    message = ngettext(
        "Completed, %(n)s step not finished skipped.",
        "Completed, %(n)s steps not finished skipped.",
        len(skipped),
    ) % {"n": len(skipped)}
    record(task, actor, TaskEvent.Kind.COMPLETED, f"{message} {note}".strip(), run=run)
    return skipped
