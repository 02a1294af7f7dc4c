from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class NotificationsPerm(PermissionEnum):
    VIEW = "notifications.view", Level.READ, _("See your own notifications and the records you watch")
    # Viewers' roles are read-only across the catalogue: marking and watching are writes.
    MARK = "notifications.mark", Level.WRITE, _("Mark your own notifications read, unread or archived")
    WATCH = "notifications.watch", Level.WRITE, _("Watch records you can see, and stop watching them")
    SEND = "notifications.send", Level.WRITE, _("Notify other people, and add them as watchers")
    ADMIN = "notifications.admin", Level.ADMIN, _("See and cancel everyone's watchers")
