"""Celery work of the Deals Pipeline: deal finders whose run is due, and reachout campaigns (a run
when one starts, and every running one each minute). Only ids and counts are logged."""

from celery import shared_task

from apps.core.tasks import for_each_workspace, workspace_task
from apps.deals import finding, reachout
from apps.deals.models import ReachoutCampaign


@shared_task
def run_due_finders() -> int:
    """Every quarter hour: the active deal finders of every workspace whose next run is due."""
    return for_each_workspace(finding.run_due)


@shared_task
def send_campaigns() -> int:
    """Every minute: each running campaign stops the sequences answered and sends its due steps."""
    return for_each_workspace(reachout.run_running)


@workspace_task()
def run_campaign(*, campaign_id: int) -> int:
    campaign = (
        ReachoutCampaign.objects.filter(pk=campaign_id, deleted_at__isnull=True)
        .select_related("mailbox")
        .first()
    )
    return reachout.campaign_tick(campaign) if campaign is not None else 0
