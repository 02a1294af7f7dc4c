from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class ListenersPerm(PermissionEnum):
    # The Listeners area (SPEC 4.7): automations that act on their own (Zapier, n8n).
    VIEW = "listeners.view", Level.READ, _("See listeners, their flows and their runs")
    EDIT = "listeners.edit", Level.WRITE, _("Create listeners, change their flows, run and pause them")
    # Turning one on lets it act unattended, with its owner's permissions: a step above editing.
    ACTIVATE = "listeners.activate", Level.WRITE, _("Activate listeners and approve their risky steps")
    DELETE = "listeners.delete", Level.WRITE, _("Disable listeners")
    ADMIN = "listeners.admin", Level.ADMIN, _("See and change every listener, private ones included")
