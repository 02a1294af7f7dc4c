"""Leave beyond annual leave in the catalogue: the types and their policies, balance adjustments
(time in lieu earned, corrections) and company holidays (apps.hr.services.leave_setup)."""

from datetime import date
from decimal import Decimal
from typing import Annotated, Literal

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field, WithJsonSchema

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import RefOut, id_field
from apps.core.errors import invalid
from apps.hr.errors import NotYourBalance
from apps.hr.models import CompanyHoliday, Employee, LeaveRequest
from apps.hr.permissions import HrPerm
from apps.hr.selectors import employees as people
from apps.hr.services import leave as services
from apps.hr.services import leave_setup
from apps.hr.shapes import (
    AdjustedOut,
    AdjustmentOut,
    BalanceOut,
    CompanyHolidayOut,
    CompanyHolidaysOut,
    EffectOut,
    LeaveSetupOut,
    LeaveTypeOut,
    LeaveTypesOut,
    TypeBalanceOut,
)
from apps.hr.tools.leave import Whose, employee_for

# Days as a JSON number or a string of digits ("1.5"): a number, never free text.
Days = Annotated[
    Decimal,
    Field(allow_inf_nan=False, max_digits=7, decimal_places=3),
    WithJsonSchema({"type": ["string", "number"], "pattern": r"^-?\d+(\.\d+)?$"}),
]
TypeName = Annotated[str, Field(description="Leave type: annual, sick, parental, unpaid, toil...")]


def balance_out(found: services.Balance) -> BalanceOut:
    return BalanceOut(
        policy=found.policy.name,
        balance_today=found.balance_today,
        year_end_balance=found.year_end_balance,
        pending=found.pending,
        available=found.available,
        taken_this_year=found.taken_this_year,
        carried_over=found.carried_over,
    )


def balances_of(employee: Employee, year: int | None) -> list[TypeBalanceOut]:
    """The employee's balance of each leave type, on their policy of it, with the year's
    adjustments."""
    year = year or timezone.localdate().year
    adjustments = list(services.adjustments_of(employee=employee, year=year))
    found = []
    for leave_type in services.types_live():
        policy = services.policy_for(employee=employee, type_name=leave_type.code)
        balance = balance_out(services.balance_of(employee=employee, policy=policy, year=year))
        found.append(
            TypeBalanceOut(
                **balance.model_dump(),
                type=leave_type.code,
                paid=leave_type.paid,
                counts_against_balance=leave_type.counts_against_balance,
                adjustments=[
                    AdjustmentOut.of_record(entry) for entry in adjustments if entry.policy_id == policy.pk
                ],
            )
        )
    return found


@tool("listLeaveTypes", permission=HrPerm.VIEW, title="List leave types and balances", read_only=True)
def list_leave_types(
    ctx: ToolContext,
    *,
    employee_id: Whose = None,
    year: Annotated[int | None, Field(ge=2000, le=2100, description="Default: this year")] = None,
) -> LeaveTypesOut:
    """Leave types and policies with an employee's balance and adjustments per type (getLeaveBalance: one).

    Annual, sick, parental, unpaid and time in lieu (toil), beside any HR adds."""
    types = [LeaveTypeOut.of(leave_type) for leave_type in services.types_live()]
    employee = (
        employee_for(ctx, employee_id) if employee_id or people.employee_of(ctx.actor) is not None else None
    )
    if employee is not None and not LeaveRequest.access.covers(ctx.actor, employee=employee):
        raise NotYourBalance()
    closed = CompanyHoliday.objects.live().filter(date__year=year or timezone.localdate().year)
    if employee is not None:
        closed = closed.filter(Q(location="") | Q(location__iexact=employee.location.strip()))
    return LeaveTypesOut(
        types=types,
        employee=RefOut(id=employee.pk, name=employee.full_name) if employee is not None else None,
        balances=balances_of(employee, year) if employee is not None else [],
        company_holidays=[CompanyHolidayOut.of_record(row) for row in closed.order_by("date", "id")],
    )


@tool("adjustLeaveBalance", permission=HrPerm.VIEW, title="Adjust a leave balance", idempotent=False)
def adjust_leave_balance(
    ctx: ToolContext,
    *,
    employee_id: Annotated[int, id_field("searchEmployees")],
    days: Annotated[Days, Field(description="In (e.g. time in lieu earned) or out (negative)")],
    reason: Annotated[str, Field(min_length=1, max_length=200, description="Kept in the ledger")],
    type: TypeName = "annual",
    effective: Annotated[date | None, Field(description="Default: today")] = None,
) -> AdjustedOut:
    """Add or remove days of an employee's leave balance with a reason: TOIL earned, a
    correction. HR, or the employee's line manager."""
    employee = employee_for(ctx, employee_id)
    policy = services.policy_for(employee=employee, type_name=type)
    entry = services.balance_adjust(
        actor=ctx.actor, employee=employee, policy=policy, days=days, reason=reason, effective=effective
    )
    year = entry.effective.year
    return AdjustedOut(
        adjustment=AdjustmentOut.of_record(entry),
        balance=balance_out(services.balance_of(employee=employee, policy=policy, year=year)),
    )


@tool("manageLeavePolicy", permission=HrPerm.EMPLOYEES, title="Manage leave types and policies")
def manage_leave_policy(
    ctx: ToolContext,
    *,
    action: Annotated[
        Literal["create", "update", "assign", "type"],
        Field(description="type: the leave type itself"),
    ],
    type: TypeName = "",
    policy: Annotated[str, Field(description="Policy name (update, assign)")] = "",
    name: Annotated[str, Field(max_length=100, description="Policy or type name to give")] = "",
    annual_days: Annotated[Days | None, Field(description="Full time, a year")] = None,
    accrual: Annotated[Literal["monthly", "yearly"] | None, Field(description="How days are earned")] = None,
    carry_over_cap: Annotated[Days | None, Field(description="Kept into next year")] = None,
    carry_over_expiry_months: Annotated[int | None, Field(description="Carried days expire after")] = None,
    is_default: Annotated[bool | None, Field(description="The type's default policy")] = None,
    allow_half_days: Annotated[bool | None, Field(description="Halves allowed")] = None,
    employee_ids: Annotated[list[int], Field(description="assign: who")] = [],  # noqa: B006
    paid: Annotated[bool | None, Field(description="type: a paid leave")] = None,
    counts_against_balance: Annotated[
        bool | None, Field(description="type: counted against a balance")
    ] = None,
    recorded_only: Annotated[bool | None, Field(description="type: taken without a decision (sick)")] = None,
) -> LeaveSetupOut:
    """Create, change or assign a leave policy (entitlement, accrual, carry-over), or a leave type."""
    if action == "type":
        found = services.types_live().filter(code__iexact=type.strip()).first() if type.strip() else None
        leave_type = leave_setup.type_save(
            actor=ctx.actor,
            leave_type=found,
            code=type,
            name=name,
            paid=paid,
            counts_against_balance=counts_against_balance,
            needs_approval=None if recorded_only is None else not recorded_only,
            allow_half_days=allow_half_days,
        )
        return LeaveSetupOut(type=LeaveTypeOut.of(leave_type))
    settings = {
        "annual_days": annual_days,
        "accrual": accrual,
        "carry_over_cap": carry_over_cap,
        "carry_over_expiry_months": carry_over_expiry_months,
        "allow_half_days": allow_half_days,
    }
    if action == "create":
        saved = leave_setup.policy_save(
            actor=ctx.actor,
            policy=None,
            leave_type=services.type_named(type),
            name=name,
            is_default=is_default,
            **settings,
        )
        return LeaveSetupOut(type=LeaveTypeOut.of(saved.leave_type))
    if not policy:
        raise invalid("policy", _("name the policy to {action}"), action=action)
    found_policy = services.policy_named(policy)
    if action == "update":
        saved = leave_setup.policy_save(
            actor=ctx.actor,
            policy=found_policy,
            leave_type=services.type_named(type) if type else None,
            name=name,
            is_default=is_default,
            **settings,
        )
        return LeaveSetupOut(type=LeaveTypeOut.of(saved.leave_type))
    employees = [people.employee_get(actor=ctx.actor, employee_id=pk) for pk in dict.fromkeys(employee_ids)]
    leave_setup.policy_assign(actor=ctx.actor, policy=found_policy, employees=employees)
    return LeaveSetupOut(
        type=LeaveTypeOut.of(found_policy.leave_type),
        assigned=[RefOut(id=employee.pk, name=employee.full_name) for employee in employees],
    )


@tool("manageCompanyHolidays", permission=HrPerm.EMPLOYEES, title="Company holidays")
def manage_company_holidays(
    ctx: ToolContext,
    *,
    action: Annotated[Literal["list", "add", "remove"], Field(description="Default: list")] = "list",
    date: Annotated[date | None, Field(description="add: the day")] = None,
    name: Annotated[str, Field(max_length=100, description="add: e.g. Company day")] = "",
    location: Annotated[str, Field(max_length=200, description="add: employees' location; empty: all")] = "",
    holiday_id: Annotated[int | None, Field(description="remove: its id")] = None,
    year: Annotated[int | None, Field(ge=2000, le=2100, description="list: default this year")] = None,
) -> CompanyHolidaysOut:
    """Days the company closes beside public holidays (for all, or one location); leave skips
    them. Open leave that covers the day is counted again (in effects)."""
    change = None
    if action == "add":
        if date is None:
            raise invalid("date", _("the day of the company holiday"))
        change = leave_setup.holiday_add(actor=ctx.actor, day=date, name=name, location=location)
    elif action == "remove":
        found = CompanyHoliday.objects.live().filter(pk=holiday_id).first() if holiday_id else None
        if found is None:
            raise invalid("holidayId", _("no company holiday {id}; list them first"), id=holiday_id)
        change = leave_setup.holiday_remove(actor=ctx.actor, holiday=found)
    if change is not None:
        year = year or change.holiday.date.year
    year = year or timezone.localdate().year
    rows = CompanyHoliday.objects.live().filter(date__year=year).order_by("date", "id")
    return CompanyHolidaysOut(
        items=[CompanyHolidayOut.of_record(row) for row in rows],
        changed=CompanyHolidayOut.of_record(change.holiday) if change is not None else None,
        effects=[EffectOut.of_record(effect) for effect in change.effects] if change is not None else [],
    )
