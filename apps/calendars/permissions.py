from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class CalendarsPerm(PermissionEnum):
    VIEW = "calendars.view", Level.READ, _("See calendars, events, availability and answers to invitations")
    EDIT = "calendars.edit", Level.WRITE, _("Create and change events, their attendees and answers")
    MANAGE = "calendars.manage", Level.WRITE, _("Create and change calendars")
    INVITE = "calendars.invite", Level.WRITE, _("Send invitations to an event's attendees by e-mail")
    DELETE = "calendars.delete", Level.DELETE, _("Archive and restore calendars")
    ADMIN = "calendars.admin", Level.ADMIN, _("See and change every calendar, private ones included")
