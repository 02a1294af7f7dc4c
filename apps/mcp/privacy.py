"""Personal data of MCP sessions (docs/privacy.md): the person's sessions, found by user. The
session state (catalogue bookkeeping: first calls made, confirmation-token digests) is not
exported; ending the sessions is the soft delete (the person's clients must initialize again)."""

from apps.core import privacy
from apps.mcp.models import McpSession
from apps.mcp.sessions import sessions_end

privacy.register(McpSession, user="user", exclude=["digest", "state"], soft_delete=sessions_end)
