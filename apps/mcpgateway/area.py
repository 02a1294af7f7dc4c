"""The MCP Gateway area, as the rest of the service knows it (apps.core.areas): the workspace as a
client of outside MCP servers that administrators register."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.navigation import NavItem
from apps.mcpgateway.permissions import McpGatewayPerm

area = areas.declare(
    title=_("MCP Gateway"),
    group=areas.Group.AUTOMATION,
    description=_("Outside MCP servers the workspace connects to: their tools and resources"),
    words="mcp server outside external connector gateway",
    hints={},
    profiles={
        "mcpgateway": (
            "getMcpGatewayOverview",
            "mcpListServers",
            "mcpDiscoverTools",
            "mcpCallTool",
            "mcpReadResource",
        )
    },
    nav=[
        NavItem("mcpgateway", _("Connected MCP servers"), "mcpgateway:servers", McpGatewayPerm.VIEW, order=61)
    ],
    kinds=[],
    not_kinds={
        "mcpgateway.ExternalServer": (
            "a connection set up by administrators (mcpListServers), not named or followed"
        ),
        "mcpgateway.DiscoveredTool": "a cached line of what a server listed",
        "mcpgateway.ServerCall": "a line of the log of requests to a server",
    },
    settings={
        # Seconds one request to an outside server (connecting, negotiating, answering) may take.
        "ATRIUM_MCP_GATEWAY_TIMEOUT_SECONDS": env.int(
            "ATRIUM_MCP_GATEWAY_TIMEOUT_SECONDS", 20, min=1, max=300
        ),
        # Bytes an outside server may send for one request; past them the request is stopped.
        "ATRIUM_MCP_GATEWAY_MAX_RESULT_BYTES": env.int(
            "ATRIUM_MCP_GATEWAY_MAX_RESULT_BYTES", 1_000_000, min=1000, max=50_000_000
        ),
        # How long a server's tool list is kept when the server gives no time to live (ttlMs).
        "ATRIUM_MCP_GATEWAY_TOOLS_TTL_SECONDS": env.int("ATRIUM_MCP_GATEWAY_TOOLS_TTL_SECONDS", 300, min=0),
    },
)
