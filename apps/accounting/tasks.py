"""Background work of the Accounting area: Celery beat's rounds over every workspace, and the push
of one workspace to the outside ledger. Each calls the services and nothing else.

The tasks keep the names they were registered under before they moved here (the module each was
in): a message already queued, or a beat entry of a process not yet restarted, still finds them.
"""

from celery import shared_task

from apps.accounting.services import register, sending, sync
from apps.core.tasks import for_each_workspace, workspace_task


@shared_task(name="apps.accounting.sending.chase_every_workspace", ignore_result=True)
def chase_every_workspace() -> int:
    """Each morning (Celery beat): the reminders due in every workspace that chases automatically.
    Returns how many workspaces failed."""
    return for_each_workspace(sending.chase_due)


@shared_task(name="apps.accounting.register.send_filing_reminders", ignore_result=True)
def send_filing_reminders() -> int:
    """Daily (Celery beat): the filing reminders of every workspace. Returns how many
    workspaces failed."""
    return for_each_workspace(register.reminders_send)


@workspace_task(name="apps.accounting.sync.push_workspace", ignore_result=True)
def push_workspace() -> None:
    """Pushes what changed in one workspace (queued when a record is queued: sync.queue)."""
    sync.push_due()


@shared_task(name="apps.accounting.sync.sweep", ignore_result=True)
def sweep() -> int:
    """Every five minutes (Celery beat): pushes what is due in every workspace. Returns how many
    workspaces failed."""
    if sync.provider() is None:
        return 0
    return for_each_workspace(sync.push_due)
