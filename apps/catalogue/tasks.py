from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from apps.core.tasks import for_each_workspace


def purge_tool_calls(*, older_than: timedelta) -> int:
    from apps.catalogue.models import ToolCall

    deleted, _ = ToolCall.objects.filter(at__lt=timezone.now() - older_than).delete()
    return deleted


@shared_task
def purge_old_tool_calls() -> int:
    """Beat sweeper: drops tool-call records older than ATRIUM_AUDIT_RETENTION_DAYS in every workspace."""
    older_than = timedelta(days=settings.ATRIUM_AUDIT_RETENTION_DAYS)
    return for_each_workspace(lambda: purge_tool_calls(older_than=older_than))
