"""Performance reviews: createReview, getReviewCycles, submitAssessment."""

from datetime import date, datetime
from typing import Annotated

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, PersonRef, id_field, paginate
from apps.core import clean
from apps.hr.models import Assessment, Employee, Review, ReviewCycle
from apps.hr.permissions import HrPerm
from apps.hr.selectors import reviews as selectors
from apps.hr.services import reviews as services

Email = Annotated[str, Field(max_length=254)]


class AssessmentOut(Out):
    id: int
    kind: str
    author: PersonRef
    rating: int | None
    text: str
    submitted_at: datetime | None


class ReviewOut(Out):
    id: int
    cycle: str
    employee_id: int
    employee: str
    manager: PersonRef | None
    assessments: list[AssessmentOut] = Field(description="Those your role may see")

    @classmethod
    def of(cls, review: Review, actor: object) -> "ReviewOut":
        return cls(
            id=review.pk,
            cycle=review.cycle.name,
            employee_id=review.employee_id,
            employee=review.employee.full_name,
            manager=PersonRef.of(review.manager),
            assessments=[AssessmentOut.of_record(a) for a in selectors.visible_assessments(actor, review)],
        )


@tool("createReview", permission=HrPerm.REVIEWS_MANAGE, title="Create a performance review")
def create_review(
    ctx: ToolContext,
    *,
    employee_id: Annotated[int, id_field("searchEmployees")],
    cycle: Annotated[str, Field(min_length=1, max_length=120, description="Cycle name; made if new")],
    due: Annotated[date | None, Field(description="The cycle's due date")] = None,
    manager_email: Annotated[Email, Field(description="Default: the employee's manager")] = "",
    peer_emails: Annotated[list[Email], Field(max_length=10, description="Peer reviewers")] = [],  # noqa: B006
) -> ReviewOut:
    """Start an employee's review in a cycle: self, manager and peer assessments to fill."""
    employee = Employee.objects.select_related("manager__user").fetch(ctx.actor, employee_id)
    manager = clean.person_by_email(manager_email, field="managerEmail") if manager_email else None
    clean.able(manager, HrPerm.REVIEWS, field="managerEmail")
    peers = [
        clean.able(clean.person_by_email(email, field="peerEmails"), HrPerm.REVIEWS, field="peerEmails")
        for email in peer_emails
    ]
    found = services.cycle_find_or_create(actor=ctx.actor, name=cycle, due=due)
    review = services.review_create(
        actor=ctx.actor, cycle=found, employee=employee, manager=manager, peers=peers
    )
    return ReviewOut.of(review, ctx.actor)


class CycleOut(Out):
    id: int
    name: str
    due: date | None
    reviews: list[ReviewOut] = Field(description="Those you run, take part in, or (HR) all")


@tool("getReviewCycles", permission=HrPerm.REVIEWS, title="Get review cycles", read_only=True)
def get_review_cycles(
    ctx: ToolContext,
    *,
    cycle_id: Annotated[int | None, id_field("getReviewCycles", description="Only this cycle")] = None,
    limit: Limit = 10,
    offset: Offset = 0,
) -> Page[CycleOut]:
    """List review cycles with the reviews and assessments you may see, newest first."""
    cycles = ReviewCycle.objects.restrict(ctx.actor)
    if cycle_id:
        cycles = cycles.filter(pk=ReviewCycle.objects.fetch(ctx.actor, cycle_id).pk)

    def item(cycle: ReviewCycle) -> CycleOut:
        reviews = selectors.reviews_of(ctx.actor, cycle)[:50]
        return CycleOut.of_record(cycle, reviews=[ReviewOut.of(r, ctx.actor) for r in reviews])

    return paginate(cycles.order_by("-created_at", "-id"), limit=limit, offset=offset, item=item)


@tool("submitAssessment", permission=HrPerm.REVIEWS, title="Submit an assessment")
def submit_assessment(
    ctx: ToolContext,
    *,
    review_id: Annotated[int, id_field("getReviewCycles")],
    text: Annotated[str, Field(min_length=1, max_length=10_000, description="The assessment")],
    rating: Annotated[int | None, Field(ge=1, le=5, description="1-5")] = None,
) -> AssessmentOut:
    """Submit your own assessment (self, manager or peer) in a review; it is then locked."""
    review = Review.objects.fetch(ctx.actor, review_id)
    assessment = services.assessment_submit(actor=ctx.actor, review=review, rating=rating, text=text)
    return AssessmentOut.of_record(Assessment.objects.select_related("author").get(pk=assessment.pk))
