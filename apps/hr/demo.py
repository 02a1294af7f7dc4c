"""The demo workspaces' HR (`manage.py seed_demo`): an employment record for each demo person,
a new hire being onboarded, approved and pending leave, and a day on the time clock; then a review
cycle, a training record, a policy in two versions, a grievance, and a hiring pipeline with
candidates. Each part is made once: a second run finds the employees, or the pipeline, and
changes nothing."""

from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.db import transaction
from django.utils import timezone

from apps.hr.lib import leave
from apps.hr.models import Employee, HiringPipeline
from apps.hr.services import employees, grievances, hiring, onboarding, policies, reviews, training
from apps.hr.services import leave as leave_services
from apps.hr.services import time as clock

PIPELINE = "Support engineer"
JOBS = {"owner": "Managing director", "admin": "HR manager", "member": "Account manager", "viewer": "Analyst"}


def _working_day(employee: Employee, day: Any) -> Any:
    while not leave.is_working_day(employee, day):
        day += timedelta(days=1)
    return day


def seed(*, people: list[Any], domain: str) -> None:
    _seed_people(people=people, domain=domain)
    _seed_talent(people=people, domain=domain)


@transaction.atomic
def _seed_people(*, people: list[Any], domain: str) -> None:
    if Employee.objects.exists():
        return
    by_role = {person.role.key: person for person in people if person.role}
    owner = by_role["owner"]
    today = timezone.localdate()
    made: dict[str, Employee] = {}
    for key in ("owner", "admin", "member", "viewer"):
        person = by_role.get(key)
        if person is None:
            continue
        made[key] = employees.employee_create(
            actor=owner,
            fields={
                "full_name": person.full_name or key.capitalize(),
                "email": person.email,
                "person_email": person.email,
                "job_title": JOBS[key],
                "start_date": today.replace(year=today.year - 2, day=1),
                "manager_id": made["owner"].pk if "owner" in made else None,
                "country": "GB",
                "region": "ENG",
                "time_zone": "Europe/London",
                "fte": "0.8" if key == "viewer" else "1",
                "working_days": [0, 1, 2, 3] if key == "viewer" else [0, 1, 2, 3, 4],
            },
        )
    hire = employees.employee_create(
        actor=owner,
        fields={
            "full_name": "Noor Haddad",
            "email": f"noor.haddad@{domain}",
            "job_title": "Support engineer",
            "start_date": today + timedelta(days=7),
            "manager_id": made["admin"].pk if "admin" in made else None,
            "country": "GB",
            "region": "ENG",
        },
    )
    onboarding.checklist_start(actor=owner, employee=hire, template=onboarding.template_standard())
    member = made.get("member")
    if member is None:
        return
    policy = leave_services.policy_default()
    start = _working_day(member, today + timedelta(days=21))
    approved = leave_services.request_submit(
        actor=owner, employee=member, policy=policy, start=start, end=start
    )
    leave_services.request_approve(actor=by_role.get("admin", owner), request=approved)
    later = _working_day(member, start + timedelta(days=14))
    leave_services.request_submit(
        actor=owner, employee=member, policy=policy, start=later, end=later, end_half=True
    )
    zone = ZoneInfo(member.time_zone)
    day = today - timedelta(days=1)
    clock.clock_in(
        actor=owner, employee=member, at=datetime.combine(day, time(9), tzinfo=zone), reason="demo day"
    )
    clock.clock_out(
        actor=owner,
        employee=member,
        at=datetime.combine(day, time(17, 30), tzinfo=zone),
        break_minutes=30,
        reason="demo day",
    )


@transaction.atomic
def _seed_talent(*, people: list[Any], domain: str) -> None:
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
