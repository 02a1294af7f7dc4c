"""A normal call of every HR tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`, an owner."""

import uuid
from datetime import timedelta
from typing import Any

from django.utils import timezone

from apps.catalogue.testing import Sample, person_with, sample
from apps.hr.services import leave, onboarding
from apps.hr.services import time as clock
from apps.hr.tests.factories import EmployeeFactory, monday_ahead


def _employee(actor: Any, arguments: dict[str, Any] | None = None, **fields: Any) -> Sample:
    employee = EmployeeFactory(actor=actor, **fields)
    return Sample({"employeeId": employee.pk, **(arguments or {})}, private=[employee.full_name])


def _pending(actor: Any) -> tuple[Any, Any]:
    """A pending request made by someone else than `actor` (an approver never decides their own)."""
    employee = EmployeeFactory(actor=actor)
    clerk = person_with(
        {"hr.view", "hr.leave", "hr.approve_leave"}, email=f"clerk-{uuid.uuid4().hex[:8]}@example.org"
    )
    start = monday_ahead()
    request = leave.request_submit(
        actor=clerk,
        employee=employee,
        policy=leave.policy_default(),
        start=start,
        end=start + timedelta(days=2),
    )
    return employee, request


@sample("createEmployee")
def create_employee(actor: Any) -> Sample:
    return Sample(
        {
            "fullName": "Ada Quarrington",
            "startDate": (timezone.localdate() + timedelta(days=20)).isoformat(),
            "email": "ada.quarrington@example.org",
            "jobTitle": "Data engineer",
            "country": "DE",
            "region": "BY",
            "fte": 0.8,
        }
    )


@sample("getEmployee")
def get_employee(actor: Any) -> Sample:
    return _employee(actor)


@sample("updateEmployee")
def update_employee(actor: Any) -> Sample:
    return _employee(
        actor, {"changes": {"jobTitle": "Lead engineer", "payAmount": 61000, "payCurrency": "EUR"}}
    )


@sample("listEmployees")
def list_employees(actor: Any) -> Sample:
    employee = EmployeeFactory(actor=actor)
    return Sample({"status": "all"}, private=[employee.full_name])


@sample("searchEmployees")
def search_employees(actor: Any) -> Sample:
    employee = EmployeeFactory(actor=actor, full_name="Wilhelmina Quist")
    return Sample({"query": "Quist"}, private=[employee.full_name])


@sample("examineEmployee")
def examine_employee(actor: Any) -> Sample:
    return _employee(actor)


@sample("openEmployee")
def open_employee(actor: Any) -> Sample:
    return _employee(actor)


@sample("openHumanResources")
def open_human_resources(actor: Any) -> Sample:
    return Sample({})


@sample("getHrDashboard")
def get_hr_dashboard(actor: Any) -> Sample:
    return Sample({})


@sample("inviteEmployeeToTeam")
def invite_employee_to_team(actor: Any) -> Sample:
    return _employee(actor, {"role": "member"}, email=f"new-{uuid.uuid4().hex[:8]}@example.org")


@sample("submitLeaveRequest")
def submit_leave_request(actor: Any) -> Sample:
    start = monday_ahead()
    return _employee(
        actor,
        {
            "startDate": start.isoformat(),
            "endDate": (start + timedelta(days=2)).isoformat(),
            "note": "Family",
        },
    )


@sample("approveLeaveRequest")
def approve_leave_request(actor: Any) -> Sample:
    employee, request = _pending(actor)
    return Sample({"requestId": request.pk}, private=[employee.full_name])


@sample("denyLeaveRequest")
def deny_leave_request(actor: Any) -> Sample:
    employee, request = _pending(actor)
    return Sample({"requestId": request.pk, "reason": "Quarter-end close"}, private=[employee.full_name])


@sample("getLeaveRequests")
def get_leave_requests(actor: Any) -> Sample:
    employee, _request = _pending(actor)
    return Sample({"status": "all", "employeeId": employee.pk}, private=[employee.full_name])


@sample("getLeaveBalance")
def get_leave_balance(actor: Any) -> Sample:
    return _employee(actor)


@sample("listLeaveTypes")
def list_leave_types(actor: Any) -> Sample:
    return _employee(actor)


@sample("adjustLeaveBalance")
def adjust_leave_balance(actor: Any) -> Sample:
    return _employee(actor, {"days": 1.5, "reason": "worked the Saturday stock-take", "type": "toil"})


@sample("manageLeavePolicy")
def manage_leave_policy(actor: Any) -> Sample:
    # The same call in another workspace makes a policy of the same name there: nothing private.
    return Sample({"action": "create", "type": "annual", "name": "Senior staff", "annualDays": 30})


@sample("manageCompanyHolidays")
def manage_company_holidays(actor: Any) -> Sample:
    day = monday_ahead(weeks=6).isoformat()
    return Sample({"action": "add", "date": day, "name": "Founders day"})


@sample("clockIn")
def clock_in(actor: Any) -> Sample:
    return _employee(actor, {"note": "on site"})


@sample("clockOut")
def clock_out(actor: Any) -> Sample:
    employee = EmployeeFactory(actor=actor)
    clock.clock_in(actor=actor, employee=employee, at=timezone.now() - timedelta(minutes=3))
    return Sample({"employeeId": employee.pk, "breakMinutes": 0}, private=[employee.full_name])


@sample("getTimeEntries")
def get_time_entries(actor: Any) -> Sample:
    employee = EmployeeFactory(actor=actor)
    clock.clock_in(actor=actor, employee=employee, at=timezone.now() - timedelta(hours=3), reason="forgot")
    clock.clock_out(actor=actor, employee=employee, break_minutes=15)
    return Sample({"employeeId": employee.pk}, private=[employee.full_name])


@sample("startOnboarding")
def start_onboarding(actor: Any) -> Sample:
    return _employee(actor)


@sample("getOnboardingChecklist")
def get_onboarding_checklist(actor: Any) -> Sample:
    employee = EmployeeFactory(actor=actor)
    onboarding.checklist_start(actor=actor, employee=employee, template=onboarding.template_standard())
    return Sample({"employeeId": employee.pk}, private=[employee.full_name])


@sample("toggleOnboardingItem")
def toggle_onboarding_item(actor: Any) -> Sample:
    employee = EmployeeFactory(actor=actor)
    checklist = onboarding.checklist_start(
        actor=actor, employee=employee, template=onboarding.template_standard()
    )
    return Sample({"itemId": checklist.items.first().pk, "done": True}, private=[employee.full_name])


# --- reviews, training, policies, grievances, hiring ---------------------------------------------


def _manager_of_a_review(actor: Any) -> tuple[Any, Any]:
    from apps.hr.tests.factories import review

    employee = EmployeeFactory(actor=actor)
    return employee, review(actor, employee, manager=actor)


@sample("createReview")
def create_review(actor: Any) -> Sample:
    employee = EmployeeFactory(actor=actor)
    return Sample(
        {"employeeId": employee.pk, "cycle": f"H1 {uuid.uuid4().hex[:6]}", "managerEmail": actor.email},
        private=[employee.full_name],
    )


@sample("getReviewCycles")
def get_review_cycles(actor: Any) -> Sample:
    employee, review = _manager_of_a_review(actor)
    return Sample({"cycleId": review.cycle_id}, private=[employee.full_name])


@sample("submitAssessment")
def submit_assessment(actor: Any) -> Sample:
    employee, review = _manager_of_a_review(actor)
    text = f"Led the migration {uuid.uuid4().hex[:8]} calmly"
    return Sample({"reviewId": review.pk, "text": text, "rating": 4}, private=[employee.full_name, text])


@sample("addTrainingRecord")
def add_training_record(actor: Any) -> Sample:
    day = timezone.localdate() - timedelta(days=3)
    return _employee(
        actor, {"course": "First aid at work", "completedOn": day.isoformat(), "validMonths": 36}
    )


@sample("getTrainingRecords")
def get_training_records(actor: Any) -> Sample:
    from apps.hr.services import training

    sample = _employee(actor)
    employee_id = sample.arguments["employeeId"]
    from apps.hr.models import Employee

    training.training_add(
        actor=actor,
        employee=Employee.objects.get(pk=employee_id),
        course="Fire warden",
        completed_on=timezone.localdate() - timedelta(days=400),
        valid_months=12,
    )
    return Sample({"employeeId": employee_id, "status": "expired"}, private=sample.private)


def _policy(actor: Any) -> Any:
    from apps.hr.services import policies

    return policies.policy_publish(
        actor=actor, title=f"Remote work {uuid.uuid4().hex[:6]}", text="Work from anywhere in the EU."
    )


@sample("getPolicies")
def get_policies(actor: Any) -> Sample:
    version = _policy(actor)
    return Sample({"policyId": version.policy_id, "withText": True}, private=[version.policy.title])


@sample("getPolicyAcknowledgments")
def get_policy_acknowledgments(actor: Any) -> Sample:
    from apps.hr.services import policies

    version = _policy(actor)
    policies.policy_acknowledge(actor=actor, version=version)
    return Sample({"policyId": version.policy_id}, private=[version.policy.title])


@sample("fileGrievance")
def file_grievance(actor: Any) -> Sample:
    words = f"Shouted at in the stand-up {uuid.uuid4().hex[:8]}"
    return Sample({"category": "bullying", "description": words}, private=[words])


def _grievance(actor: Any) -> Any:
    from apps.hr.services import grievances

    return grievances.grievance_file(
        actor=actor, category="pay", description=f"Overtime unpaid {uuid.uuid4().hex[:8]}"
    )


@sample("getGrievances")
def get_grievances(actor: Any) -> Sample:
    grievance = _grievance(actor)
    return Sample({"grievanceId": grievance.pk}, private=[grievance.description])


@sample("updateGrievance")
def update_grievance(actor: Any) -> Sample:
    grievance = _grievance(actor)
    return Sample(
        {"grievanceId": grievance.pk, "status": "investigating", "note": "Interviews booked"},
        private=[grievance.description],
    )


@sample("createHiringPipeline")
def create_hiring_pipeline(actor: Any) -> Sample:
    return Sample(
        {
            "name": f"Backend engineer {uuid.uuid4().hex[:6]}",
            "stages": ["Applied", "Phone screen", "Interview", "Offer", "Hired"],
            "decisionStages": ["Offer", "Hired"],
        }
    )


def _candidate(actor: Any, arguments: dict[str, Any] | None = None, **fields: Any) -> Sample:
    from apps.hr.tests.factories import candidate, hiring_pipeline

    made = candidate(actor, hiring_pipeline(actor), **fields)
    return Sample({"candidateId": made.pk, **(arguments or {})}, private=[made.name, made.email])


@sample("getHiringPipelineOverview")
def get_hiring_pipeline_overview(actor: Any) -> Sample:
    sample = _candidate(actor)
    return Sample({}, private=sample.private)


@sample("createHiringCandidate")
def create_hiring_candidate(actor: Any) -> Sample:
    from apps.files.tests.factories import FileFactory
    from apps.hr.tests.factories import hiring_pipeline

    cv = FileFactory(
        actor=actor, name="cv-ines.txt", text="Ines Okafor. Python, PostgreSQL, Django; 6 years."
    )
    email = f"ines.{uuid.uuid4().hex[:8]}@example.net"
    return Sample(
        {
            "pipelineId": hiring_pipeline(actor).pk,
            "name": "Ines Okafor",
            "email": email,
            "source": "referral",
            "consent": True,
            "cvFileId": cv.pk,
        },
        private=[email],
    )


@sample("getHiringCandidate")
def get_hiring_candidate(actor: Any) -> Sample:
    return _candidate(actor, {"withCv": True})


@sample("updateHiringCandidate")
def update_hiring_candidate(actor: Any) -> Sample:
    return _candidate(actor, {"changes": {"source": "job board", "consent": True}})


@sample("listHiringCandidates")
def list_hiring_candidates(actor: Any) -> Sample:
    from apps.hr.models import Candidate

    sample = _candidate(actor)
    pipeline_id = Candidate.objects.get(pk=sample.arguments["candidateId"]).pipeline_id
    return Sample({"pipelineId": pipeline_id}, private=sample.private)


@sample("searchHiringCandidates")
def search_hiring_candidates(actor: Any) -> Sample:
    word = f"kotlin{uuid.uuid4().hex[:6]}"
    sample = _candidate(actor, notes=f"Strong {word} and Android")
    return Sample({"query": word}, private=sample.private)


@sample("moveHiringCandidateStage")
def move_hiring_candidate_stage(actor: Any) -> Sample:
    from apps.hr.models import Candidate

    sample = _candidate(actor)
    made = Candidate.objects.get(pk=sample.arguments["candidateId"])
    interview = made.pipeline.stages.get(name="Interview")
    return Sample({**sample.arguments, "stageId": interview.pk}, private=sample.private)


@sample("openHiringCandidate")
def open_hiring_candidate(actor: Any) -> Sample:
    return _candidate(actor)


@sample("deleteHiringCandidate")
def delete_hiring_candidate(actor: Any) -> Sample:
    return _candidate(actor)
