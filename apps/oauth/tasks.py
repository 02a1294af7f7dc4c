from celery import shared_task

from apps.core.tasks import for_each_workspace
from apps.oauth import services


@shared_task
def sweep_oauth() -> int:
    """Hourly: expired tokens and codes, and clients that never obtained a token, in every
    workspace. Returns how many workspaces failed."""
    return for_each_workspace(services.oauth_sweep)
