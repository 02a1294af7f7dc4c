"""Reads about tasks beyond what the access model gives (apps.core.records:
`Task.objects.restrict(actor, "view")`, `Task.objects.fetch(actor, id, "change")`).

A task (or template) is visible to people whose role allows tasks.view when it is visible to the
workspace, or when they own it, or it is shared with them; tasks.admin sees every task. Anything
else is "not found" (the same answer as an id that does not exist, or one of another workspace).
"""

from typing import Any

from django.db.models import QuerySet

from apps.core.actors import Actor
from apps.tasks import errors
from apps.tasks.models import Task, TaskStep


def task_for_change(*, actor: Actor, task_id: int) -> Task:
    """A task the actor may change and run, locked for the rest of the transaction."""
    return Task.objects.select_related("owner").fetch(actor, task_id, "change", lock=True)


def step_get(*, task: Task, step_id: int) -> TaskStep:
    step = TaskStep.objects.select_related("column", "assignee").filter(task=task, pk=step_id).first()
    if step is None:
        raise errors.StepNotFound(step=step_id, task=task.pk)
    return step


def steps_of(task: Task) -> QuerySet[TaskStep]:
    return TaskStep.objects.filter(task=task).select_related("column", "assignee").order_by("position", "id")


def sees(someone: Any, task: Task) -> bool:
    """Whether `someone` may see `task` (its steps' people are told only of a task they see)."""
    return bool(Task.objects.restrict(someone).filter(pk=task.pk).exists())
