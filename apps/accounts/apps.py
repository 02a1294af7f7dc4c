from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    verbose_name = _("People")

    def ready(self) -> None:
        from apps.core import navigation
        from apps.core.navigation import Group, NavItem

        from . import signals  # noqa: F401  (a new workspace's owner, wrong passwords counted)
        from .api import schema  # noqa: F401  (the OpenAPI extensions of /api/me and its tokens)
        from .permissions import PeoplePerm, RolesPerm, WorkspacePerm

        navigation.register(NavItem("profile", _("Profile"), "settings:home", group=Group.YOU, order=0))
        navigation.register(NavItem("password", _("Password"), "settings:password", group=Group.YOU, order=1))
        navigation.register(
            NavItem("tokens", _("Access tokens"), "settings:tokens", group=Group.YOU, order=10)
        )
        navigation.register(
            NavItem(
                "people",
                _("People"),
                "settings:people",
                PeoplePerm.VIEW,
                group=Group.ADMINISTRATION,
                order=80,
            )
        )
        navigation.register(
            NavItem(
                "roles", _("Roles"), "settings:roles", RolesPerm.VIEW, group=Group.ADMINISTRATION, order=90
            )
        )
        navigation.register(
            NavItem(
                "security",
                _("Security"),
                "settings:security",
                WorkspacePerm.MANAGE,
                group=Group.ADMINISTRATION,
                order=95,
            )
        )
