from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class IntegrationsConfig(AppConfig):
    name = "apps.integrations"
    verbose_name = _("Integrations")

    def ready(self) -> None:
        from django.utils.module_loading import autodiscover_modules

        from apps.core import navigation
        from apps.core.navigation import Group, NavItem

        # Each provider area says what it is set with and how it is tested, in its `integration`
        # module (apps.integrations.api.register).
        autodiscover_modules("integration")
        # In the menu of those who set the providers up; the page itself is every member's (the
        # areas' own pages link to it), as Social accounts' is.
        navigation.register(
            NavItem(
                "integrations",
                _("Integrations"),
                "integrations:integrations",
                permission="workspace.manage",
                group=Group.ADMINISTRATION,
                order=40,
            )
        )
