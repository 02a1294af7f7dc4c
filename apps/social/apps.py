from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SocialConfig(AppConfig):
    name = "apps.social"
    verbose_name = _("Social accounts")

    def ready(self) -> None:
        from apps.core import navigation
        from apps.core.navigation import Group, NavItem

        navigation.register(
            # In the menu of those who connect accounts; the page itself is every member's.
            NavItem(
                "social",
                _("Social accounts"),
                "social:accounts",
                permission="workspace.manage",
                group=Group.CONTENT,
                order=45,
            )
        )
