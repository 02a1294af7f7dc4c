"""The Tasks area's public module: what other areas may use of it. Nothing else of apps.tasks is
theirs to import.

Another area that breaks work into tasks (the Personal Assistant's goals) makes them with
`create(...)`, the Tasks area's own create service (the actor's permission checked, the task's
history and watchers as for one made by hand), and reads them back with `seen(...)`: the tasks of
those ids the actor may see, as `TaskSummary` rows (a task they may not see is left out).
"""

from dataclasses import dataclass
from datetime import datetime

from apps.core.actors import Actor
from apps.tasks import services
from apps.tasks.models import Task

__all__ = ["PRIORITIES", "TaskSummary", "create", "seen"]

PRIORITIES = tuple(Task.Priority.values)


@dataclass(frozen=True)
class TaskSummary:
    id: int
    title: str
    status: str
    priority: str
    due_at: datetime | None
    completed: bool


def _summary(task: Task) -> TaskSummary:
    return TaskSummary(
        id=task.pk,
        title=task.title,
        status=task.status,
        priority=task.priority,
        due_at=task.due_at,
        completed=task.status == Task.Status.COMPLETED,
    )


def create(
    *,
    actor: Actor,
    title: str,
    description: str = "",
    priority: str = "normal",
    due_at: datetime | None = None,
    visibility: str = "private",
) -> TaskSummary:
    """A new task of the actor's, made by the Tasks area's create service."""
    task = services.task_create(
        actor=actor,
        fields={
            "title": title,
            "description": description,
            "priority": priority,
            "due_at": due_at,
            "visibility": visibility,
        },
    )
    return _summary(task)


def seen(*, actor: Actor, ids: list[int]) -> dict[int, TaskSummary]:
    """The tasks of `ids` the actor may see, by id."""
    rows = Task.objects.restrict(actor, "view").filter(pk__in=ids)
    return {task.pk: _summary(task) for task in rows}
