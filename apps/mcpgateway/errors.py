"""The MCP Gateway's failures (apps.core.errors): what an outside server did, and what to do."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict


class McpServerRefused(AppError):
    code = "MCP_SERVER_URL_REFUSED"
    http_status = 400
    field = "url"
    msg_format = _("The MCP server's URL is refused: {problem}")


class McpServerUnavailable(AppError):
    code = "MCP_SERVER_UNAVAILABLE"
    http_status = 502
    msg_format = _(
        "MCP server {server!r} did not answer usefully: {problem}. Nothing was done there that we know "
        "of; try again later, or an administrator checks it on the Connected MCP servers page."
    )


class McpServerTimeout(McpServerUnavailable):
    problem_format = _("no answer within {seconds} seconds")


class McpResultTooLarge(McpServerUnavailable):
    problem_format = _("its answer passed the {limit} bytes a result may have")


class McpServerDisabled(Conflict):
    code = "MCP_SERVER_DISABLED"
    msg_format = _("MCP server {server!r} is turned off; an administrator turns it on again first.")


class McpToolUnknown(AppError):
    code = "MCP_TOOL_UNKNOWN"
    http_status = 404
    message = _(
        "That is not a tool (or a server) of a connected MCP server you may use. Tools are named "
        "server__tool, as mcpDiscoverTools lists them; servers as mcpListServers does."
    )


class McpToolBlocked(Conflict):
    code = "MCP_TOOL_BLOCKED"
    msg_format = _("Tool {tool!r} of MCP server {server!r} is not allowed by the server's registration.")


class McpCredentialUnusable(Conflict):
    code = "MCP_SERVER_CREDENTIAL_UNUSABLE"
    msg_format = _(
        "MCP server {server!r} cannot be reached now: its credential in the vault is expired, "
        "deleted, kept for another host or unreadable; an administrator checks it on the Connected "
        "MCP servers page."
    )
