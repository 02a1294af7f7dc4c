"""Who sees which review and assessment (apps.hr.models.reviews has the rule)."""

from typing import Any

from django.db.models import Q, QuerySet

from apps.core.actors import actor_id, can
from apps.hr.models import Assessment, Review, ReviewCycle
from apps.hr.permissions import HrPerm


def reviews_of(actor: Any, cycle: ReviewCycle) -> QuerySet[Review]:
    return (
        Review.objects.restrict(actor)
        .filter(cycle=cycle)
        .select_related("cycle", "employee", "manager")
        .order_by("employee__full_name", "id")
    )


def visible_assessments(actor: Any, review: Review) -> list[Assessment]:
    """The assessments of `review` that `actor` may read: their own always; submitted ones as the
    review's manager or HR; the employee the self and manager ones once submitted, never peers'."""
    me = actor_id(actor)
    rows = review.assessments.select_related("author").order_by("kind", "id")
    if can(actor, HrPerm.REVIEWS_MANAGE) or review.manager_id == me:
        return list(rows.filter(Q(author_id=me) | Q(submitted_at__isnull=False)))
    if review.employee.user_id == me:
        return list(
            rows.filter(Q(author_id=me) | Q(submitted_at__isnull=False, kind=Assessment.Kind.MANAGER))
        )
    return list(rows.filter(author_id=me))
