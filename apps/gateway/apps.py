from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GatewayConfig(AppConfig):
    name = "apps.gateway"
    verbose_name = _("Message gateway")

    def ready(self) -> None:
        from . import (
            checks,  # noqa: F401  (registers the model backend's configuration check)
            handover,
        )

        # The agent steps of tasks are handed to the gateway's agent (apps.gateway.handover).
        handover.install()
