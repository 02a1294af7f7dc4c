"""Reads about employees."""

from django.db.models import Q, QuerySet
from django.utils import timezone

from apps.core import search
from apps.core.actors import Actor, actor_id
from apps.core.records import Action, RecordQuerySet
from apps.hr.models import Employee, RestrictedDetails

STATUSES = ("current", "former", "future", "all")


def employee_rows(*, actor: Actor) -> RecordQuerySet[Employee]:
    return Employee.objects.restrict(actor).select_related("department", "manager", "user")


def employee_get(*, actor: Actor, employee_id: int, action: Action = "view") -> Employee:
    return Employee.objects.select_related("department", "manager", "user").fetch(actor, employee_id, action)


def employee_list(
    *, actor: Actor, status: str = "current", department_id: int | None = None
) -> QuerySet[Employee]:
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


def employee_search(*, actor: Actor, query: str) -> QuerySet[Employee]:
    rows = search.matching(
        employee_rows(actor=actor), query, ("full_name", "email", "job_title", "location", "department__name")
    )
    return rows.order_by("full_name", "id")


def restricted_of(*, actor: Actor, employee: Employee) -> RestrictedDetails | None:
    """The restricted details, for a reader the employee's access lets read them (None otherwise):
    HR's, or the employee's own without the health notes (blank)."""
    allowed = Employee.access.fields_allowed(actor, employee)
    if "restricted" not in allowed:
        return None
    found = RestrictedDetails.objects.filter(employee=employee).first() or RestrictedDetails(
        employee=employee
    )
    if "health" not in allowed:
        found.health_notes = ""
    return found


def employee_of(actor: Actor) -> Employee | None:
    """The live employment record of the person acting, if they have one."""
    person_id = actor_id(actor)
    if person_id is None:
        return None  # (user_id=None would find an employee without a person)
    return Employee.objects.live().filter(user_id=person_id).first()
