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
        # searchTools may put its first twenty in order through this door's model (off by default).
        from apps.catalogue import rerank

        from .agent.rerank import rerank as model_rerank

        rerank.provide(model_rerank)
        # Platform's media tools (transcribeAudio, analyzeImage) call this door's model backend.
        from .agent import media

        media.install()
        # The turns of agents other areas run (Teams' members), metered by those areas.
        from .agent import turns

        turns.install()
        # What the meter charges, for the areas that say it (Platform's checkRates, getBillingSummary).
        from apps.core import spending

        from .agent.backends import model_rates

        spending.register_rates(model_rates)
