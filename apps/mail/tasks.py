"""Celery beat's mail work: every mailbox polled from its cursor each minute, and the outbox's
forgotten rows sent. Only ids and counts are logged."""

import logging

from celery import shared_task

from apps.core.errors import AppError
from apps.core.tasks import for_each_workspace
from apps.mail import services
from apps.mail.models import Mailbox

logger = logging.getLogger(__name__)


def _sync_all() -> None:
    for mailbox in Mailbox.objects.filter(deleted_at__isnull=True):
        try:
            # Drafts whose server copy is behind (a failure when they were saved) go first.
            services.drafts_pending(mailbox=mailbox)
            services.mailbox_sync(mailbox=mailbox)
        except AppError:
            continue  # recorded on the mailbox (status, problem) and logged by id


@shared_task
def sync_mailboxes() -> int:
    """Every minute: every mailbox of every workspace copies what is new on its server."""
    return for_each_workspace(_sync_all)


@shared_task
def send_outbox() -> int:
    """Every minute: outbox rows made but never tried are sent."""
    return for_each_workspace(services.outbox_sweep)
