"""Tasks for tests, made through the service as a person makes them (apps.core.factories):
`TaskFactory(actor=people["member"], title="Backups", steps=[{"title": "Tell", "kind": "notify"}])`.
`steps` (two manual steps, the first with a checklist, unless given) and `is_template` go to
task_create beside the task; every other keyword is a field of the task."""

from typing import Any

import factory

from apps.catalogue.testing import listed, ok
from apps.core import factories, kinds
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered
from apps.core.sharing import change
from apps.tasks import services
from apps.tasks.models import Task


def _create(*, actor: Any, fields: dict[str, Any]) -> Task:
    steps, is_template = fields.pop("steps"), fields.pop("is_template")
    return services.task_create(actor=actor, fields=fields, steps=steps, is_template=is_template)


class TaskFactory(ServiceFactory):
    class Meta:
        model = Task

    title = numbered(fake.bs, " ")
    steps = factory.LazyFunction(
        lambda: [{"title": "Draft the letter", "checklist": ["greeting", "signature"]}, {"title": "Send it"}]
    )
    is_template = False
    _service = staticmethod(_create)


class TemplateFactory(TaskFactory):
    """A task template: what createTaskFromTemplate copies."""

    title = numbered(fake.bs, " template ")
    is_template = True


def _tasks(people: dict[str, Any]) -> tuple[Task, Task, Task, Task]:
    """A private task of the member's, one of the owner's, one the owner shares with the member,
    and one everyone sees."""
    member, owner = people["member"], people["owner"]
    shared = TaskFactory(actor=owner, visibility="private")
    change(shared, actor=owner, person_email=member.email, access="view", visibility=None)
    mine = TaskFactory(actor=member, visibility="private")
    theirs = TaskFactory(actor=owner, visibility="private")
    return mine, theirs, shared, TaskFactory(actor=member)


@access_rows("tasks.Task")
def _task_rows(people: dict[str, Any]) -> AccessRows:
    mine, theirs, shared, everyone = _tasks(people)
    return AccessRows(
        own={"member": [mine, shared], "owner": [theirs, shared]},
        everyone=[everyone],
        listed=lambda person: listed(person, "listTasks", {"limit": 100}),
    )


@access_rows("tasks.ScheduledTask")
def _scheduled(people: dict[str, Any]) -> AccessRows:
    """The schedules of those tasks, each set by the task's owner."""
    from apps.tasks import schedules

    def scheduled(task: Task) -> Any:
        return schedules.schedule_set(actor=task.owner, task=task, rule="FREQ=WEEKLY")

    mine, theirs, shared, everyone = (scheduled(task) for task in _tasks(people))
    return AccessRows(
        own={"member": [mine, shared], "owner": [theirs, shared]},
        everyone=[everyone],
        listed=lambda person: listed(person, "listScheduledTasks", {"limit": 100}),
    )


@factories.privacy_rows("tasks")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private task and template, and a file combined from a private one."""
    from apps.files.tests.factories import FileFactory
    from apps.tasks.files import files_combine

    owner = people["owner"]
    steps = [{"title": f"{marker} step", "checklist": [f"{marker} item"]}]
    for template in (False, True):
        task = TaskFactory(
            actor=owner,
            title=f"{marker} task",
            description=f"{marker} description",
            steps=steps,
            is_template=template,
            visibility="private",
        )
        rows.add("taskId", "templateId", "entityId", record=task)
        rows.add("stepId", record=task.steps.first())
    hidden = FileFactory(actor=owner, name=f"{marker}-part.txt", text=f"{marker} text", visibility="private")
    shown = FileFactory(actor=owner, name="part.txt", text="open")
    combined, _how = files_combine(actor=owner, file_ids=[shown.pk, hidden.pk], name=f"{marker}-both.txt")
    rows.add("fileId", "entityId", record=combined)
    # A task everyone sees, a step of it linked to the private task, the private file attached.
    shown_task = TaskFactory(actor=owner)
    step = shown_task.steps.first()
    services.step_link(
        actor=owner, task=shown_task, step=step, entity=kinds.of_record(rows.records["taskId"][0])
    )
    ok(owner, "attachEntityFile", {"fileId": hidden.pk, "entityType": "task", "entityId": shown_task.pk})
    rows.add("taskId", "entityId", record=shown_task)
    rows.add("stepId", record=step)
