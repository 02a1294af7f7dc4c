from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class MeetingsPerm(PermissionEnum):
    # The Video Meeting area (SPEC 4.7): meetings made at a video provider, with their join links.
    VIEW = "meetings.view", Level.READ, _("See one's own video meetings")
    EDIT = "meetings.edit", Level.WRITE, _("Create video meetings")
    ADMIN = "meetings.admin", Level.ADMIN, _("See every video meeting of the workspace")
