"""The Celery application: agent turns, webhook deliveries and the periodic sweepers."""

import os
from typing import Any

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("atrium")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.setup_logging.connect
def use_django_logging(**kwargs: Any) -> None:
    """Workers and beat log through settings.LOGGING (request ids, JSON in production)."""
    from logging.config import dictConfig

    from django.conf import settings

    dictConfig(settings.LOGGING)


@signals.worker_ready.connect
def serve_worker_http(**kwargs: Any) -> None:
    """The worker's probes and metrics, from its main process (apps.core.worker_http)."""
    from django.conf import settings

    if settings.ATRIUM_WORKER_HTTP_PORT:
        from apps.core import worker_http

        worker_http.serve(settings.ATRIUM_WORKER_HTTP_PORT, address=settings.ATRIUM_WORKER_HTTP_ADDRESS)
