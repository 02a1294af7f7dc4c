"""Reads about leave."""

from typing import Any

from django.db.models import Q

from apps.core.actors import Actor
from apps.core.records import RecordQuerySet
from apps.hr.models import LeaveEntry, LeaveRequest


def requests_visible(*, actor: Actor) -> RecordQuerySet[LeaveRequest]:
    """Leave requests as the actor may see them (LeaveRequest.access: their own and those they
    asked for, everyone's for approvers), with what answers about them read."""
    return LeaveRequest.objects.restrict(actor).select_related("employee", "policy", "decided_by")


def adjustments_visible(*, actor: Actor) -> Any:
    """Balance adjustments as the actor may see them, as their balances: their own, their
    reports' for line managers, everyone's for HR (who decide on everyone's leave)."""
    rows = LeaveEntry.objects.filter(kind=LeaveEntry.Kind.ADJUSTMENT)
    if not LeaveRequest.access.all_rows(actor):
        person_id = getattr(actor, "pk", None)
        rows = rows.filter(Q(employee__user_id=person_id) | Q(employee__manager__user_id=person_id))
    rows = rows.filter(employee__deleted_at__isnull=True)
    return rows.select_related("employee", "policy__leave_type", "created_by").order_by("-effective", "-id")
