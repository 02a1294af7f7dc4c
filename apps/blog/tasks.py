"""Celery beat's Blog work, in every workspace: scheduled posts published when due."""

from celery import shared_task

from apps.blog import services
from apps.core.tasks import for_each_workspace


@shared_task
def publish_due() -> int:
    return for_each_workspace(services.publish_due)
