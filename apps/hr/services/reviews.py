"""Review cycles, reviews and their assessments (apps.hr.models.reviews)."""

import logging
from datetime import date
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core import clean
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import invalid
from apps.hr.errors import AssessmentLocked
from apps.hr.models import Assessment, Employee, Review, ReviewCycle
from apps.hr.permissions import HrPerm

logger = logging.getLogger(__name__)
MAX_PEERS = 10


def cycle_find_or_create(*, actor: Actor, name: str, due: date | None = None) -> ReviewCycle:
    """The live cycle of that name (any case), or a new one."""
    require(actor, HrPerm.REVIEWS_MANAGE)
    name = clean.text(name, field="cycle", limit=120, required=True)
    cycle = ReviewCycle.objects.filter(name__iexact=name, deleted_at__isnull=True).first()
    if cycle is None:
        cycle = ReviewCycle.objects.create(name=name, due=due, created_by=person(actor))
        logger.info("review cycle %s created", cycle.pk)
    elif due and cycle.due != due:
        cycle.due = due
        cycle.save(update_fields=["due", "updated_at"])
    return cycle


@transaction.atomic
def review_create(
    *,
    actor: Actor,
    cycle: ReviewCycle,
    employee: Employee,
    manager: Any | None = None,
    peers: list[Any] | None = None,
) -> Review:
    """A review of `employee` in `cycle`, with an open assessment for the employee (when they are a
    person of the workspace), the manager (default: the employee's manager) and each peer."""
    require(actor, HrPerm.REVIEWS_MANAGE)
    if employee.deleted_at is not None or (employee.end_date and employee.end_date < timezone.localdate()):
        raise invalid("employeeId", _("employee {employee} has left or is archived"), employee=employee.pk)
    if Review.objects.filter(cycle=cycle, employee=employee, deleted_at__isnull=True).exists():
        raise invalid(
            "employeeId",
            _("{full_name} already has a review in cycle {name!r}"),
            full_name=employee.full_name,
            name=cycle.name,
        )
    if manager is None:
        manager = employee.manager.user if employee.manager and employee.manager.user_id else None
    if manager is None:
        raise invalid("managerEmail", _("the employee has no manager with an account: give managerEmail"))
    if employee.user_id and manager.pk == employee.user_id:
        raise invalid("managerEmail", _("a person cannot be the manager of their own review"))
    peers = peers or []
    if len(peers) > MAX_PEERS:
        raise invalid("peerEmails", _("at most {most} peers"), most=MAX_PEERS)
    taken = {employee.user_id, manager.pk}
    seen: set[int] = set()
    for peer in peers:
        if peer.pk in taken:
            raise invalid(
                "peerEmails", _("{email} is the employee or the manager, not a peer"), email=peer.email
            )
        if peer.pk in seen:
            raise invalid("peerEmails", _("{email} is given twice"), email=peer.email)
        seen.add(peer.pk)
    review = Review.objects.create(cycle=cycle, employee=employee, manager=manager, created_by=person(actor))
    authors = [(Assessment.Kind.MANAGER, manager)] + [(Assessment.Kind.PEER, p) for p in peers]
    if employee.user_id:
        authors.insert(0, (Assessment.Kind.SELF, employee.user))
    Assessment.objects.bulk_create([Assessment(review=review, kind=k, author=a) for k, a in authors])
    logger.info("review %s created in cycle %s", review.pk, cycle.pk)
    return review


@transaction.atomic
def assessment_submit(*, actor: Actor, review: Review, rating: int | None, text: str) -> Assessment:
    """Submits the actor's own assessment in `review`; it is locked from then on."""
    require(actor, HrPerm.REVIEWS)
    found = Assessment.objects.select_for_update().filter(review=review, author_id=actor_id(actor)).first()
    if found is None:
        raise invalid("reviewId", _("you have no assessment to give in review {review}"), review=review.pk)
    if found.locked:
        raise AssessmentLocked(
            kind=found.kind, review=review.pk, submitted=found.submitted_at, details={"reviewId": ["locked"]}
        )
    if rating is not None and not 1 <= rating <= 5:
        raise invalid("rating", _("from 1 to 5"))
    found.text = clean.long_text(text, field="text", limit=10_000, required=True)
    found.rating = rating
    found.submitted_at = timezone.now()
    found.save(update_fields=["text", "rating", "submitted_at"])
    logger.info("assessment %s of review %s submitted", found.pk, review.pk)
    return found
