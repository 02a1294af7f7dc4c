"""The data team's notification: sent at once by a task, retried by a sweeper until it goes out.

A few quick retries happen in the task; after that the row's `notification_due_at` takes over
(CONVENTIONS: anything further ahead is a row with a due time, swept by beat). Task results and
retry messages carry the request id and the failure's kind only.
"""

from celery import Task, shared_task

from apps.datarights import services
from apps.datarights.services import NotificationFailed

QUICK_RETRIES = 3


@shared_task(bind=True, max_retries=QUICK_RETRIES, ignore_result=True)
def notify_data_team(self: Task, request_id: int) -> str:
    try:
        return services.data_request_notify(request_id=request_id)
    except NotificationFailed as error:
        if self.request.retries >= QUICK_RETRIES:
            return "left_to_sweeper"
        raise self.retry(exc=error, countdown=10 * 3**self.request.retries) from None


@shared_task(ignore_result=True)
def retry_data_team_notifications() -> int:
    """Every few minutes: notifications that failed or were never queued."""
    return services.notifications_retry()
