from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SocialConfig(AppConfig):
    name = "apps.social"
    verbose_name = _("Social accounts")

    def ready(self) -> None:
        from apps.core import navigation
        from apps.core.navigation import Group, NavItem

        navigation.register(
            NavItem("social", _("Social accounts"), "social:accounts", group=Group.CONTENT, order=45)
        )
