"""Writes about employees: the employment record, its restricted details, and inviting the
employee into the workspace as a person."""

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import Role, person
from apps.accounts.permissions import PeoplePerm
from apps.core import clean, records
from apps.core.actors import Actor, require
from apps.core.errors import Forbidden, invalid
from apps.departments import api as departments
from apps.hr.lib import clean as hr_clean
from apps.hr.models import Employee, RestrictedDetails
from apps.hr.permissions import HrPerm
from apps.hr.services import leave

logger = logging.getLogger(__name__)

FIELDS = (
    "full_name",
    "email",
    "job_title",
    "employment_type",
    "department_id",
    "manager_id",
    "user_id",
    "location",
    "country",
    "region",
    "time_zone",
    "start_date",
    "end_date",
    "fte",
    "working_days",
    "hours_per_week",
)
# Changing these changes what the employee earns from now on (apps.hr.services.leave).
ACCRUING = {"start_date", "end_date", "fte"}
RESTRICTED = ("pay_amount", "pay_currency", "pay_period", "national_id", "health_notes")


def employee_create(*, actor: Actor, fields: dict[str, Any]) -> Employee:
    return records.create(Employee, actor=actor, permission=HrPerm.EMPLOYEES, fields=fields, apply=_apply)


@dataclass
class Updated:
    changed: list[str]
    # What ending the employment changed or left to do (leave, balances, reports).
    effects: list[leave.Effect]


@transaction.atomic
def employee_update(*, actor: Actor, employee: Employee, fields: dict[str, Any]) -> Updated:
    changed = records.update(
        employee, actor=actor, permission=HrPerm.EMPLOYEES, fields=fields, apply=_apply, names=FIELDS
    )
    ending = "end_date" in changed and employee.end_date is not None
    # Leave past the end goes first, so the balances read below have its days back.
    effects = leave.employment_ended(actor=actor, employee=employee) if ending else []
    if ACCRUING & set(changed):
        leave.accruals_rebuild(employee=employee)
    if ending:
        effects += leave.balances_at_end(employee=employee) + _reports_left(employee)
    return Updated([name.removesuffix("_id") for name in changed], effects)


def _reports_left(employee: Employee) -> list[leave.Effect]:
    """The employee's direct reports still employed after they leave: each needs a new manager."""
    end = employee.end_date
    reports = (
        Employee.objects.live()
        .filter(manager=employee)
        .filter(Q(end_date__isnull=True) | Q(end_date__gt=end))
    )
    text = _("{name} reports to {manager}, who leaves on {end}: give them a new manager")
    return [
        leave.Effect(
            "report_needs_manager",
            report.pk,
            text.format(
                name=report.full_name, manager=employee.full_name, end=end.isoformat() if end else ""
            ),
        )
        for report in reports.order_by("full_name", "id")
    ]


def _apply(actor: Actor, employee: Employee, fields: dict[str, Any], creating: bool) -> None:
    if creating or "full_name" in fields:
        employee.full_name = clean.text(fields.get("full_name"), field="fullName", limit=150, required=True)
    if "email" in fields:
        employee.email = clean.email(fields["email"])
        taken = Employee.objects.live().filter(email__iexact=employee.email).exclude(pk=employee.pk)
        if employee.email and taken.exists():
            raise invalid("email", _("another employee has {email}"), email=employee.email)
    for name, limit in (("job_title", 150), ("location", 200)):
        if name in fields:
            setattr(employee, name, clean.text(fields[name], field=name, limit=limit))
    if fields.get("employment_type"):
        if fields["employment_type"] not in Employee.Type.values:
            raise invalid("type", _("one of {choices}"), choices=", ".join(Employee.Type.values))
        employee.employment_type = fields["employment_type"]
    if "department_id" in fields:
        employee.department = _department(actor, fields["department_id"])
    if "manager_id" in fields:
        employee.manager = _manager(actor, employee, fields["manager_id"])
    if "person_email" in fields:
        employee.user = _person(employee, fields["person_email"])
    if fields.get("country"):
        employee.country = hr_clean.country(fields["country"])
    if "region" in fields or "country" in fields:
        employee.region = hr_clean.region(employee.country, fields.get("region", employee.region))
    if fields.get("time_zone"):
        employee.time_zone = clean.zone(fields["time_zone"])
    if creating or "start_date" in fields:
        if not fields.get("start_date"):
            raise invalid("startDate", _("is required"))
        latest = min(hr_clean.EMPLOYMENT[1], timezone.localdate() + timedelta(days=10 * 366))
        employee.start_date = hr_clean.day(
            fields["start_date"], field="startDate", within=(hr_clean.EMPLOYMENT[0], latest)
        )
    if "end_date" in fields:
        employee.end_date = (
            hr_clean.day(fields["end_date"], field="endDate", within=hr_clean.EMPLOYMENT)
            if fields["end_date"]
            else None
        )
    if employee.end_date and employee.end_date < employee.start_date:
        raise invalid(
            "endDate",
            _("must be on or after the start date {start_date}"),
            start_date=employee.start_date.isoformat(),
        )
    if fields.get("fte") is not None:
        employee.fte = hr_clean.decimal(fields["fte"], field="fte", low="0.01", high="1", places="0.001")
    if fields.get("working_days") is not None:
        employee.working_days = hr_clean.weekdays(fields["working_days"])
    if fields.get("hours_per_week") is not None:
        employee.hours_per_week = hr_clean.decimal(
            fields["hours_per_week"], field="hoursPerWeek", low="1", high="80"
        )


def _department(actor: Actor, department_id: int | None) -> departments.Department | None:
    if not department_id:
        return None
    found = departments.visible_department(actor, department_id)
    if found is None:
        raise invalid(
            "departmentId",
            _("no department {department_id}; listDepartments finds them"),
            department_id=department_id,
        )
    return found


def _manager(actor: Actor, employee: Employee, manager_id: int | None) -> Employee | None:
    if not manager_id:
        return None
    manager = Employee.objects.restrict(actor).filter(pk=manager_id).first()
    if manager is None:
        raise invalid(
            "managerId", _("no employee {manager_id}; searchEmployees finds them"), manager_id=manager_id
        )
    # Walk up from the new manager: the employee must not be above them already.
    seen: set[int] = set()
    current: Employee | None = manager
    while current is not None and current.pk not in seen:
        if employee.pk is not None and current.pk == employee.pk:
            raise invalid("managerId", _("an employee cannot report to themselves or to someone below them"))
        seen.add(current.pk)
        current = current.manager
    return manager


def _person(employee: Employee, email: str | None) -> Any:
    if not email:
        return None
    user = clean.person_by_email(email)
    linked = Employee.objects.filter(user=user).exclude(pk=employee.pk).first()
    if linked is not None:
        raise invalid(
            "personEmail", _("{email} is already employee {linked}"), email=user.email, linked=linked.pk
        )
    return user


@transaction.atomic
def restricted_update(*, actor: Actor, employee: Employee, fields: dict[str, Any]) -> list[str]:
    """Pay, national identifier, health notes: only for those the employee's access lets change
    them (hr.restricted)."""
    if "restricted" not in Employee.access.fields_allowed(actor, employee, "change"):
        raise Forbidden()
    details, _created = RestrictedDetails.objects.select_for_update().get_or_create(employee=employee)
    before = {name: getattr(details, name) for name in RESTRICTED}
    if "pay_amount" in fields:
        amount = fields["pay_amount"]
        details.pay_amount = (
            None if amount is None else hr_clean.decimal(amount, field="payAmount", low="0", high="100000000")
        )
    if "pay_currency" in fields:
        code = fields["pay_currency"]
        details.pay_currency = clean.currency(code, field="payCurrency") if str(code or "").strip() else ""
    if "pay_period" in fields:
        period = fields["pay_period"] or ""
        if period and period not in RestrictedDetails.Period.values:
            raise invalid(
                "payPeriod", _("one of {choices}"), choices=", ".join(RestrictedDetails.Period.values)
            )
        details.pay_period = period
    if "national_id" in fields:
        details.national_id = clean.text(fields["national_id"], field="nationalId", limit=64)
    if "health_notes" in fields:
        details.health_notes = clean.long_text(fields["health_notes"], field="healthNotes", limit=2000)
    changed = [name for name in RESTRICTED if getattr(details, name) != before[name]]
    if changed:
        details.save()
        # Ids and field names only: never the values.
        logger.info("restricted details of employee %s changed by %s: %s", employee.pk, actor.pk, changed)
    return changed


def employee_archive(*, actor: Actor, employee: Employee) -> Employee:
    require(actor, HrPerm.EMPLOYEES)
    employee.trash(actor)
    return employee


@transaction.atomic
def employee_invite(*, actor: Actor, employee: Employee, role_key: str) -> Any:
    """Makes the employee a person of the workspace (with the role given) and links the two."""
    from apps.accounts import services as accounts

    require(actor, HrPerm.EMPLOYEES)
    require(actor, PeoplePerm.MANAGE)
    if employee.user is not None:
        raise invalid(
            "employeeId",
            _("employee {employee} is already {email} in the workspace"),
            employee=employee.pk,
            email=employee.user.email,
        )
    if not employee.email:
        raise invalid(
            "employeeId",
            _("employee {employee} has no work e-mail; set one with updateEmployee"),
            employee=employee.pk,
        )
    if employee.end_date and employee.end_date < timezone.localdate():
        raise invalid(
            "employeeId",
            _("employee {employee} left on {end_date}"),
            employee=employee.pk,
            end_date=employee.end_date.isoformat(),
        )
    role = Role.objects.filter(key=role_key).first()
    if role is None:
        keys = ", ".join(Role.objects.order_by("key").values_list("key", flat=True))
        raise invalid("role", _("no role {role_key!r}; one of {keys}"), role_key=role_key, keys=keys)
    actor_person = person(actor)
    if actor_person is None:
        raise Forbidden()
    user = accounts.user_create(
        actor=actor_person, email=employee.email, role=role, full_name=employee.full_name
    )
    employee.user = user
    employee.save(update_fields=["user", "updated_at"])
    # The new person sets a password through the link mailed to them.
    origin = _origin()
    transaction.on_commit(lambda: accounts.password_reset_request(email=user.email, origin=origin))
    logger.info("employee %s invited as user %s by %s", employee.pk, user.pk, actor.pk)
    return user


def _origin() -> str:
    from apps.tenancy import links

    return links.site_origin()
