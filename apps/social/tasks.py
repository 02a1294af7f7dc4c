"""Celery beat's social work, in every workspace: the posts whose time has come, delivered (their
stored time: none lost across restarts)."""

from celery import shared_task

from apps.core.tasks import for_each_workspace
from apps.social import services


@shared_task
def deliver_due() -> int:
    return for_each_workspace(services.deliver_due)
