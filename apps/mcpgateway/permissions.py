from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class McpGatewayPerm(PermissionEnum):
    # The MCP Gateway (SPEC 4.7): outside MCP servers the workspace connects to as a client.
    VIEW = "mcpgateway.view", Level.READ, _("See the connected MCP servers, their tools and resources")
    USE = "mcpgateway.use", Level.WRITE, _("Call the tools of connected MCP servers")
    ADMIN = "mcpgateway.admin", Level.ADMIN, _("Register MCP servers, their credentials and who may use them")
