"""Celery's Listeners work: a run taken on in its workspace, and beat's minute: scheduled listeners
fired when due, runs a worker lost resumed or failed, due runs queued again."""

import logging

from celery import shared_task
from django.db import transaction

from apps.core.db import connection
from apps.core.tasks import for_each_workspace, workspace_task
from apps.listeners import runner, services
from apps.listeners.models import Run

logger = logging.getLogger(__name__)


@workspace_task(ignore_result=True)
def run_listener(run_id: int) -> str:
    return runner.run(run_id)


def enqueue(run: Run) -> None:
    """Queues the run once the transaction that made it commits; a broker that does not answer
    loses nothing (the minute's sweep queues due runs again)."""
    schema_name = connection.schema_name
    run_id, due_at = run.pk, run.due_at

    def send() -> None:
        try:
            run_listener.apply_async(kwargs={"run_id": run_id, "schema_name": schema_name}, eta=due_at)
        except Exception:
            logger.exception("listener run %s could not be queued; the sweep will", run_id)

    transaction.on_commit(send)


def _minute() -> None:
    services.scheduled_due()
    runner.sweep()


@shared_task
def tick() -> int:
    return for_each_workspace(_minute)
