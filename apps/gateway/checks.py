"""Start-up check of the gateway's model backend settings (`manage.py check`, every migrate)."""

from typing import Any

from django.core import checks


@checks.register()
def model_backend_settings(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    from apps.gateway.agent.backends import configuration_problems

    return [
        checks.Error(problem, hint="See docs/gateway.md, “The service's agent”.", id="atrium.E301")
        for problem in configuration_problems()
    ]
