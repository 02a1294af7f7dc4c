"""Employees: the employment record of a person (start and end, job, manager, department,
location, working pattern and FTE), linked to a person of the workspace where there is one.

Pay, national identifiers and health are a row of their own (`RestrictedDetails`), read and
written only with the `hr.restricted` permission (the employee's access declares it: `fields`), so
no answer or page that reads an `Employee` carries them by accident."""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record
from apps.hr.permissions import HrPerm

USER = settings.AUTH_USER_MODEL


def _weekdays() -> list[int]:
    return [0, 1, 2, 3, 4]


class Employee(Record):
    access = Access(
        HrPerm,
        # The directory is everyone's who may see HR; changing it is HR's (hr.employees).
        visibility="workspace",
        manage=HrPerm.EMPLOYEES,
        # Pay, national identifier and health notes (`RestrictedDetails`); the employee reads
        # their own pay and identifier, never the health notes HR keeps.
        fields={"restricted": HrPerm.RESTRICTED, "health": HrPerm.RESTRICTED},
        own_fields={"restricted": "user"},
        label=_("Employee"),
        find_with="searchEmployees or listEmployees",
        trash_state=_("archived"),
        trash_hint=_("HR can restore it from the HR page."),
    )

    class Type(models.TextChoices):
        EMPLOYEE = "employee", _("employee")
        CONTRACTOR = "contractor", _("contractor")
        INTERN = "intern", _("intern")

    user = models.OneToOneField(
        USER,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="employee",
        verbose_name=_("person"),
    )
    full_name = models.CharField(_("full name"), max_length=150)
    email = models.EmailField(_("work e-mail"), max_length=254, blank=True)
    job_title = models.CharField(_("job title"), max_length=150, blank=True)
    employment_type = models.CharField(_("type"), max_length=20, choices=Type.choices, default=Type.EMPLOYEE)
    department = models.ForeignKey(
        "departments.Department",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="employees",
        verbose_name=_("department"),
    )
    manager = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reports",
        verbose_name=_("manager"),
    )
    location = models.CharField(_("location"), max_length=200, blank=True)
    # Public holidays are those of this country (ISO 3166-1 alpha-2) and region (its subdivision
    # code, ISO 3166-2 without the country: "BY" for Bavaria).
    country = models.CharField(_("country"), max_length=2, default="GB")
    region = models.CharField(_("region"), max_length=10, blank=True)
    time_zone = models.CharField(_("time zone"), max_length=64, default="UTC")
    start_date = models.DateField(_("start date"))
    end_date = models.DateField(_("end date"), null=True, blank=True)
    fte = models.DecimalField(_("FTE"), max_digits=4, decimal_places=3, default=1)
    # Days of the week worked, Monday = 0.
    working_days = ArrayField(
        models.PositiveSmallIntegerField(), default=_weekdays, verbose_name=_("working days")
    )
    hours_per_week = models.DecimalField(_("hours a week"), max_digits=5, decimal_places=2, default=40)

    class Meta:
        ordering = ["full_name", "id"]
        verbose_name = _("employee")
        constraints = [
            models.CheckConstraint(condition=Q(fte__gt=0) & Q(fte__lte=1), name="hr_employee_fte_range"),
            models.CheckConstraint(
                condition=Q(end_date__isnull=True) | Q(end_date__gte=F("start_date")),
                name="hr_employee_ends_after_start",
            ),
            models.UniqueConstraint(
                Lower("email"),
                condition=Q(deleted_at__isnull=True) & ~Q(email=""),
                name="hr_employee_email_once",
            ),
        ]

    def __str__(self) -> str:
        return self.full_name


class RestrictedDetails(models.Model):
    """Pay, national identifier and health notes (special-category data): hr.restricted only."""

    class Period(models.TextChoices):
        YEAR = "year", _("a year")
        MONTH = "month", _("a month")
        HOUR = "hour", _("an hour")

    employee = models.OneToOneField(Employee, on_delete=models.CASCADE, related_name="restricted")
    pay_amount = models.DecimalField(_("pay"), max_digits=14, decimal_places=2, null=True, blank=True)
    pay_currency = models.CharField(_("pay currency"), max_length=3, blank=True)
    pay_period = models.CharField(_("pay period"), max_length=10, choices=Period.choices, blank=True)
    national_id = models.CharField(_("national identifier"), max_length=64, blank=True)
    health_notes = models.TextField(_("health notes"), blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("restricted details")
        verbose_name_plural = _("restricted details")

    def __str__(self) -> str:
        return f"restricted details of {self.employee_id}"
