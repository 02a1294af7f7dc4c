from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TasksConfig(AppConfig):
    name = "apps.tasks"
    label = "tasks"
    verbose_name = _("Tasks")

    def ready(self) -> None:
        from apps.core import entities, navigation
        from apps.core.navigation import NavItem
        from apps.files import attachments

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
        # Files and documents can be attached to tasks (attachEntityFile with entityType "task").
        attachments.register_entity(
            attachments.EntityType(
                key="task",
                area="tasks",
                label="Task",
                model="tasks.Task",
                get=lambda actor, pk, for_edit: (
                    selectors.task_get_for_edit if for_edit else selectors.task_get
                )(actor=actor, task_id=pk),
            )
        )
