"""A normal call of every HR tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`, an owner."""

import uuid
from datetime import timedelta
from typing import Any

from django.utils import timezone

from apps.catalogue.testing import Sample, person_with, sample
from apps.hr.services import leave, onboarding
from apps.hr.services import time as clock
from apps.hr.tests.factories import EmployeeFactory


def monday_ahead(weeks: int = 5) -> Any:
    day = timezone.localdate() + timedelta(weeks=weeks)
    return day - timedelta(days=day.weekday())


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
    return _employee(actor, {"status": "all"})


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
