"""Background work of the Events area."""

from celery import shared_task

from apps.core.tasks import for_each_workspace
from apps.events import services


@shared_task(ignore_result=True)
def remove_needs_after_events() -> int:
    """Hourly (Celery beat): in every workspace, removes the dietary and accessibility needs of
    attendees of events that have ended. Returns how many workspaces failed."""
    return for_each_workspace(services.needs_purge)
