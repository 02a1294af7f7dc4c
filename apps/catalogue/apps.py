import importlib

from django.apps import AppConfig
from django.conf import settings
from django.utils.module_loading import autodiscover_modules
from django.utils.translation import gettext_lazy as _


class CatalogueConfig(AppConfig):
    name = "apps.catalogue"
    verbose_name = _("Tool catalogue")

    def ready(self) -> None:
        # Every area declares its tools module (apps.core.areas); other apps keep theirs in a
        # `tools` module too (this app's own: the meta-tools).
        from apps.core import areas, navigation
        from apps.core.navigation import Group, NavItem

        from . import checks, signals  # noqa: F401  (registers the system check and the receivers)
        from .permissions import CataloguePerm

        for module in areas.each_tools_module():
            importlib.import_module(module)
        autodiscover_modules("tools")
        load_fixture_modules(getattr(settings, "ATRIUM_EXTRA_TOOL_MODULES", []))
        navigation.register(
            NavItem(
                "tool-calls",
                _("Tool calls"),
                "catalogue:tool-calls",
                CataloguePerm.AUDIT,
                group=Group.DEVELOPERS,
                order=70,
            )
        )


def load_fixture_modules(modules: list[str]) -> None:
    """Imports extra tool modules (test settings only: the fixtures the MCP conformance suite
    expects). Their tools are flagged as fixtures, which lets them use the suite's names."""
    from . import registry

    for module in modules:
        registry._loading_fixtures = True
        try:
            importlib.import_module(module)
        finally:
            registry._loading_fixtures = False
