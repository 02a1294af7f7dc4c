"""Reads about departments. Everyone whose role allows departments.view sees every department
that is not deleted; anything else is "not found"."""

from typing import Any

from django.db.models import Count, Q, QuerySet

from apps.core.actors import can
from apps.departments import errors
from apps.departments.models import Department
from apps.departments.permissions import DepartmentsPerm


def department_visible(*, actor: Any, include_deleted: bool = False) -> QuerySet[Department]:
    if not can(actor, DepartmentsPerm.VIEW):
        return Department.objects.none()
    rows = Department.objects.select_related("parent", "head")
    return rows if include_deleted else rows.filter(deleted_at__isnull=True)


def with_counts(rows: QuerySet[Department]) -> QuerySet[Department]:
    return rows.annotate(
        member_count=Count("members", distinct=True), contact_count=Count("contact_links", distinct=True)
    )


def department_get(*, actor: Any, department_id: int) -> Department:
    department = department_visible(actor=actor).filter(pk=department_id).first()
    if department is None:
        raise errors.DepartmentNotFound(department_id)
    return department


def department_search(*, actor: Any, query: str) -> QuerySet[Department]:
    """Every word in the name, description or e-mail, or in a member's name or address."""
    rows = department_visible(actor=actor)
    for word in query.split()[:8]:
        rows = rows.filter(
            Q(name__icontains=word)
            | Q(description__icontains=word)
            | Q(email__icontains=word)
            | Q(members__user__full_name__icontains=word)
            | Q(members__user__email__icontains=word)
        )
    return rows.distinct()
