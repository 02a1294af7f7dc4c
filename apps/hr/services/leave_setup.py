"""HR's leave set-up: the kinds of leave, their policies and who is on which, and the days the
company closes beside the public holidays (apps.hr.services.leave reads them)."""

import logging
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core import clean
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.core.records import unique_name
from apps.hr.lib import clean as hr_clean
from apps.hr.models import CompanyHoliday, Employee, LeavePolicy, LeaveType, PolicyAssignment
from apps.hr.permissions import HrPerm
from apps.hr.services import leave

logger = logging.getLogger(__name__)

# What a policy's settings may be changed to, by the names the tool gives them.
POLICY_FIELDS = (
    "annual_days",
    "accrual",
    "carry_over_cap",
    "carry_over_expiry_months",
    "max_past_days",
    "allow_half_days",
)
TYPE_FIELDS = ("paid", "counts_against_balance", "needs_approval", "allow_half_days")


def _days(field: str, value: Any) -> Decimal:
    return hr_clean.decimal(value, field=field, low="0", high="366")


@transaction.atomic
def policy_save(
    *,
    actor: Actor,
    policy: LeavePolicy | None,
    leave_type: LeaveType | None,
    name: str = "",
    is_default: bool | None = None,
    **settings: Any,
) -> LeavePolicy:
    """Makes a policy of a type, or changes one; the new default of its type when `is_default`."""
    require(actor, HrPerm.EMPLOYEES)
    if policy is None:
        if leave_type is None:
            raise invalid("type", _("a new policy belongs to a leave type; name it"))
        if not name:
            raise invalid("name", _("a new policy needs a name"))
        policy = LeavePolicy(leave_type=leave_type, annual_days=Decimal(0), created_by=person(actor))
    elif leave_type is not None and leave_type.pk != policy.leave_type_id:
        raise invalid("type", _("a policy keeps its leave type ({name})"), name=policy.leave_type.name)
    if name or policy.pk is None:
        policy.name = unique_name(policy, name, what=_("a leave policy"), limit=100)
    for field in ("annual_days", "carry_over_cap"):
        if settings.get(field) is not None:
            setattr(policy, field, _days(field, settings[field]))
    if settings.get("accrual") is not None:
        policy.accrual = settings["accrual"]
    for field, limit in (("carry_over_expiry_months", 24), ("max_past_days", 366)):
        value = settings.get(field)
        if value is not None:
            if not 0 <= int(value) <= limit:
                raise invalid(field, _("between 0 and {limit}"), limit=limit)
            setattr(policy, field, int(value))
    if settings.get("allow_half_days") is not None:
        policy.allow_half_days = bool(settings["allow_half_days"])
    if is_default:
        LeavePolicy.objects.live().filter(leave_type=policy.leave_type, is_default=True).exclude(
            pk=policy.pk
        ).update(is_default=False)
        policy.is_default = True
    elif is_default is False and policy.is_default:
        raise invalid("isDefault", _("make another policy of the type its default instead"))
    policy.save()
    logger.info("leave policy %s saved", policy.pk)
    return policy


@transaction.atomic
def policy_assign(*, actor: Actor, policy: LeavePolicy, employees: list[Employee]) -> list[Employee]:
    """Puts the employees on the policy (in place of any other of its type)."""
    require(actor, HrPerm.EMPLOYEES)
    if not employees:
        raise invalid("employeeIds", _("name the employees to put on {name}"), name=policy.name)
    for employee in employees:
        PolicyAssignment.objects.update_or_create(
            employee=employee,
            leave_type=policy.leave_type,
            defaults={"policy": policy, "assigned_by": person(actor)},
        )
    logger.info("leave policy %s assigned to %s employees", policy.pk, len(employees))
    return employees


@transaction.atomic
def type_save(
    *, actor: Actor, leave_type: LeaveType | None, code: str, name: str, **settings: Any
) -> LeaveType:
    """Makes a leave type or changes one (paid, counted, approval, half days)."""
    require(actor, HrPerm.EMPLOYEES)
    if leave_type is None:
        code = clean.text(code, field="type", limit=30, required=True).lower()
        if not code.replace("_", "").replace("-", "").isalnum():
            raise invalid("type", _("a type's code is letters, digits and dashes, such as 'study'"))
        leave_type = LeaveType(code=code, created_by=person(actor))
        leave_type.name = unique_name(
            leave_type, name or code.capitalize(), what=_("a leave type"), limit=100
        )
    elif name:
        leave_type.name = unique_name(leave_type, name, what=_("a leave type"), limit=100)
    for field in TYPE_FIELDS:
        if settings.get(field) is not None:
            setattr(leave_type, field, bool(settings[field]))
    leave_type.save()
    return leave_type


@dataclass
class HolidayChange:
    holiday: CompanyHoliday
    # The leave counted again because of it (apps.hr.services.leave.holiday_changed).
    effects: list[leave.Effect]


@transaction.atomic
def holiday_add(*, actor: Actor, day: date, name: str, location: str = "") -> HolidayChange:
    require(actor, HrPerm.EMPLOYEES)
    name = clean.text(name, field="name", limit=100, required=True)
    location = clean.text(location, field="location", limit=200)
    clash = CompanyHoliday.objects.live().filter(date=day, location__iexact=location).first()
    if clash is not None:
        raise invalid(
            "date",
            _("{date} is already a company holiday ({name}, id {id})"),
            date=day.isoformat(),
            name=clash.name,
            id=clash.pk,
        )
    holiday = CompanyHoliday.objects.create(date=day, name=name, location=location, created_by=person(actor))
    logger.info("company holiday %s added", holiday.pk)
    return HolidayChange(holiday, leave.holiday_changed(actor=actor, holiday=holiday, added=True))


@transaction.atomic
def holiday_remove(*, actor: Actor, holiday: CompanyHoliday) -> HolidayChange:
    require(actor, HrPerm.EMPLOYEES)
    holiday.trash(actor)
    logger.info("company holiday %s removed", holiday.pk)
    return HolidayChange(holiday, leave.holiday_changed(actor=actor, holiday=holiday, added=False))
