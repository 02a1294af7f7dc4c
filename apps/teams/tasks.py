"""Teams' Celery work: a card worked through (queued by sendTeamPrompt after its commit), and the
sweeper that starts cards whose queueing was lost or that waited for the workspace's cap."""

from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from apps.core.tasks import for_each_workspace, workspace_task
from apps.teams import running
from apps.teams.models import AgentTeam, TeamCard

# A queued card this old was not started by its own task: the sweeper starts it.
STALE = timedelta(seconds=60)


@workspace_task(acks_late=True)
def run_card(card_id: int) -> str:
    return running.run_card(card_id)


def _start_queued() -> int:
    stale = TeamCard.objects.filter(
        status=TeamCard.Status.QUEUED,
        created_at__lt=timezone.now() - STALE,
        project__team__status=AgentTeam.Status.ACTIVE,  # a paused team's cards wait for it
    )
    started = 0
    for card_id in stale.values_list("pk", flat=True)[:20]:
        if running.run_card(card_id) != TeamCard.Status.QUEUED:
            started += 1
    return started


@shared_task
def start_queued() -> int:
    return for_each_workspace(_start_queued)
