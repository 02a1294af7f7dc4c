"""The Notifications area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.navigation import NavItem
from apps.notifications.permissions import NotificationsPerm

area = areas.declare(
    title=_("Notifications"),
    group=areas.Group.YOU,
    description=_("Notices to people of the workspace, and watchers on records that tell them of changes"),
    words="notification notice alert reminder message inbox unread watcher follow",
    hints={
        "createWatcher": (
            "follow watch subscribe hear about changes to a record, tell me whenever it changes"
        ),
        "cancelWatcher": "unfollow stop watching stop telling me about changes",
        "listWatchers": (
            "who is following watching a record what I follow keep an eye on, who gets told when it changes"
        ),
        "listNotifications": "my notifications alerts, latest unread ones",
        "searchNotifications": "find alerts notifications mentioning something",
        "openNotifications": "open the bell, mark notifications seen clear the count",
        "examineNotifications": (
            "breakdown summary of my unread notifications by kind and record, what needs attention first"
        ),
        "createNotification": "notify ping alert tell a colleague, a reminder for myself to do something",
        "updateNotification": "mark one or all notifications read unread, archive them",
    },
    profiles={
        "essentials": (
            "listNotifications",
            "examineNotifications",
            "searchNotifications",
            "updateNotification",
        ),
        "operations": ("listNotifications", "createNotification", "createWatcher", "cancelWatcher"),
        "people": ("listNotifications", "createNotification"),
        "support": ("listNotifications",),
        "automation": ("createWatcher", "cancelWatcher", "listWatchers", "createNotification"),
        "admin": ("openNotifications",),
    },
    nav=[NavItem("notifications", _("Notifications"), "notifications:list", NotificationsPerm.VIEW, order=5)],
    not_kinds={
        "notifications.Notification": "a notice to one person; it points at a record, nothing points at it",
        "notifications.Watcher": "one person following a record; it points at a record, nothing points at it",
    },
)
