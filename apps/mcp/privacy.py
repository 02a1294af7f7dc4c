"""Personal data of MCP sessions (docs/privacy.md): the person's sessions, found by user. The
session state (catalogue bookkeeping: first calls made, confirmation-token digests) is not
exported; ending the sessions is the soft delete (the person's clients must initialize again)."""

from django.db.models import QuerySet
from django.utils import timezone

from apps.core import privacy
from apps.mcp.models import McpSession


def end(sessions: QuerySet) -> int:
    return sessions.filter(ended_at__isnull=True).update(ended_at=timezone.now())


privacy.register(McpSession, user="user", exclude=["digest", "state"], soft_delete=end)
