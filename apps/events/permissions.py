from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class EventsPerm(PermissionEnum):
    VIEW = "events.view", Level.READ, _("See events, their agenda, attendees, hotels and budgets")
    EDIT = (
        "events.edit",
        Level.WRITE,
        _("Plan events: stages, sessions, attendees, suppliers, hotels, travel"),
    )
    SHARE = "events.share", Level.WRITE, _("Share events with other people of the workspace")
    IMPORT = "events.import", Level.WRITE, _("Import attendees from a CSV or XLSX file")
    NEEDS = "events.needs", Level.ADMIN, _("See and record attendees' dietary and accessibility needs")
    ADMIN = "events.admin", Level.ADMIN, _("See and change every event, private ones included")
