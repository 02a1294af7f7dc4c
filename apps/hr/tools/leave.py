"""Leave in the catalogue: requests, decisions and balances (apps.hr.services.leave)."""

from datetime import date
from typing import Annotated, Literal

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Limit, Offset, Page, id_field, paginate
from apps.core.errors import invalid
from apps.hr.errors import NotYourBalance
from apps.hr.models import Employee, LeaveRequest
from apps.hr.permissions import HrPerm
from apps.hr.selectors import employees as people
from apps.hr.selectors import leave as selectors
from apps.hr.services import leave as services
from apps.hr.shapes import BalanceOut, LeaveRequestOut

RequestId = Annotated[int, id_field("getLeaveRequests")]
Whose = Annotated[int | None, id_field("searchEmployees", description="Default: yourself")]
Policy = Annotated[str, Field(description="Leave policy name; default: the default")]
LeaveTypeCode = Annotated[
    str, Field(description="Leave type: annual (default), sick, parental, unpaid, toil...")
]


def employee_for(ctx: ToolContext, employee_id: int | None) -> Employee:
    """The employee named, or the caller's own employment record."""
    if employee_id:
        return people.employee_get(actor=ctx.actor, employee_id=employee_id)
    own = people.employee_of(ctx.actor)
    if own is None:
        raise invalid("employeeId", _("you have no employment record here; give the employee's id"))
    return own


def _request(ctx: ToolContext, request_id: int) -> LeaveRequest:
    return selectors.requests_visible(actor=ctx.actor).fetch(ctx.actor, request_id)


@tool("submitLeaveRequest", permission=HrPerm.VIEW, title="Request leave")
def submit_leave_request(
    ctx: ToolContext,
    *,
    start_date: Annotated[date, Field(description="First day off")],
    end_date: Annotated[date, Field(description="Last day off")],
    employee_id: Whose = None,
    policy: Policy = "",
    start_half: Annotated[bool, Field(description="First day: afternoon only")] = False,
    end_half: Annotated[bool, Field(description="Last day: morning only")] = False,
    note: Annotated[str, Field(max_length=500, description="For the approver")] = "",
    type: LeaveTypeCode = "",
) -> LeaveRequestOut:
    """Ask for time off; working days exclude weekends and public holidays. Decide: approveLeaveRequest."""
    employee = employee_for(ctx, employee_id)
    request = services.request_submit(
        actor=ctx.actor,
        employee=employee,
        policy=services.policy_for(employee=employee, type_name=type, policy_name=policy),
        start=start_date,
        end=end_date,
        start_half=start_half,
        end_half=end_half,
        note=note,
    )
    return LeaveRequestOut.of(request)


@tool("approveLeaveRequest", permission=HrPerm.VIEW, title="Approve leave", idempotent=False)
def approve_leave_request(
    ctx: ToolContext,
    *,
    request_id: RequestId,
    note: Annotated[str, Field(max_length=500, description="For the employee")] = "",
) -> LeaveRequestOut:
    """Approve a pending leave request: days leave the balance, the leave shows in Calendars."""
    request = services.request_approve(actor=ctx.actor, request=_request(ctx, request_id), note=note)
    return LeaveRequestOut.of(request)


@tool("denyLeaveRequest", permission=HrPerm.VIEW, title="Deny or cancel leave")
def deny_leave_request(
    ctx: ToolContext,
    *,
    request_id: RequestId,
    reason: Annotated[str, Field(min_length=1, max_length=500, description="Told to the employee")],
) -> LeaveRequestOut:
    """Deny a pending leave request, or cancel an approved one (its days return to the balance).

    The employee who asked may withdraw their own pending request."""
    request = services.request_deny(actor=ctx.actor, request=_request(ctx, request_id), reason=reason)
    return LeaveRequestOut.of(request)


@tool("getLeaveRequests", permission=HrPerm.VIEW, title="Get leave requests", read_only=True)
def get_leave_requests(
    ctx: ToolContext,
    *,
    status: Annotated[
        Literal["pending", "approved", "denied", "cancelled", "all"], Field(description="Default pending")
    ] = "pending",
    employee_id: Annotated[int | None, id_field("searchEmployees")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
    type: Annotated[str, Field(description="Leave type code; default: every type")] = "",
) -> Page[LeaveRequestOut]:
    """Leave requests you may see (your reports' too; all of them for approvers), soonest first."""
    rows = selectors.requests_visible(actor=ctx.actor)
    if status != "all":
        rows = rows.filter(status=status)
    if type:
        rows = rows.filter(policy__leave_type=services.type_named(type))
    if employee_id:
        Employee.objects.fetch(ctx.actor, employee_id)  # one they may not see, or none: not found
        rows = rows.filter(employee_id=employee_id)
    return paginate(rows.order_by("start_date", "id"), limit=limit, offset=offset, item=LeaveRequestOut.of)


@tool("getLeaveBalance", permission=HrPerm.VIEW, title="Get a leave balance", read_only=True)
def get_leave_balance(
    ctx: ToolContext,
    *,
    employee_id: Whose = None,
    policy: Policy = "",
    year: Annotated[int | None, Field(ge=2000, le=2100, description="Default: this year")] = None,
    type: LeaveTypeCode = "",
) -> BalanceOut:
    """Days of leave left, from the ledger of accruals, leave taken and carry-over."""
    employee = employee_for(ctx, employee_id)
    if not LeaveRequest.access.covers(ctx.actor, employee=employee):
        raise NotYourBalance()
    chosen = services.policy_for(employee=employee, type_name=type, policy_name=policy)
    found = services.balance_of(employee=employee, policy=chosen, year=year)
    return BalanceOut.of_record(found, policy=found.policy.name)
