"""Celery beat's Extension Builder work, in every workspace: expired bundle uploads swept."""

from celery import shared_task

from apps.core.tasks import for_each_workspace
from apps.extensions import services


@shared_task
def sweep_uploads() -> int:
    return for_each_workspace(services.sweep_expired)
