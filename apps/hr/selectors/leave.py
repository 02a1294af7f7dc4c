"""Reads about leave."""

from typing import Any

from django.db.models import Q

from apps.core.actors import Actor, can
from apps.hr.permissions import HrPerm


def sees_all(actor: Actor) -> bool:
    return can(actor, HrPerm.APPROVE_LEAVE) or can(actor, HrPerm.ADMIN)


def requests_visible(*, actor: Actor) -> Any:
    """Leave requests the actor may see: everyone's for approvers, otherwise their own."""
    from apps.hr.models import LeaveRequest

    rows = LeaveRequest.objects.restrict(actor).select_related("employee", "policy", "decided_by")
    if sees_all(actor):
        return rows
    me = getattr(actor, "pk", None)
    return rows.filter(Q(employee__user_id=me) | Q(requested_by_id=me))
