"""Tasks as people import them from a spreadsheet (a to-do list), and export them
(apps.core.transfer): each row made as createTask makes a draft (`task_create`: the default board,
its history, the importer its owner and a watcher), checked first by `task_check`, the same
cleaning without writing. A row holds the task itself; its steps are added after (addTaskStep),
as a task made by hand without steps.

Two rows are one task when they share a title (case and spaces aside), and a task of that title
the importer sees that is still to be done (not completed, failed or archived; templates aside)
is a duplicate, left out: a task done is the past, and the same work again is a new task.

An export holds the tasks the person may read (a private task of someone else never, unless it
is shared with them), templates aside, archived ones with the day they were archived."""

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.core import transfer
from apps.core.transfer import Column
from apps.tasks import services
from apps.tasks.models import Task
from apps.tasks.permissions import TasksPerm

COLUMNS = (
    Column("title", "title", "what the task is", parse=transfer.limited("title", 200)),
    Column("description", "description", parse=transfer.limited("description", 10_000)),
    Column("instructions", "instructions", parse=transfer.limited("instructions", 20_000)),
    Column(
        "priority",
        "priority",
        "low, normal (the default), high or urgent",
        parse=transfer.choice("priority", Task.Priority.values),
    ),
    Column(
        "dueAt",
        "due_at",
        "YYYY-MM-DD or YYYY-MM-DDTHH:MM, in the workspace's time zone unless one is given",
        parse=transfer.moment("due_at"),
    ),
    Column(
        "visibility",
        "visibility",
        "workspace (the default) or private",
        parse=transfer.choice("visibility", Task.Visibility.values),
    ),
)


def check(actor: Any, fields: dict[str, Any]) -> None:
    services.task_check(actor=actor, fields=fields)


def create(actor: Any, fields: dict[str, Any]) -> int:
    return services.task_create(actor=actor, fields=fields).pk


SAME = transfer.SameName(
    "title",
    lambda actor: (
        Task.objects.restrict(actor, "view")
        .filter(is_template=False, archived_at__isnull=True)
        .exclude(status__in=(Task.Status.COMPLETED, Task.Status.FAILED))
    ),
)


transfer.importable(
    transfer.Importable(
        kind="task",
        label=_("Task"),
        permission=TasksPerm.CREATE,
        columns=COLUMNS,
        check=check,
        create=create,
        keys=SAME.keys,
        existing=SAME.existing,
        description="title: a task of the same title still to be done, case and spaces aside",
    )
)


# An export's columns are the import's, after the task's id, then what an import does not set: a
# file exported, those columns removed, imports again.
transfer.exportable(
    transfer.Exportable(
        kind="task",
        label=_("Task"),
        permission=TasksPerm.VIEW,
        columns=(
            ("id", lambda task: task.pk),
            *((column.name, lambda task, field=column.field: getattr(task, field)) for column in COLUMNS),
            ("status", lambda task: task.status),
            ("ownerEmail", lambda task: task.owner.email if task.owner else ""),
            ("createdAt", lambda task: task.created_at),
            ("finishedAt", lambda task: task.finished_at),
            ("archivedAt", lambda task: task.archived_at),
        ),
        rows=lambda actor: (
            Task.objects.restrict(actor, "view")
            .filter(is_template=False)
            .select_related("owner")
            .order_by("id")
        ),
        search=("title", "description"),
    )
)
