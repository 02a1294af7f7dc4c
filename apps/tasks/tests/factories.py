"""Tasks for tests, made through the service as a person makes them (apps.core.factories):
`TaskFactory(actor=people["member"], title="Backups", steps=[{"title": "Tell", "kind": "notify"}])`.
`steps` (two manual steps, the first with a checklist, unless given) and `is_template` go to
task_create beside the task; every other keyword is a field of the task."""

from typing import Any

import factory

from apps.core.factories import ServiceFactory, fake, numbered
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
