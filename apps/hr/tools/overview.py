"""The HR area as a whole: its dashboard, a deep read of one employee, and its page."""

from datetime import timedelta

from django.utils import timezone
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.kit import open_tool
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Out, RefOut
from apps.hr.models import LeaveRequest, TimeEntry
from apps.hr.permissions import HrPerm
from apps.hr.selectors import employees as people
from apps.hr.selectors import overview as selectors
from apps.hr.selectors import time as times
from apps.hr.services import leave, time
from apps.hr.shapes import (
    BalanceOut,
    EmployeeOut,
    EmployeeSummary,
    LeaveRequestOut,
    OnboardingItemOut,
)
from apps.hr.tools.common import EmployeeId
from apps.hr.tools.employees import employee_out


class DashboardOut(Out):
    headcount: int
    joining: list[EmployeeSummary] = Field(description="Next 30 days")
    leaving: list[EmployeeSummary] = Field(description="Next 30 days")
    pending_leave: int
    on_leave_today: list[str]
    clocked_in: int | None = Field(description="null: not yours to see")
    overdue_onboarding: int


@tool("getHrDashboard", permission=HrPerm.VIEW, title="HR dashboard", read_only=True)
def get_hr_dashboard(ctx: ToolContext) -> DashboardOut:
    """HR at a glance: headcount, joiners and leavers, leave to decide, who is away or clocked in."""
    found = selectors.dashboard(actor=ctx.actor)
    return DashboardOut(
        headcount=found["headcount"],
        joining=[EmployeeSummary.of(e) for e in found["joining"]],
        leaving=[EmployeeSummary.of(e) for e in found["leaving"]],
        pending_leave=found["pending_leave"],
        on_leave_today=found["on_leave_today"],
        clocked_in=found["clocked_in"],
        overdue_onboarding=found["overdue_onboarding"],
    )


open_tool(
    "openHumanResources",
    permission=HrPerm.VIEW,
    title="Open HR",
    description="Link to the HR page (employees, leave to approve, time); one employee: openEmployee.",
    page="hr:home",
)


class ExamineOut(Out):
    employee: EmployeeOut
    reports: list[RefOut]
    balance: BalanceOut | None = Field(description="null: not yours to see")
    leave: list[LeaveRequestOut] = Field(description="Pending and coming")
    open_onboarding: list[OnboardingItemOut]
    worked_minutes_7d: int | None
    warnings: list[str]


@tool("examineEmployee", permission=HrPerm.VIEW, title="Examine an employee", read_only=True)
def examine_employee(ctx: ToolContext, *, employee_id: EmployeeId) -> ExamineOut:
    """One employee in depth: record, reports, leave balance and requests, onboarding, recent time."""
    employee = people.employee_get(actor=ctx.actor, employee_id=employee_id)
    today = timezone.localdate()
    balance = None
    if LeaveRequest.access.covers(ctx.actor, employee=employee):
        found = leave.balance_of(employee=employee, policy=leave.policy_default())
        balance = BalanceOut(
            **{name: getattr(found, name) for name in BalanceOut.model_fields if name != "policy"},
            policy=found.policy.name,
        )
    worked, warnings = None, []
    if TimeEntry.access.covers(ctx.actor, employee=employee):
        rows = list(
            times.entries_of(actor=ctx.actor, employee=employee, start=today - timedelta(days=6), end=today)
        )
        worked = sum(row.worked_minutes or 0 for row in rows)
        warnings = time.entries_warnings(employee, rows)
    items = selectors.open_items(actor=ctx.actor, employee=employee)
    return ExamineOut(
        employee=employee_out(ctx, employee),
        reports=[
            RefOut(id=r.pk, name=r.full_name) for r in employee.reports.filter(deleted_at__isnull=True)[:50]
        ],
        balance=balance,
        leave=[
            LeaveRequestOut.of(r)
            for r in selectors.upcoming_leave(actor=ctx.actor, employee=employee, since=today)[:20]
        ],
        open_onboarding=[OnboardingItemOut.of(item, today) for item in items[:50]],
        worked_minutes_7d=worked,
        warnings=warnings,
    )
