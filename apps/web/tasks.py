"""Celery beat's Agent Web Browser work, in every workspace: cached pages past their time dropped."""

from celery import shared_task

from apps.core.tasks import for_each_workspace
from apps.web import services


@shared_task
def forget_expired() -> int:
    return for_each_workspace(services.forget_expired)
