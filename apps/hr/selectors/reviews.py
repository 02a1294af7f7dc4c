"""Who sees which review and assessment (apps.hr.models.reviews has the rule)."""

from typing import Any

from django.db.models import QuerySet

from apps.hr.models import Assessment, Review, ReviewCycle


def reviews_of(actor: Any, cycle: ReviewCycle) -> QuerySet[Review]:
    return (
        Review.objects.restrict(actor)
        .filter(cycle=cycle)
        .select_related("cycle", "employee", "manager")
        .order_by("employee__full_name", "id")
    )


def visible_assessments(actor: Any, review: Review) -> list[Assessment]:
    """The assessments of `review` that `actor` may read (Assessment.access)."""
    rows = Assessment.objects.restrict(actor).filter(review=review).select_related("author")
    return list(rows.order_by("kind", "id"))
