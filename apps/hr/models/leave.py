"""Leave: types (annual, sick, parental, unpaid, time in lieu...), the policies of each type and
who is on which, requests, company holidays, and balances kept as a ledger of entries (accrual,
taken, adjustment, carry-over, expiry), never as a counter. A balance is the sum of an
employee's entries of a policy up to a date (apps.hr.lib.leave)."""

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record, live_once, name_once
from apps.hr.models.employees import Employee
from apps.hr.permissions import HrPerm

USER = settings.AUTH_USER_MODEL


class LeaveType(Record):
    """A kind of leave: whether it is paid, counted against a balance, decided by an approver, and
    taken in half days."""

    access = Access(
        HrPerm,
        visibility="workspace",
        change=str(HrPerm.EMPLOYEES),
        delete=str(HrPerm.EMPLOYEES),
        label=_("Leave type"),
        find_with="listLeaveTypes",
    )

    code = models.SlugField(_("code"), max_length=30)
    name = models.CharField(_("name"), max_length=100)
    paid = models.BooleanField(_("paid"), default=True)
    # Counted: requests must fit the balance. Not counted (sick, unpaid): days taken are recorded.
    counts_against_balance = models.BooleanField(_("counts against a balance"), default=True)
    # Without approval a request is approved when it is made (sick leave is reported, not asked).
    needs_approval = models.BooleanField(_("needs approval"), default=True)
    allow_half_days = models.BooleanField(_("half days"), default=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("leave type")
        constraints = [
            name_once("hr_leave_type_code_once", field="code"),
            name_once("hr_leave_type_name_once"),
        ]

    def __str__(self) -> str:
        return self.name


class LeavePolicy(Record):
    """What a full-time employee earns a year, how it accrues and what carries over."""

    access = Access(
        HrPerm,
        visibility="workspace",
        manage=HrPerm.EMPLOYEES,
        label=_("Leave policy"),
        find_with="getLeaveBalance",
    )

    class Accrual(models.TextChoices):
        MONTHLY = "monthly", _("each month")
        YEARLY = "yearly", _("at the start of the year")

    leave_type = models.ForeignKey(LeaveType, on_delete=models.PROTECT, related_name="policies")
    name = models.CharField(_("name"), max_length=100)
    annual_days = models.DecimalField(_("days a year (full time)"), max_digits=5, decimal_places=2)
    accrual = models.CharField(_("accrual"), max_length=10, choices=Accrual.choices, default=Accrual.MONTHLY)
    carry_over_cap = models.DecimalField(
        _("carry-over cap (days)"), max_digits=5, decimal_places=2, default=5
    )
    # Carried days not taken within this many months of the new year expire (0: never).
    carry_over_expiry_months = models.PositiveSmallIntegerField(
        _("carried days expire after (months)"), default=3
    )
    # How far back a request may start (days before today).
    max_past_days = models.PositiveSmallIntegerField(_("requests may start up to (days ago)"), default=14)
    allow_half_days = models.BooleanField(_("half days"), default=True)
    # The type's policy for everyone not assigned another of the type.
    is_default = models.BooleanField(_("default policy"), default=False)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("leave policy")
        verbose_name_plural = _("leave policies")
        constraints = [
            name_once("hr_leave_policy_name_once"),
            live_once("hr_leave_policy_one_default", "leave_type", is_default=True),
            models.CheckConstraint(condition=Q(annual_days__gte=0), name="hr_leave_policy_days"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        # A policy made without a type is one of annual leave, as every policy was before types.
        if self.leave_type_id is None:
            annual = LeaveType.objects.live().filter(code="annual").first()
            if annual is None:
                annual = LeaveType.objects.create(code="annual", name="Annual leave")
            self.leave_type = annual
        super().save(*args, **kwargs)


class PolicyAssignment(models.Model):
    """An employee on a policy other than their type's default (one policy per type each)."""

    employee = models.ForeignKey(Employee, on_delete=models.CASCADE, related_name="leave_policies")
    leave_type = models.ForeignKey(LeaveType, on_delete=models.CASCADE, related_name="+")
    policy = models.ForeignKey(LeavePolicy, on_delete=models.CASCADE, related_name="assignments")
    assigned_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    assigned_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("leave policy assignment")
        constraints = [
            models.UniqueConstraint(fields=["employee", "leave_type"], name="hr_policy_assignment_once")
        ]

    def __str__(self) -> str:
        return f"{self.employee_id} on {self.policy_id}"


class CompanyHoliday(Record):
    """A day the company closes beside the public holidays (for everyone, or one location's
    employees); leave skips it as it skips public holidays."""

    access = Access(
        HrPerm,
        visibility="workspace",
        change=str(HrPerm.EMPLOYEES),
        delete=str(HrPerm.EMPLOYEES),
        label=_("Company holiday"),
        find_with="manageCompanyHolidays",
    )

    date = models.DateField(_("date"))
    name = models.CharField(_("name"), max_length=100)
    # The employees' `location` it closes (compared without case); blank: everyone.
    location = models.CharField(_("location"), max_length=200, blank=True)

    class Meta:
        ordering = ["date", "id"]
        verbose_name = _("company holiday")
        constraints = [
            models.UniqueConstraint(
                "date",
                Lower("location"),
                condition=Q(deleted_at__isnull=True),
                name="hr_company_holiday_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.date.isoformat()})"


class LeaveRequest(Record):
    access = Access(
        HrPerm,
        # The employee's own and those one asked for; their reports' for line managers, who decide
        # on them; every request for those who approve leave.
        visibility="owner",
        owner="employee__user",
        also="requested_by",
        deciders="employee__manager__user",
        sees_all=(HrPerm.APPROVE_LEAVE,),
        label=_("Leave request"),
        find_with="getLeaveRequests",
    )

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        APPROVED = "approved", _("approved")
        DENIED = "denied", _("denied")
        CANCELLED = "cancelled", _("cancelled")

    employee = models.ForeignKey(Employee, on_delete=models.CASCADE, related_name="leave_requests")
    policy = models.ForeignKey(LeavePolicy, on_delete=models.PROTECT, related_name="requests")
    start_date = models.DateField(_("first day"))
    end_date = models.DateField(_("last day"))
    # The first day starts at midday / the last day ends at midday.
    start_half = models.BooleanField(_("first day afternoon only"), default=False)
    end_half = models.BooleanField(_("last day morning only"), default=False)
    days = models.DecimalField(_("working days"), max_digits=6, decimal_places=2)
    note = models.CharField(_("note"), max_length=500, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PENDING)
    requested_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    decided_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    decision_note = models.CharField(_("decision note"), max_length=500, blank=True)
    # The all-day event of approved leave in the Calendars area (its id there), when installed.
    calendar_event_id = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-start_date", "id"]
        verbose_name = _("leave request")
        constraints = [
            models.CheckConstraint(
                condition=Q(end_date__gte=F("start_date")), name="hr_leave_ends_after_start"
            ),
            models.CheckConstraint(condition=Q(days__gt=0), name="hr_leave_some_days"),
        ]
        indexes = [models.Index(fields=["employee", "status"], name="hr_leave_employee_status")]

    def __str__(self) -> str:
        return f"leave {self.pk} of {self.employee_id}"


class LeaveEntry(models.Model):
    """One line of the balance ledger: days in (positive) or out (negative) on a date."""

    class Kind(models.TextChoices):
        ACCRUAL = "accrual", _("accrual")
        TAKEN = "taken", _("taken")
        ADJUSTMENT = "adjustment", _("adjustment")
        CARRY_OVER = "carry_over", _("carry-over")
        EXPIRY = "expiry", _("expiry")

    employee = models.ForeignKey(Employee, on_delete=models.CASCADE, related_name="leave_entries")
    policy = models.ForeignKey(LeavePolicy, on_delete=models.CASCADE, related_name="entries")
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    days = models.DecimalField(_("days"), max_digits=7, decimal_places=3)
    effective = models.DateField(_("on"))
    # The accrual period (its first day) or the year an entry closes, so each is written once.
    period = models.DateField(null=True, blank=True)
    request = models.ForeignKey(
        LeaveRequest, on_delete=models.CASCADE, null=True, blank=True, related_name="entries"
    )
    note = models.CharField(_("note"), max_length=200, blank=True)
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["effective", "id"]
        verbose_name = _("leave entry")
        verbose_name_plural = _("leave entries")
        constraints = [
            models.UniqueConstraint(
                fields=["employee", "policy", "kind", "period"],
                condition=Q(period__isnull=False),
                name="hr_leave_entry_period_once",
            )
        ]
        indexes = [models.Index(fields=["employee", "policy", "effective"], name="hr_leave_entry_lookup")]

    def __str__(self) -> str:
        return f"{self.kind} {self.days} for {self.employee_id}"
