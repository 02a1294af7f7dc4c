"""Personal data of tasks (docs/privacy.md).

Tasks are the workspace's work. Rows that point at a person (the tasks they own or created, the
steps assigned to them, what they did in the history) are exported as theirs; erasing the person
keeps the rows and sets those links to null (the foreign keys are SET_NULL when the user row,
erased last, goes). Their private tasks are the exception: archived first (never run again), then
deleted with their steps, runs and history; a private task of someone else's that they created
stays. Their shares go. Links from steps to a record about a person (a contact) go with that
person's data, with the title kept beside them. Messages in the history name people by id only.
"""

from django.db.models import Q, QuerySet
from django.utils import timezone

from apps.core import privacy, sharing
from apps.core.kinds import links_about_person
from apps.tasks.models import (
    ChecklistItem,
    ScheduledRun,
    ScheduledTask,
    Task,
    TaskColumn,
    TaskEvent,
    TaskRun,
    TaskShare,
    TaskStep,
    TaskStepLink,
)


def kept(rows: QuerySet) -> int:
    """The workspace keeps these rows; the person's links to them go with their user row."""
    return 0


def _user(subject: privacy.Subject, *paths: str) -> Q:
    if subject.user is None:
        return Q(pk__in=[])
    condition = Q(pk__in=[])
    for path in paths:
        condition |= Q(**{path: subject.user})
    return condition


def _archive_private(rows: QuerySet[Task]) -> int:
    """The soft delete of the person's private tasks: put away, their schedules stopped."""
    private = rows.filter(visibility=Task.Visibility.PRIVATE, archived_at__isnull=True)
    ScheduledTask.objects.filter(task__in=private).update(enabled=False)
    return private.update(archived_at=timezone.now())


privacy.register(
    Task,
    user="owner",
    mentions=lambda s: Task._base_manager.filter(_user(s, "created_by")),
    soft_delete=_archive_private,
    erase=sharing.erase_owned,
    order=50,
)
privacy.register(
    TaskStep, find=lambda s: TaskStep.objects.filter(_user(s, "assignee", "finished_by")), erase=kept
)
privacy.register(ChecklistItem, user="done_by", erase=kept)
privacy.register(TaskRun, user="started_by", erase=kept)
privacy.register(TaskEvent, user="actor", erase=kept)
privacy.register(ScheduledTask, user="created_by", erase=kept)
privacy.register(TaskShare, user="user")
privacy.register(TaskStepLink, find=lambda s: TaskStepLink.objects.filter(links_about_person(s.email)))
privacy.not_personal(TaskColumn, reason="the names of a board's columns")
privacy.not_personal(ScheduledRun, reason="when a schedule ran and the task it started, by id")
