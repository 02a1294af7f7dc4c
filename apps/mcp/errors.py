"""The MCP door's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import NotFound, PayloadTooLarge
from apps.oauth.errors import InsufficientScope


class NoWorkspaceHere(NotFound):
    message = _("There is no workspace at this address.")


class UnknownTool(NotFound):
    msg_format = _("Unknown tool: {name}. Nothing was done; searchTools finds tools.")


class NoSuchToolTask(NotFound):
    msg_format = _("No task {task} of yours: it has expired or never existed. Nothing was done.")


class ScopeWithoutMcp(InsufficientScope):
    message = _("The token's scope does not include MCP access (mcp, mcp:read or mcp:write).")


class ScopeReadOnly(InsufficientScope):
    """A write tool called with a token whose scope allows reading only (incremental consent)."""

    msg_format = _("{tool} changes data: the token's scope allows reading only. Ask for {scope}.")


class BodyTooLarge(PayloadTooLarge):
    """A request over MCP_MAX_BODY_BYTES: refused before it is read, so before any tool runs."""

    msg_format = _(
        "The request is over {limit} bytes, the most one MCP request carries. Nothing was done. File "
        "content sent as base64 (contentBase64) grows by a third: one call carries a file of at most "
        "about {file_limit} bytes. There is no upload link yet: a larger file cannot be sent in a tool "
        "call; tell the user."
    )


def body_too_large(limit: int) -> BodyTooLarge:
    # A little is left for the JSON-RPC envelope and the other arguments around the content.
    return BodyTooLarge(limit=limit, file_limit=(limit - 4096) * 3 // 4)
