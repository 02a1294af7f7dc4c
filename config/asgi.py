"""ASGI entry point: HTTP (pages, JSON APIs and, later, the MCP streams) for Daphne."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

from django.core.asgi import get_asgi_application

# Django is set up before anything imports a model.
django_application = get_asgi_application()

from channels.routing import ProtocolTypeRouter  # noqa: E402

application = ProtocolTypeRouter({"http": django_application})

from apps.core.observability import RequestObservabilityMiddleware  # noqa: E402

# Outermost: request ids and HTTP metrics for everything, including what is routed before Django.
application = RequestObservabilityMiddleware(application)
