"""Personal data of MCP sessions (docs/privacy.md): the person's sessions, found by user. The
session state (catalogue bookkeeping: first calls made, confirmation-token digests) is not
exported; ending the sessions is the soft delete (the person's clients must initialize again)."""

from apps.core import privacy
from apps.mcp.models import McpSession, McpTask, SecureInput
from apps.mcp.sessions import sessions_end

privacy.register(
    McpSession, user="user", exclude=["digest", "state"], soft_delete=sessions_end, credential=True
)
# A secure input is the person's own secret for a moment (it is never exported; erased with the
# person); a task holds the arguments and the result of a tool call the person made.
privacy.register(SecureInput, user="user", exclude=["value_encrypted"])
privacy.register(McpTask, user="user")
