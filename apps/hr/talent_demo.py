"""The demo workspaces' reviews, training, policies, grievances and hiring (run by
apps.hr.demo.seed): a review cycle, a training record, a policy in two versions, a grievance, and
a hiring pipeline with candidates. Made once: a second run finds the pipeline and changes nothing."""

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.hr.models import Employee, HiringPipeline
from apps.hr.services import grievances, hiring, policies, reviews, training

PIPELINE = "Support engineer"


@transaction.atomic
def seed(*, people: list[Any], domain: str) -> None:
    if HiringPipeline.objects.filter(name=PIPELINE).exists():
        return
    by_role = {person.role.key: person for person in people if person.role}
    owner = by_role["owner"]
    today = timezone.localdate()
    member = Employee.objects.filter(user=by_role.get("member")).first() if "member" in by_role else None
    if member is not None:
        cycle = reviews.cycle_find_or_create(
            actor=owner, name=f"{today.year} annual review", due=today + timedelta(days=30)
        )
        review = reviews.review_create(
            actor=owner,
            cycle=cycle,
            employee=member,
            manager=by_role.get("admin", owner),
            peers=[by_role["viewer"]] if "viewer" in by_role else [],
        )
        reviews.assessment_submit(
            actor=by_role["member"],
            review=review,
            rating=4,
            text="Grew the key accounts; want to mentor next year.",
        )
        training.training_add(
            actor=owner,
            employee=member,
            course="First aid at work",
            provider="St John Ambulance",
            completed_on=today - timedelta(days=700),
            valid_months=36,
        )
    first = policies.policy_publish(
        actor=owner,
        title="Remote work",
        text="Work from home up to three days a week.",
        summary="First version",
    )
    if "member" in by_role:
        policies.policy_acknowledge(actor=by_role["member"], version=first)
    policies.policy_publish(
        actor=owner,
        title="Remote work",
        text="Work from home up to three days a week, from anywhere in the EU for up to 30 days a year.",
        summary="Working from abroad",
    )
    grievances.grievance_file(
        actor=by_role.get("member", owner),
        category="workload",
        description="On-call rota has had me on every weekend this month.",
        about="Support rota",
    )
    pipeline = hiring.pipeline_create(
        actor=owner,
        name=PIPELINE,
        stages=["Applied", "Phone screen", "Interview", "Offer", "Hired"],
        decision_stages=["Offer", "Hired"],
        location="London or remote",
    )
    first_candidate, _ = hiring.candidate_create(
        actor=owner,
        pipeline=pipeline,
        fields={
            "name": "Ines Okafor",
            "email": f"ines.okafor@{domain}",
            "source": "referral",
            "consent": True,
            "notes": "Five years of Linux and PostgreSQL support.",
        },
    )
    hiring.candidate_move(
        actor=owner, candidate=first_candidate, stage=pipeline.stages.get(name="Phone screen")
    )
    hiring.candidate_create(
        actor=owner,
        pipeline=pipeline,
        fields={"name": "Tomas Berg", "email": f"tomas.berg@{domain}", "source": "job board"},
    )
