"""Employees for tests, made through the service as HR makes them (apps.core.factories):
`EmployeeFactory(actor=people["owner"], fte="0.6", start_date=date(2030, 3, 15))`; and the rows
of every HR record for the access test (`access_rows`)."""

import uuid
from datetime import date, timedelta
from typing import Any

from django.utils import timezone

from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered
from apps.hr.lib.leave import public_holidays
from apps.hr.models import Employee
from apps.hr.services import employees


def _employee(*, actor: Any, fields: dict[str, Any]) -> Employee:
    return employees.employee_create(actor=actor, fields=fields)


class EmployeeFactory(ServiceFactory):
    class Meta:
        model = Employee

    full_name = numbered(fake.name, " ")
    job_title = "Engineer"
    start_date = date(2020, 1, 1)
    country = "GB"
    region = "ENG"
    time_zone = "Europe/London"
    _service = staticmethod(_employee)


# --- reviews, training, policies, grievances, hiring ---------------------------------------------


def hiring_pipeline(actor: Any, name: str = "", stages: tuple[str, ...] = ()) -> Any:
    """A hiring pipeline (Applied, Interview, Offer, Hired; Offer and Hired are decisions)."""
    import uuid

    from apps.hr.services import hiring

    return hiring.pipeline_create(
        actor=actor,
        name=name or f"Job {uuid.uuid4().hex[:8]}",
        stages=list(stages or ("Applied", "Interview", "Offer", "Hired")),
        decision_stages=["Offer", "Hired"] if not stages else None,
    )


def candidate(actor: Any, pipeline: Any, **fields: Any) -> Any:
    from apps.hr.services import hiring

    fields.setdefault("name", fake.name())
    fields.setdefault("email", f"{fake.user_name()}.{fake.random_int(1, 10**9)}@example.net")
    made, _looks = hiring.candidate_create(actor=actor, pipeline=pipeline, fields=fields)
    return made


def review(
    actor: Any, employee: Employee, manager: Any, peers: list[Any] | None = None, cycle: str = ""
) -> Any:
    """A review of `employee` run by `manager` in a cycle (new unless named)."""
    import uuid

    from apps.hr.services import reviews

    found = reviews.cycle_find_or_create(actor=actor, name=cycle or f"Cycle {uuid.uuid4().hex[:8]}")
    return reviews.review_create(actor=actor, cycle=found, employee=employee, manager=manager, peers=peers)


def monday_ahead(weeks: int = 5) -> Any:
    """A Monday some weeks ahead whose Monday to Wednesday are working days in England."""
    day = timezone.localdate() + timedelta(weeks=weeks)
    day -= timedelta(days=day.weekday())
    while True:
        days = [day + timedelta(days=n) for n in range(3)]
        if (
            not any(d in public_holidays("GB", "ENG", days[0], days[-1]) for d in days)
            and days[0].year == days[-1].year
        ):
            return day
        day += timedelta(weeks=1)


def employee_of(person: Any, *, actor: Any) -> Employee:
    """The person's employment record (the demo gives one to each demo person), or a new one."""
    found = Employee.objects.live().filter(user=person).first()
    return found or EmployeeFactory(actor=actor, person_email=person.email)


# --- the rows of each HR record, for the access test (tests/test_access_per_model.py) ----------------


@access_rows("hr.Employee")
def _employees(people: dict[str, Any]) -> AccessRows:
    return AccessRows(
        everyone=[EmployeeFactory(actor=people["owner"])],
        listed=lambda person: listed(person, "listEmployees", {"status": "all", "limit": 100}),
    )


@access_rows("hr.LeavePolicy")
def _leave_policies(people: dict[str, Any]) -> AccessRows:
    from apps.hr.models import LeavePolicy

    return AccessRows(
        everyone=[LeavePolicy.objects.create(name=f"Leave {uuid.uuid4().hex[:8]}", annual_days=20)]
    )


@access_rows("hr.LeaveType")
def _leave_types(people: dict[str, Any]) -> AccessRows:
    from apps.hr.models import LeaveType

    return AccessRows(everyone=[LeaveType.objects.create(code=f"t{uuid.uuid4().hex[:8]}", name="Study")])


@access_rows("hr.CompanyHoliday")
def _company_holidays(people: dict[str, Any]) -> AccessRows:
    from apps.hr.models import CompanyHoliday

    return AccessRows(everyone=[CompanyHoliday.objects.create(date=date(2031, 12, 24), name="Closed")])


@access_rows("hr.LeaveRequest")
def _leave_requests(people: dict[str, Any]) -> AccessRows:
    """The member's own request, and one HR asked for the viewer: each sees their own alone."""
    from apps.hr.services import leave

    def requested(actor: Any, person: Any) -> Any:
        start = monday_ahead(weeks=9)
        return leave.request_submit(
            actor=actor,
            employee=employee_of(person, actor=people["owner"]),
            policy=leave.policy_default(),
            start=start,
            end=start + timedelta(days=2),
        )

    return AccessRows(
        own={
            "member": [requested(people["member"], people["member"])],
            "viewer": [requested(people["admin"], people["viewer"])],
        },
        listed=lambda person: listed(person, "getLeaveRequests", {"status": "all", "limit": 100}),
    )


@access_rows("hr.TimeEntry")
def _time_entries(people: dict[str, Any]) -> AccessRows:
    """The member's own entry, and one HR clocked for the viewer (whose role keeps no time)."""
    from apps.hr.services import time as clock

    def clocked(actor: Any, person: Any) -> Any:
        employee = employee_of(person, actor=people["owner"])
        entry, _warnings = clock.clock_in(
            actor=actor, employee=employee, at=timezone.now() - timedelta(minutes=3)
        )
        return entry

    return AccessRows(
        own={
            "member": [clocked(people["member"], people["member"])],
            "viewer": [clocked(people["owner"], people["viewer"])],
        }
    )


def _onboarding(people: dict[str, Any]) -> Any:
    """A checklist for a new hire whose manager is the member: some of its items are the member's."""
    from apps.hr.services import onboarding

    manager = employee_of(people["member"], actor=people["owner"])
    hire = EmployeeFactory(actor=people["owner"], manager_id=manager.pk)
    return onboarding.checklist_start(
        actor=people["owner"], employee=hire, template=onboarding.template_standard()
    )


@access_rows("hr.OnboardingTemplate")
def _onboarding_templates(people: dict[str, Any]) -> AccessRows:
    from apps.hr.services import onboarding

    return AccessRows(everyone=[onboarding.template_standard()])


@access_rows("hr.OnboardingChecklist")
def _onboarding_checklists(people: dict[str, Any]) -> AccessRows:
    return AccessRows(everyone=[_onboarding(people)])


@access_rows("hr.OnboardingItem")
def _onboarding_items(people: dict[str, Any]) -> AccessRows:
    """Seen by everyone with the checklist; changed by their owners (the member, HR) alone."""
    items = list(_onboarding(people).items.all())
    assert any(item.owner_id == people["member"].pk for item in items)
    return AccessRows(everyone=items)


@access_rows("hr.Policy")
def _policies(people: dict[str, Any]) -> AccessRows:
    from apps.hr.services import policies

    version = policies.policy_publish(
        actor=people["owner"], title=f"Expenses {uuid.uuid4().hex[:6]}", text="Keep the receipts."
    )
    return AccessRows(
        everyone=[version.policy],
        listed=lambda person: listed(person, "getPolicies", {"limit": 100}),
    )


@access_rows("hr.ReviewCycle")
def _review_cycles(people: dict[str, Any]) -> AccessRows:
    from apps.hr.services import reviews

    return AccessRows(
        everyone=[reviews.cycle_find_or_create(actor=people["owner"], name=f"Cycle {uuid.uuid4().hex[:8]}")]
    )


def _reviews(people: dict[str, Any]) -> tuple[Any, Any, Any]:
    """The member's review, run by the owner; a review the admin runs with the member as a peer;
    and one the member takes no part in."""
    owner, admin, member = people["owner"], people["admin"], people["member"]
    cycle = f"Cycle {uuid.uuid4().hex[:8]}"
    own = review(owner, employee_of(member, actor=owner), manager=owner, cycle=cycle)
    peer = review(owner, EmployeeFactory(actor=owner), manager=admin, peers=[member], cycle=cycle)
    other = review(owner, EmployeeFactory(actor=owner), manager=admin, cycle=cycle)
    return own, peer, other


def _in_cycles(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [found for cycle in answer["items"] for found in cycle["reviews"]]


@access_rows("hr.Review")
def _review_rows(people: dict[str, Any]) -> AccessRows:
    own, peer, other = _reviews(people)
    return AccessRows(
        own={"member": [own, peer], "owner": [own], "admin": [peer, other]},
        listed=lambda person: listed(person, "getReviewCycles", {"limit": 100}, items=_in_cycles),
    )


@access_rows("hr.Assessment")
def _assessments(people: dict[str, Any]) -> AccessRows:
    """The member's self assessment and their manager's (both submitted: the member reads both);
    as a peer, the admin's submitted one (not the member's to read) and the member's own, still a
    draft (nobody else's to read)."""
    from apps.hr.services import reviews

    owner, admin, member = people["owner"], people["admin"], people["member"]
    own, peer, _other = _reviews(people)
    own_self = reviews.assessment_submit(actor=member, review=own, rating=4, text="Shipped it")
    own_manager = reviews.assessment_submit(actor=owner, review=own, rating=4, text="Steady")
    peer_manager = reviews.assessment_submit(actor=admin, review=peer, rating=3, text="Fine")
    draft = peer.assessments.get(author=member)

    def assessments(answer: dict[str, Any]) -> list[dict[str, Any]]:
        return [found for each in _in_cycles(answer) for found in each["assessments"]]

    return AccessRows(
        own={"member": [own_self, own_manager, draft], "owner": [own_manager], "admin": [peer_manager]},
        drafts=[draft],
        listed=lambda person: listed(person, "getReviewCycles", {"limit": 100}, items=assessments),
    )


@access_rows("hr.TrainingRecord")
def _training(people: dict[str, Any]) -> AccessRows:
    from apps.hr.services import training

    record = training.training_add(
        actor=people["owner"],
        employee=EmployeeFactory(actor=people["owner"]),
        course="Fire warden",
        completed_on=timezone.localdate() - timedelta(days=10),
    )
    return AccessRows(
        everyone=[record], listed=lambda person: listed(person, "getTrainingRecords", {"limit": 100})
    )


@access_rows("hr.Grievance")
def _grievances(people: dict[str, Any]) -> AccessRows:
    from apps.hr.services import grievances

    filed = grievances.grievance_file(actor=people["member"], category="conduct", description="Shouting")
    return AccessRows(everyone=[filed], listed=lambda person: listed(person, "getGrievances", {"limit": 100}))


@access_rows("hr.HiringPipeline")
def _hiring_pipelines(people: dict[str, Any]) -> AccessRows:
    return AccessRows(everyone=[hiring_pipeline(people["owner"])])


@access_rows("hr.Candidate")
def _candidates(people: dict[str, Any]) -> AccessRows:
    made = candidate(people["owner"], hiring_pipeline(people["owner"]))
    return AccessRows(
        everyone=[made], listed=lambda person: listed(person, "listHiringCandidates", {"limit": 100})
    )


@factories.privacy_rows("hr")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's own leave request and time entry (theirs and HR's alone)."""
    from apps.hr.services import leave
    from apps.hr.services import time as clock

    owner = people["owner"]
    employee = employee_of(owner, actor=owner)
    rows.add("employeeId", record=employee)
    start = monday_ahead(weeks=9)
    request = leave.request_submit(
        actor=owner,
        employee=employee,
        policy=leave.policy_default(),
        start=start,
        end=start,
        note=f"{marker} note",
    )
    rows.add("requestId", "leaveRequestId", record=request)
    entry, _warnings = clock.clock_in(
        actor=owner, employee=employee, at=timezone.now() - timedelta(minutes=3), note=f"{marker} note"
    )
    rows.add("entryId", "timeEntryId", record=entry)
