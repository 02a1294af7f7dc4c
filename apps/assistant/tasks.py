"""The Personal Assistant's Celery work: a plan's acceptance test, run in its workspace."""

from apps.core.tasks import workspace_task


@workspace_task(ignore_result=True, acks_late=True)
def run_plan_test(test_id: int) -> None:
    from apps.assistant import services

    services.test_run(test_id)
