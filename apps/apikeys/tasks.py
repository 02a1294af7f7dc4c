from celery import shared_task

from apps.apikeys import services
from apps.core.tasks import for_each_workspace


@shared_task
def release_stale_reservations() -> int:
    """Every minute: frees budget reservations whose worker died, in every workspace. Returns how
    many workspaces failed."""
    return for_each_workspace(services.budget_release_expired)
