"""Reads about tasks, filtered to what the actor may see.

A task (or template) is visible to people whose role allows tasks.view when it is visible to the
workspace, or when they own it, or it is shared with them; tasks.admin sees every task. Anything
else is "not found" (the same answer as an id that does not exist, or one of another workspace).
"""

from typing import Any

from django.db.models import QuerySet

from apps.accounts.access import can
from apps.core import sharing
from apps.tasks import errors
from apps.tasks.models import ScheduledTask, Task, TaskShare, TaskStep
from apps.tasks.permissions import TasksPerm


def task_visible(*, actor: Any) -> QuerySet[Task]:
    if not can(actor, TasksPerm.VIEW):
        return Task.objects.none()
    return sharing.visible(Task.objects.all(), TaskShare, actor, admin=can(actor, TasksPerm.ADMIN))


def task_get(*, actor: Any, task_id: int) -> Task:
    task = task_visible(actor=actor).select_related("owner").filter(pk=task_id).first()
    if task is None:
        raise errors.TaskNotFound(task_id)
    return task


def access_of(actor: Any, task: Task) -> str:
    """What `actor` may do with a task they can see: admin, owner, edit or view."""
    return sharing.access_of(
        task, actor, admin=can(actor, TasksPerm.ADMIN), can_edit=can(actor, TasksPerm.EDIT)
    )


def task_get_for_edit(*, actor: Any, task_id: int) -> Task:
    """A task the actor may change and run, locked for the rest of the transaction."""
    task = task_get(actor=actor, task_id=task_id)
    if access_of(actor, task) == "view":
        raise errors.TaskReadOnly(task_id)
    return Task.objects.select_for_update(of=("self",)).select_related("owner").get(pk=task.pk)


def step_get(*, task: Task, step_id: int) -> TaskStep:
    step = TaskStep.objects.select_related("column", "assignee").filter(task=task, pk=step_id).first()
    if step is None:
        raise errors.StepNotFound(step_id, task.pk)
    return step


def steps_of(task: Task) -> QuerySet[TaskStep]:
    return TaskStep.objects.filter(task=task).select_related("column", "assignee").order_by("position", "id")


def schedule_visible(*, actor: Any) -> QuerySet[ScheduledTask]:
    return ScheduledTask.objects.filter(task__in=task_visible(actor=actor)).select_related(
        "task", "created_by"
    )


def schedule_get(*, actor: Any, schedule_id: int) -> ScheduledTask:
    schedule = schedule_visible(actor=actor).filter(pk=schedule_id).first()
    if schedule is None:
        raise errors.ScheduleNotFound(schedule_id)
    return schedule
