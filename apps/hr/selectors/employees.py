"""Reads about employees."""

from typing import Any

from django.db.models import Q
from django.utils import timezone

from apps.core import search
from apps.core.actors import Actor, can
from apps.hr.models import Employee, RestrictedDetails
from apps.hr.permissions import HrPerm

STATUSES = ("current", "former", "future", "all")


def employee_rows(*, actor: Actor) -> Any:
    return Employee.objects.restrict(actor).select_related("department", "manager", "user")


def employee_get(*, actor: Actor, employee_id: int, action: Any = "view") -> Employee:
    return employee_rows(actor=actor).fetch(actor, employee_id, action)


def employee_list(*, actor: Actor, status: str = "current", department_id: int | None = None) -> Any:
    rows = employee_rows(actor=actor)
    today = timezone.localdate()
    if status == "current":
        rows = rows.filter(start_date__lte=today).filter(Q(end_date__isnull=True) | Q(end_date__gte=today))
    elif status == "former":
        rows = rows.filter(end_date__lt=today)
    elif status == "future":
        rows = rows.filter(start_date__gt=today)
    if department_id:
        rows = rows.filter(department_id=department_id)
    return rows.order_by("full_name", "id")


def employee_search(*, actor: Actor, query: str) -> Any:
    rows = search.matching(
        employee_rows(actor=actor), query, ("full_name", "email", "job_title", "location", "department__name")
    )
    return rows.order_by("full_name", "id")


def restricted_of(*, actor: Actor, employee: Employee) -> RestrictedDetails | None:
    """The restricted details, for a reader with hr.restricted alone (None otherwise)."""
    if not can(actor, HrPerm.RESTRICTED):
        return None
    return RestrictedDetails.objects.filter(employee=employee).first() or RestrictedDetails(employee=employee)


def employee_of(actor: Actor) -> Employee | None:
    """The live employment record of the person acting, if they have one."""
    return Employee.objects.live().filter(user_id=getattr(actor, "pk", None)).first()
