from celery import shared_task

from apps.accounts import services
from apps.core.tasks import for_each_workspace


@shared_task
def purge_expired_access_tokens() -> int:
    """Daily: drops tokens that expired or were revoked more than 30 days ago, in every workspace."""
    return for_each_workspace(services.access_tokens_purge)
