"""Writes about departments. Each checks the actor's permission itself and logs ids only."""

import logging
from typing import Any

from django.utils.translation import gettext as _

from apps.core import clean, records
from apps.core.actors import require
from apps.core.errors import invalid
from apps.core.records import unique_name
from apps.departments.errors import NotAMember
from apps.departments.models import Department, Member
from apps.departments.permissions import DepartmentsPerm

logger = logging.getLogger(__name__)
FIELDS = ("name", "description", "email", "parent", "head")


def department_create(*, actor: Any, fields: dict[str, Any]) -> Department:
    return records.create(
        Department, actor=actor, permission=DepartmentsPerm.EDIT, fields=fields, apply=_apply
    )


def department_update(*, actor: Any, department: Department, fields: dict[str, Any]) -> list[str]:
    return records.update(
        department, actor=actor, permission=DepartmentsPerm.EDIT, fields=fields, apply=_apply, names=FIELDS
    )


def _apply(actor: Any, department: Department, fields: dict[str, Any], creating: bool) -> None:
    if "name" in fields or creating:
        department.name = unique_name(department, fields.get("name"), what="a department", limit=120)
    if "description" in fields:
        department.description = clean.long_text(fields["description"], field="description", limit=5000)
    if "email" in fields:
        department.email = clean.email(fields["email"])
    if "parent_id" in fields:
        department.parent = _parent(actor, department, fields["parent_id"])
    if "head_email" in fields:
        department.head = clean.person_by_email(fields["head_email"]) if fields["head_email"] else None


def _parent(actor: Any, department: Department, parent_id: int | None) -> Department | None:
    if parent_id is None:
        return None
    parent = Department.objects.fetch(actor, parent_id)
    ancestor: Department | None = parent
    while ancestor is not None:
        if department.pk is not None and ancestor.pk == department.pk:
            raise invalid("parent_id", _("a department cannot be part of itself or of its own parts"))
        ancestor = ancestor.parent
    return parent


def department_delete(*, actor: Any, department: Department) -> int:
    """Soft delete; its sub-departments move up to its own parent. Returns how many moved."""
    require(actor, DepartmentsPerm.DELETE)
    moved = Department.objects.live().filter(parent=department).update(parent=department.parent)
    # Its parts already in the trash move up too: one restored later is part of a live department.
    Department.objects.filter(parent=department).update(parent=department.parent)
    department.trash(actor)
    logger.info("department %s deleted", department.pk)
    return moved


def department_restore(*, actor: Any, department: Department) -> Department:
    require(actor, DepartmentsPerm.DELETE)
    if not department.in_trash:
        return department
    if Department.objects.live().filter(name__iexact=department.name).exists():
        raise invalid(
            "name", _("another department is called {name!r} now; rename it first"), name=department.name
        )
    department.untrash()
    return department


def member_add(*, actor: Any, department: Department, person: Any, role: str = "") -> bool:
    require(actor, DepartmentsPerm.EDIT)
    role = clean.text(role, field="role", limit=100)
    member = Member.objects.filter(department=department, user=person).first()
    if member is not None:
        if member.role == role:
            return False
        member.role = role
        member.save(update_fields=["role"])
        return True
    Member.objects.create(department=department, user=person, role=role, added_by=actor)
    return True


def member_remove(*, actor: Any, department: Department, email: str) -> Any:
    """Takes the member with this address out of the department and returns them: found among its
    members, so someone who has left (deactivated) can be taken out too."""
    require(actor, DepartmentsPerm.EDIT)
    address = clean.email(email, field="person_email", required=True)
    member = (
        Member.objects.select_related("user")
        .filter(department=department, user__email__iexact=address)
        .first()
    )
    if member is None:
        raise NotAMember(email=address, department=department.pk)
    member.delete()
    return member.user
