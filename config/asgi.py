"""ASGI entry point (config.serve runs it): `/api/mcp` (the MCP transport, a Channels consumer that skips the
Django stack), then everything else through Django (pages, JSON APIs)."""

import os
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

from django.core.asgi import get_asgi_application

# Django is set up before anything imports a model.
django_application = get_asgi_application()

from channels.routing import ProtocolTypeRouter  # noqa: E402

from apps.mcp.consumers import McpConsumer  # noqa: E402

mcp_application = McpConsumer.as_asgi()
# Exactly this path: /api/mcp/quick-setup and the rest stay Django's.
MCP_PATH = "/api/mcp"


# Any: Django's and Channels' stubs type ASGI's scope and messages each their own way.
async def http_application(scope: Any, receive: Any, send: Any) -> None:
    if scope["path"] == MCP_PATH:
        return await mcp_application(scope, receive, send)
    return await django_application(scope, receive, send)


router = ProtocolTypeRouter({"http": http_application})

from django.conf import settings  # noqa: E402

from apps.core.observability import RequestObservabilityMiddleware  # noqa: E402
from apps.core.proxies import TrustedProxiesMiddleware  # noqa: E402

# Outermost: request ids and HTTP metrics for everything, including what is routed before Django;
# inside it, the client's address and scheme as a trusted proxy gave them, or the socket's.
application = RequestObservabilityMiddleware(
    TrustedProxiesMiddleware(router, settings.ATRIUM_TRUSTED_PROXIES)
)
