"""Celery work of Marketing: a campaign's run when it is launched, and every sending campaign each
minute (quiet hours over, a run cut short resumed). Only ids and counts are logged."""

from celery import shared_task

from apps.core.tasks import for_each_workspace, workspace_task
from apps.marketing import sending
from apps.marketing.models import Campaign


@shared_task
def send_campaigns() -> int:
    return for_each_workspace(sending.run_sending)


@workspace_task()
def run_campaign(*, campaign_id: int) -> int:
    campaign = (
        Campaign.objects.filter(pk=campaign_id, deleted_at__isnull=True).select_related("mailbox").first()
    )
    return sending.run(campaign) if campaign is not None else 0


@shared_task
def send_sequences() -> int:
    """Every minute: who left each active e-mail sequence, then its due steps."""
    from apps.marketing import sequences

    return for_each_workspace(sequences.run_sequences)
