from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApiKeysConfig(AppConfig):
    name = "apps.apikeys"
    verbose_name = _("API keys")

    def ready(self) -> None:
        from apps.core import navigation
        from apps.core.navigation import Group, NavItem

        navigation.register(
            NavItem(
                "agent-connection",
                _("Agent connection"),
                "apikeys:agent-connection",
                group=Group.DEVELOPERS,
                order=20,
            )
        )
        navigation.register(
            NavItem("api-keys", _("API keys"), "apikeys:list", group=Group.DEVELOPERS, order=30)
        )

        from apps.core import spending

        from .selectors import Ledger

        # Areas ask about keys and spend through apps.core.spending, never this app.
        spending.register(Ledger())
