"""Background work of the Tasks area."""

from celery import shared_task

from apps.core.tasks import for_each_workspace
from apps.tasks import schedules


@shared_task
def run_due_scheduled_tasks() -> int:
    """Every minute (Celery beat): in every workspace, runs the scheduled tasks that are due.
    Returns how many workspaces failed."""
    return for_each_workspace(schedules.run_due)
