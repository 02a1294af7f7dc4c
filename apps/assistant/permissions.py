from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class AssistantPerm(PermissionEnum):
    # Personal Assistant (SPEC 4.7): a person's own goals, their tasks and the schedule proposed.
    VIEW = "assistant.view", Level.READ, _("See your own goals, schedule proposals, checks and tests")
    EDIT = (
        "assistant.edit",
        Level.WRITE,
        _("Brief the assistant, plan goals and put approved schedules in your calendar"),
    )
    ADMIN = "assistant.admin", Level.ADMIN, _("See every person's goals, proposals, checks and tests")
