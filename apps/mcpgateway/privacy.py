"""Personal data in the MCP Gateway (docs/privacy.md): the log names who reached a server and what
they asked of it (a tool's or a resource's name), cleared on erasure; servers and their cached
tools are the workspace's connections."""

from apps.core import privacy
from apps.mcpgateway.models import DiscoveredTool, ExternalServer, ServerCall

privacy.register(ServerCall, user="actor", erase={"actor": None})
privacy.not_personal(
    ExternalServer, reason="the workspace's connections to outside servers, set up by administrators"
)
privacy.not_personal(DiscoveredTool, reason="what an outside server listed of its tools")
