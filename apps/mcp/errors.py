"""The MCP door's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import NotFound
from apps.oauth.errors import InsufficientScope


class NoWorkspaceHere(NotFound):
    message = _("There is no workspace at this address.")


class UnknownTool(NotFound):
    data_fields = ("name",)
    msg_format = _("Unknown tool: {name}. Nothing was done; searchTools finds tools.")


class NoSuchToolTask(NotFound):
    data_fields = ("task",)
    msg_format = _("No task {task} of yours: it has expired or never existed. Nothing was done.")


class ScopeWithoutMcp(InsufficientScope):
    message = _("The token's scope does not include MCP access (mcp, mcp:read or mcp:write).")


class ScopeReadOnly(InsufficientScope):
    """A write tool called with a token whose scope allows reading only (incremental consent)."""

    data_fields = ("tool", "scope")
    msg_format = _("{tool} changes data: the token's scope allows reading only. Ask for {scope}.")
