"""Reads about leave."""

from apps.core.actors import Actor
from apps.core.records import RecordQuerySet
from apps.hr.models import LeaveRequest


def requests_visible(*, actor: Actor) -> RecordQuerySet[LeaveRequest]:
    """Leave requests as the actor may see them (LeaveRequest.access: their own and those they
    asked for, everyone's for approvers), with what answers about them read."""
    return LeaveRequest.objects.restrict(actor).select_related("employee", "policy", "decided_by")
