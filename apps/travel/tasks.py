"""Celery beat's Flights and Stays work, in every workspace: travellers' identity data purged once
their trip is over."""

from celery import shared_task

from apps.core.tasks import for_each_workspace
from apps.travel import services


@shared_task
def purge_identities() -> int:
    return for_each_workspace(services.purge_identities)
