from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TasksConfig(AppConfig):
    name = "apps.tasks"
    label = "tasks"
    verbose_name = _("Tasks")

    def ready(self) -> None:
        from apps.core import entities, navigation
        from apps.core.navigation import NavItem

        from . import selectors
        from .permissions import TasksPerm

        navigation.register(NavItem("tasks", _("Tasks"), "tasks:list", TasksPerm.VIEW, order=50))
        # Watchers, notifications and other areas' links point at tasks.
        entities.register(
            entities.EntityKind(
                key="task",
                area="tasks",
                model="tasks.Task",
                get=lambda *, actor, entity_id: selectors.task_get(actor=actor, task_id=entity_id),
                title=lambda task: task.title,
            )
        )
