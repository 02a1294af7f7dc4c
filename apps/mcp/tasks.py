from celery import shared_task

from apps.core.tasks import for_each_workspace, workspace_task
from apps.mcp import jobs, secure_input, sessions


@shared_task
def purge_mcp_sessions() -> int:
    """Daily: drops MCP sessions ended or idle for over a week, in every workspace."""
    return for_each_workspace(sessions.sessions_purge)


@workspace_task(ignore_result=True)
def run_tool_task(task_id: str) -> str | None:
    """Runs the tool call of an MCP task (apps.mcp.jobs) in its workspace."""
    return jobs.task_run(task_id)


def _purge_expired() -> None:
    jobs.purge()
    secure_input.purge()


@shared_task
def purge_mcp_tasks() -> int:
    """Every quarter of an hour: drops MCP tasks past their ttl and secure inputs no tool took in
    time, in every workspace."""
    return for_each_workspace(_purge_expired)
