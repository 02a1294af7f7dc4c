from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class TasksPerm(PermissionEnum):
    VIEW = "tasks.view", Level.READ, _("See tasks, templates, their boards, runs and schedules")
    CREATE = "tasks.create", Level.WRITE, _("Create tasks and templates, and copy them")
    EDIT = "tasks.edit", Level.WRITE, _("Change tasks: steps, cards, checklists, links, instructions")
    RUN = "tasks.run", Level.WRITE, _("Start, pause, resume, steer, rerun tasks and skip steps")
    SHARE = "tasks.share", Level.WRITE, _("Share tasks with other people of the workspace")
    SCHEDULE = "tasks.schedule", Level.WRITE, _("Schedule tasks, and enable or disable their schedules")
    DELETE = "tasks.delete", Level.DELETE, _("Delete scheduled tasks")
    ADMIN = "tasks.admin", Level.ADMIN, _("See and change every task, private ones included")
