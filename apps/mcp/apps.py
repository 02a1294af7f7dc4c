from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class McpConfig(AppConfig):
    name = "apps.mcp"
    verbose_name = "MCP endpoint"

    def ready(self) -> None:
        from apps.core import navigation
        from apps.core.navigation import Group, NavItem

        navigation.register(
            NavItem("developers", _("Developers"), "mcp:developers", group=Group.DEVELOPERS, order=35)
        )

        from . import signals  # noqa: F401  (tool-list changes -> notifications on open streams)
