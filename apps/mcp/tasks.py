from celery import shared_task

from apps.core.tasks import for_each_workspace
from apps.mcp import sessions


@shared_task
def purge_mcp_sessions() -> int:
    """Daily: drops MCP sessions ended or idle for over a week, in every workspace."""
    return for_each_workspace(sessions.sessions_purge)
