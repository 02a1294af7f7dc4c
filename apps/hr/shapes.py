"""What HR tools answer (apps.catalogue.shapes.Out). Restricted details are never read from an
employee: a tool passes them only to a reader with hr.restricted."""

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field

from apps.catalogue.shapes import From, Out, PersonRef, RefOut


class RestrictedOut(Out):
    pay_amount: Decimal | None
    pay_currency: str
    pay_period: str
    national_id: str
    health_notes: str


class EmployeeSummary(Out):
    id: int
    full_name: str
    job_title: str
    department: Annotated[str | None, From("department.name")] = None
    start_date: date
    end_date: date | None

    @classmethod
    def of(cls, employee: Any) -> "EmployeeSummary":
        return cls.of_record(employee, department=employee.department.name if employee.department else None)


class EmployeeOut(EmployeeSummary):
    email: str
    employment_type: str
    manager: RefOut | None
    person: PersonRef | None
    location: str
    country: str
    region: str
    time_zone: str
    fte: Decimal
    working_days: list[int] = Field(description="Monday 0")
    hours_per_week: Decimal
    archived: Annotated[bool, From("in_trash")]
    url: str = ""
    restricted: RestrictedOut | None = Field(default=None, description="Only with hr.restricted")

    @classmethod
    def full(cls, employee: Any, *, restricted: Any = None, url: str = "") -> "EmployeeOut":
        manager = employee.manager
        return cls.of_record(
            employee,
            department=employee.department.name if employee.department else None,
            manager=RefOut(id=manager.pk, name=manager.full_name) if manager else None,
            person=PersonRef.of(employee.user),
            restricted=RestrictedOut.of_record(restricted) if restricted is not None else None,
            url=url,
        )


class EffectOut(Out):
    kind: Literal[
        "leave_cancelled",
        "leave_to_shorten",
        "leave_recounted",
        "request_refused",
        "balance_prorated",
        "report_needs_manager",
    ]
    id: int | None = Field(default=None, description="The leave request, or the report's employee id")
    text: str


class EmployeeUpdated(EmployeeOut):
    effects: list[EffectOut] = Field(default=[], description="What ending the employment changed")


class LeaveRequestOut(Out):
    id: int
    employee: RefOut
    policy: Annotated[str, From("policy.name")]
    start_date: date
    end_date: date
    start_half: bool
    end_half: bool
    days: Decimal
    status: str
    note: str
    decided_by: PersonRef | None
    decided_at: datetime | None

    @classmethod
    def of(cls, request: Any) -> "LeaveRequestOut":
        return cls.of_record(
            request,
            employee=RefOut(id=request.employee_id, name=request.employee.full_name),
            decided_by=PersonRef.of(request.decided_by),
        )


class BalanceOut(Out):
    policy: str
    balance_today: Decimal
    year_end_balance: Decimal = Field(description="With accruals to 31 Dec, approved leave out")
    pending: Decimal
    available: Decimal = Field(description="What a new request may take")
    taken_this_year: Decimal
    carried_over: Decimal


class LeavePolicyOut(Out):
    id: int
    name: str
    annual_days: Decimal = Field(description="Full time, a year")
    accrual: str
    carry_over_cap: Decimal
    carry_over_expiry_months: int
    allow_half_days: bool
    is_default: bool = Field(description="The type's policy for everyone not assigned another")


class LeaveTypeOut(Out):
    code: str
    name: str
    paid: bool
    counts_against_balance: bool
    needs_approval: bool
    allow_half_days: bool
    policies: list[LeavePolicyOut]

    @classmethod
    def of(cls, leave_type: Any) -> "LeaveTypeOut":
        policies = leave_type.policies.filter(deleted_at__isnull=True).order_by("name", "id")
        return cls.of_record(leave_type, policies=[LeavePolicyOut.of_record(policy) for policy in policies])


class AdjustmentOut(Out):
    id: int
    type: Annotated[str, From("policy.leave_type.code")]
    policy: Annotated[str, From("policy.name")]
    days: Decimal = Field(description="In (positive) or out (negative)")
    reason: Annotated[str, From("note")]
    effective: date
    by: Annotated[PersonRef | None, From("created_by")]
    at: Annotated[datetime, From("created_at")]


class TypeBalanceOut(BalanceOut):
    type: str
    paid: bool
    counts_against_balance: bool
    adjustments: list[AdjustmentOut] = Field(description="This year's, latest first")


class CompanyHolidayOut(Out):
    id: int
    date: date
    name: str
    location: str = Field(description="Employees' location it closes; empty: everyone")


class LeaveTypesOut(Out):
    types: list[LeaveTypeOut]
    employee: RefOut | None = Field(description="Whose balances follow (default: yours)")
    balances: list[TypeBalanceOut] = Field(description="Per type, on their policy of it")
    company_holidays: list[CompanyHolidayOut] = Field(description="The year's, theirs")


class AdjustedOut(Out):
    adjustment: AdjustmentOut
    balance: BalanceOut


class LeaveSetupOut(Out):
    type: LeaveTypeOut
    assigned: list[RefOut] = Field(default=[], description="Employees put on the policy")


class CompanyHolidaysOut(Out):
    items: list[CompanyHolidayOut]
    changed: CompanyHolidayOut | None = Field(default=None, description="The one added or removed")
    effects: list[EffectOut] = Field(default=[], description="Leave counted again or refused because of it")


class TimeEntryOut(Out):
    id: int
    clock_in: datetime
    clock_out: datetime | None
    break_minutes: int
    worked_minutes: int | None
    time_zone: str
    source: str
    note: str
    edited: bool = False


class OnboardingItemOut(Out):
    id: int
    title: str
    owner: PersonRef | None
    due_date: date
    done: bool
    overdue: bool

    @classmethod
    def of(cls, item: Any, today: date) -> "OnboardingItemOut":
        """An item of a checklist: overdue while it is open after its due date (`today`)."""
        done = item.done_at is not None
        return cls.of_record(item, done=done, overdue=not done and item.due_date < today)


class ChecklistOut(Out):
    id: int
    employee: RefOut
    name: str
    items: list[OnboardingItemOut]
    done: int
    total: int
    completed_at: datetime | None
