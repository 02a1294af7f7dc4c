"""The Notifications area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.navigation import NavItem
from apps.notifications.permissions import NotificationsPerm

area = areas.declare(
    title=_("Notifications"),
    description=_("Notices to people of the workspace, and watchers on records that tell them of changes"),
    words="notification notice alert reminder message inbox unread watcher follow",
    nav=[NavItem("notifications", _("Notifications"), "notifications:list", NotificationsPerm.VIEW, order=5)],
)
