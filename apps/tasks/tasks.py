"""Background work of the Tasks area."""

from celery import shared_task
from django.db import transaction

from apps.core.tasks import for_each_workspace, workspace_task
from apps.tasks import runner, schedules


@shared_task
def run_due_scheduled_tasks() -> int:
    """Every minute (Celery beat): in every workspace, runs the scheduled tasks that are due.
    Returns how many workspaces failed."""
    return for_each_workspace(schedules.run_due)


@workspace_task(acks_late=True, ignore_result=True)
def finish_agent_step(*, task_id: int, step_id: int, reference: str, done: bool, text: str) -> bool:
    """The agent's work on a step ended (apps.tasks.agent_steps.finished): finishes the step in its
    workspace (idempotent: a second report changes nothing)."""
    with transaction.atomic():
        return runner.agent_finished(
            task_id=task_id, step_id=step_id, reference=reference, done=done, text=text
        )


@shared_task(ignore_result=True)
def finish_ended_agent_steps() -> int:
    """Every minute (Celery beat): in every workspace, the steps waiting on agent work that ended
    without its end being reported are finished. Returns how many workspaces failed."""
    return for_each_workspace(runner.agent_steps_sweep)
