"""Celery beat's Agent Browser Tab work: sessions idle or past their lifetime ended in every
workspace, then the profiles no session row ended (a rolled-back start) swept from this server."""

from celery import shared_task
from django.conf import settings

from apps.browser import engine, services
from apps.core.tasks import for_each_workspace


@shared_task
def reap() -> int:
    failures = for_each_workspace(services.reap)
    engine.sweep(settings.ATRIUM_BROWSER_LIFETIME_SECONDS + 120)
    return failures
