"""Scheduled tasks: a task run again at each occurrence of an RFC 5545 recurrence rule.

The rule is an RRULE value ("FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0"), read by
python-dateutil's rrule from `starts_at`, in the schedule's time zone (so "9:00 every Monday"
stays 9:00 across daylight-saving changes). `next_run_at` is the due time: the Celery beat
sweeper (`apps.tasks.tasks.run_due_scheduled_tasks`, every minute) visits every workspace and,
for each due schedule, copies the task into a new one and starts it, as the person who made the
schedule, and records the run (`ScheduledRun`). Occurrences missed while nothing ran (the
service was down) are counted in that run, not each run late.
"""

import logging
from datetime import datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core import recurrence
from apps.core.actors import Actor, can
from apps.core.errors import invalid
from apps.tasks import errors, runner, selectors
from apps.tasks.models import ScheduledRun, ScheduledTask, Task, TaskEvent, TaskRun
from apps.tasks.permissions import TasksPerm
from apps.tasks.runner import record, require

logger = logging.getLogger(__name__)

# The sweeper runs every minute; a rule more frequent than this is refused.
SHORTEST_INTERVAL = timedelta(minutes=15)
# How many due schedules one sweep of one workspace takes on (the rest wait a minute).
SWEEP_BATCH = 200


def parse_rule(text: str, *, starts_at: datetime, zone: ZoneInfo) -> str:
    """The canonical form of an RRULE value that recurs from `starts_at` (read in `zone`); a
    ValidationFailed naming what is wrong when it does not parse or fires too often."""
    start = starts_at.astimezone(zone).replace(microsecond=0)
    canonical = recurrence.normalise_rule(text, start=start, zone=zone, field="schedule.rrule")
    # The closest two of the first occurrences (BYMINUTE=0,10 is 50 minutes, then 10).
    starts = recurrence.occurrences(
        canonical,
        start=start,
        duration=timedelta(0),
        zone=zone,
        window_start=start,
        window_end=start + timedelta(days=800),
        limit=100,
    )
    if any(later - earlier < SHORTEST_INTERVAL for earlier, later in pairwise(starts)):
        raise invalid("schedule.rrule", _("runs at most every 15 minutes"))
    return canonical


def occurrence_after(schedule: ScheduledTask, moment: datetime) -> datetime | None:
    found = recurrence.next_start(
        schedule.rrule, start=schedule.starts_at, zone=ZoneInfo(schedule.time_zone), after=moment
    )
    return found.astimezone(ZoneInfo("UTC")) if found else None


def upcoming(schedule: ScheduledTask, count: int = 5) -> list[datetime]:
    found: list[datetime] = []
    moment = schedule.next_run_at
    while moment is not None and len(found) < count:
        found.append(moment)
        moment = occurrence_after(schedule, moment)
    return found


# --- set, enable, disable, delete ------------------------------------------------------------------


def schedule_set(
    *, actor: Actor, task: Task, rule: str, starts_at: datetime | None = None, time_zone: str | None = None
) -> ScheduledTask:
    """Schedules `task` (or changes its schedule): each occurrence runs a copy of it."""
    require(actor, TasksPerm.SCHEDULE)
    task = selectors.task_for_change(actor=actor, task_id=task.pk)
    runner.not_archived(task)
    zone = recurrence.zone_named(time_zone, field="schedule.time_zone")
    now = timezone.now()
    start = starts_at or now
    if start.tzinfo is None:
        start = start.replace(tzinfo=zone)
    canonical = parse_rule(rule, starts_at=start, zone=zone)
    schedule = ScheduledTask.objects.filter(task=task).first() or ScheduledTask(
        task=task, created_by=person(actor)
    )
    schedule.rrule = canonical
    schedule.starts_at, schedule.time_zone = start, zone.key
    schedule.enabled, schedule.disabled_reason = True, ""
    schedule.next_run_at = occurrence_after(schedule, max(now, start) - timedelta(seconds=1))
    if schedule.next_run_at is None:
        raise invalid("schedule.rrule", _("the rule has no occurrence from now on"))
    schedule.save()
    record(task, actor, TaskEvent.Kind.SCHEDULE_CHANGED, f"{schedule.rrule} ({schedule.time_zone})")
    logger.info("schedule %s of task %s set by %s", schedule.pk, task.pk, actor.pk)
    return schedule


def schedule_enable(*, actor: Actor, schedule: ScheduledTask, enabled: bool) -> ScheduledTask:
    """Enabling starts from the next occurrence after now (missed ones are not caught up)."""
    require(actor, TasksPerm.SCHEDULE)
    task = selectors.task_for_change(actor=actor, task_id=schedule.task_id)
    schedule = ScheduledTask.objects.select_for_update().get(pk=schedule.pk)
    if schedule.enabled == enabled:
        return schedule
    if enabled:
        runner.not_archived(task)
        # From now, and never an occurrence that already ran.
        following = occurrence_after(schedule, max(timezone.now(), schedule.last_run_at or timezone.now()))
        if following is None:
            raise errors.NoMoreOccurrences(id=schedule.pk)
        schedule.next_run_at, schedule.disabled_reason = following, ""
    schedule.enabled = enabled
    schedule.save()
    record(
        task,
        actor,
        TaskEvent.Kind.SCHEDULE_CHANGED,
        _("schedule enabled") if enabled else _("schedule disabled"),
    )
    return schedule


def schedule_delete(*, actor: Actor, schedule: ScheduledTask) -> None:
    """Deletes the schedule and its history; the task itself stays."""
    require(actor, TasksPerm.DELETE)
    task = selectors.task_for_change(actor=actor, task_id=schedule.task_id)
    record(task, actor, TaskEvent.Kind.SCHEDULE_CHANGED, _("schedule deleted"))
    logger.info("schedule %s of task %s deleted by %s", schedule.pk, task.pk, actor.pk)
    schedule.delete()


# --- running what is due -------------------------------------------------------------------------


def _run_one(schedule: ScheduledTask, now: datetime) -> ScheduledRun:
    due = schedule.next_run_at
    assert due is not None
    missed = 0
    following = occurrence_after(schedule, due)
    while following is not None and following <= now:
        missed += 1
        following = occurrence_after(schedule, following)
    schedule.next_run_at, schedule.last_run_at = following, now
    schedule.run_count += 1
    person = schedule.created_by
    run = ScheduledRun(schedule=schedule, due_at=due, ran_at=now, missed=missed)
    problem = None
    if person is None or not person.is_active:
        problem = _("the person who scheduled it is no longer in the workspace")
    elif not (can(person, TasksPerm.CREATE) and can(person, TasksPerm.RUN)):
        problem = _("the person who scheduled it may no longer create and run tasks")
    if problem:
        run.status, run.message = ScheduledRun.Status.FAILED, problem
        schedule.enabled, schedule.disabled_reason = False, problem
    else:
        from apps.tasks import services

        assert person is not None  # no problem: the person is there
        label = due.astimezone(ZoneInfo(schedule.time_zone)).strftime("%Y-%m-%d %H:%M")
        # Due as far after its occurrence as the task is after the schedule's first one: a weekly
        # report due each Friday, not every copy on the first Friday.
        first = occurrence_after(schedule, schedule.starts_at - timedelta(seconds=1))
        source_due = schedule.task.due_at
        copy = services.task_copy(
            actor=person,
            source=schedule.task,
            title=f"{schedule.task.title} · {label}"[:200],
            due_at=source_due + (due - first) if source_due is not None and first is not None else None,
        )
        # Started by the service, so the owner hears of it like any watcher.
        runner.task_start(actor=None, task=copy, trigger=TaskRun.Trigger.SCHEDULE)
        copy.refresh_from_db()
        run.task, run.status = copy, ScheduledRun.Status.STARTED
        run.message = _("Started task %(id)s (%(status)s).") % {
            "id": copy.pk,
            "status": copy.get_status_display(),
        }
    if schedule.next_run_at is None and schedule.enabled:
        schedule.enabled, schedule.disabled_reason = False, _("the rule has no more occurrences")
    schedule.save()
    run.save()
    return run


def run_due(now: datetime | None = None) -> int:
    """Runs every due schedule of the current workspace, each in its own transaction (a failing
    one is recorded and does not stop the others). Returns how many ran."""
    now = now or timezone.now()
    due = list(
        ScheduledTask.objects.filter(enabled=True, next_run_at__lte=now)
        .order_by("next_run_at")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    ran = 0
    for pk in due:
        try:
            with transaction.atomic():
                # Another sweeper (a second beat, a slow worker) may hold it: leave it to them.
                schedule = (
                    ScheduledTask.objects.select_for_update(skip_locked=True, of=("self",))
                    .select_related("task", "created_by")
                    .filter(pk=pk, enabled=True, next_run_at__lte=now)
                    .first()
                )
                if schedule is None:
                    continue
                _run_one(schedule, now)
                ran += 1
        except Exception as error:
            logger.exception("scheduled task %s could not run", pk)
            _record_failure(pk, now, error)
    return ran


def _record_failure(pk: int, now: datetime, error: Exception) -> None:
    with transaction.atomic():
        schedule = ScheduledTask.objects.select_for_update().filter(pk=pk).first()
        if schedule is None or schedule.next_run_at is None:
            return
        due = schedule.next_run_at
        schedule.next_run_at = occurrence_after(schedule, now)
        schedule.last_run_at = now
        schedule.save(update_fields=["next_run_at", "last_run_at", "updated_at"])
        message = getattr(error, "message", None) or _("an error on the server")
        ScheduledRun.objects.create(
            schedule=schedule,
            due_at=due,
            ran_at=now,
            status=ScheduledRun.Status.FAILED,
            message=str(message)[:500],
        )
