from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GroupAccountsConfig(AppConfig):
    name = "apps.groupaccounts"
    label = "groupaccounts"
    verbose_name = _("Group accounts")

    def ready(self) -> None:
        from apps.core import navigation
        from apps.core.navigation import NavItem

        from .permissions import GroupAccountsPerm

        navigation.register(
            NavItem(
                "group-accounts", _("Group accounts"), "groupaccounts:list", GroupAccountsPerm.VIEW, order=36
            )
        )
