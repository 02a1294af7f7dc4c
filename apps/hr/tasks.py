"""Background work of the HR area."""

from celery import shared_task

from apps.core.tasks import for_each_workspace
from apps.hr.services import onboarding


@shared_task(ignore_result=True)
def notify_overdue_onboarding() -> int:
    """Hourly (Celery beat): in every workspace, tells the owners of overdue onboarding items.
    Returns how many workspaces failed."""
    return for_each_workspace(onboarding.overdue_notify)
