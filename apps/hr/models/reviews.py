"""Performance reviews: a cycle (a period people are reviewed for), a review of one employee in
it, and the assessments of that review (the employee's own, their manager's, and peers').

Who sees what (the declarations below): an author always sees their own assessment; the manager
sees every submitted assessment of the reviews they run; the employee sees their own and the
manager's once submitted, never the peers'; those who run cycles (hr.reviews_manage) see every
submitted one. An assessment is locked once submitted: nobody changes it afterwards."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record, RecordQuerySet, live_once, name_once
from apps.hr.permissions import HrPerm

USER = settings.AUTH_USER_MODEL


class ReviewCycle(Record):
    access = Access(
        HrPerm,
        visibility="workspace",
        view=HrPerm.REVIEWS,
        manage=HrPerm.REVIEWS_MANAGE,
        admin=HrPerm.REVIEWS_MANAGE,
        label=_("Review cycle"),
        find_with="getReviewCycles",
    )

    name = models.CharField(_("name"), max_length=120)
    due = models.DateField(_("due"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "id"]
        verbose_name = _("review cycle")
        constraints = [name_once("hr_review_cycle_name_once")]

    def __str__(self) -> str:
        return self.name


class Review(Record):
    access = Access(
        HrPerm,
        # The manager runs it; the employee and the peers see it through their assessments.
        visibility="owner",
        owner="manager",
        also="assessments__author",
        view=HrPerm.REVIEWS,
        change=HrPerm.REVIEWS,
        delete=HrPerm.REVIEWS_MANAGE,
        admin=HrPerm.REVIEWS_MANAGE,
        label=_("Review"),
        find_with="getReviewCycles",
    )

    cycle = models.ForeignKey(ReviewCycle, on_delete=models.CASCADE, related_name="reviews")
    employee = models.ForeignKey("hr.Employee", on_delete=models.CASCADE, related_name="reviews")
    manager = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["cycle", "id"]
        verbose_name = _("review")
        constraints = [live_once("hr_review_once", "cycle", "employee")]

    def __str__(self) -> str:
        return f"review {self.pk}"


def _readers(person_id: int) -> Q:
    """Who reads an assessment besides its author, once it is submitted: the review's manager,
    and the employee their manager's."""
    manager = Q(review__manager=person_id)
    return manager | Q(review__employee__user=person_id, kind=Assessment.Kind.MANAGER)


class Assessment(models.Model):
    access = Access(
        HrPerm,
        through="review",
        visibility="owner",
        owner="author",
        also=_readers,
        drafts=Q(submitted_at__isnull=True),
        view=HrPerm.REVIEWS,
        change=HrPerm.REVIEWS,
        delete=HrPerm.REVIEWS_MANAGE,
        admin=HrPerm.REVIEWS_MANAGE,
        label=_("Assessment"),
        find_with="getReviewCycles",
    )

    class Kind(models.TextChoices):
        SELF = "self", _("self")
        MANAGER = "manager", _("manager")
        PEER = "peer", _("peer")

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="assessments")
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    author = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="+")
    rating = models.PositiveSmallIntegerField(_("rating"), null=True, blank=True)
    text = models.TextField(_("assessment"), blank=True)
    submitted_at = models.DateTimeField(_("submitted"), null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["review", "kind", "id"]
        verbose_name = _("assessment")
        constraints = [
            models.UniqueConstraint(fields=["review", "author"], name="hr_assessment_once"),
            models.CheckConstraint(
                condition=Q(rating__isnull=True) | Q(rating__gte=1, rating__lte=5), name="hr_rating_1_to_5"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} assessment of review {self.review_id}"

    @property
    def locked(self) -> bool:
        return self.submitted_at is not None
