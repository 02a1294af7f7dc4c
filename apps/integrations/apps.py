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
        # Every member sees which providers are set (and what their agents reach); admins edit.
        navigation.register(
            NavItem(
                "integrations",
                _("Integrations"),
                "integrations:integrations",
                group=Group.ADMINISTRATION,
                order=40,
            )
        )
