from celery import shared_task

from apps.tenancy import spares


@shared_task
def fill_spare_schemas() -> int:
    """After a workspace took a spare schema, and every few minutes: keeps the pool full."""
    return spares.fill()
