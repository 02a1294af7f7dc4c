"""Background work of the HR area."""

from celery import shared_task

from apps.core.tasks import for_each_workspace
from apps.hr.services import hiring, onboarding


@shared_task(ignore_result=True)
def notify_overdue_onboarding() -> int:
    """Hourly (Celery beat): in every workspace, tells the owners of overdue onboarding items.
    Returns how many workspaces failed."""
    return for_each_workspace(onboarding.overdue_notify)


@shared_task(ignore_result=True)
def anonymise_candidates() -> int:
    """Daily (Celery beat): in every workspace, anonymises candidates without consent whose last
    activity is older than ATRIUM_HR_CANDIDATE_RETENTION_DAYS. Returns how many workspaces failed."""
    return for_each_workspace(hiring.anonymise_expired)
