from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    name = "apps.notifications"
    label = "notifications"
    verbose_name = _("Notifications")

    def ready(self) -> None:
        from apps.core import navigation
        from apps.core.navigation import NavItem

        from .permissions import NotificationsPerm

        navigation.register(
            NavItem(
                "notifications",
                _("Notifications"),
                "notifications:list",
                NotificationsPerm.VIEW,
                order=5,
            )
        )
