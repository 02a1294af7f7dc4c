"""What the department tools answer (camelCase JSON)."""

from datetime import datetime
from typing import Any

from pydantic import Field

from apps.catalogue.shapes import Out, PersonRef, RefOut
from apps.contacts import related
from apps.contacts.related import LinkedContactOut
from apps.departments.models import Department, Member


class MemberOut(Out):
    person: PersonRef
    role: str
    added_at: datetime

    @classmethod
    def of(cls, member: Member) -> "MemberOut":
        return cls(person=PersonRef.of(member.user), role=member.role, added_at=member.added_at)


class DepartmentSummary(Out):
    id: int
    name: str
    parent: RefOut | None = Field(description="The department it is part of")
    head: PersonRef | None
    members: int
    contacts: int
    updated_at: datetime

    @classmethod
    def of(cls, department: Department) -> "DepartmentSummary":
        return cls(
            id=department.pk,
            name=department.name,
            parent=RefOut(id=parent.pk, name=parent.name) if (parent := department.parent) else None,
            head=PersonRef.of(department.head) if department.head_id else None,
            members=getattr(department, "member_count", None) or department.members.count(),
            contacts=getattr(department, "contact_count", None) or department.contact_links.count(),
            updated_at=department.updated_at,
        )


class DepartmentOut(Out):
    id: int
    name: str
    description: str
    email: str
    parent: RefOut | None
    parts: list[RefOut] = Field(description="Departments that are part of this one")
    head: PersonRef | None
    members: list[MemberOut]
    contacts: list[LinkedContactOut] = Field(description="Linked contacts you may see")
    created_by: PersonRef | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, department: Department, actor: Any) -> "DepartmentOut":
        parts = department.children.live().order_by("name")
        return cls(
            id=department.pk,
            name=department.name,
            description=department.description,
            email=department.email,
            parent=RefOut(id=parent.pk, name=parent.name) if (parent := department.parent) else None,
            parts=[RefOut(id=part.pk, name=part.name) for part in parts],
            head=PersonRef.of(department.head) if department.head_id else None,
            members=[MemberOut.of(member) for member in department.members.select_related("user")],
            contacts=[LinkedContactOut.of(row) for row in related.visible(actor, department.contact_links)],
            created_by=PersonRef.of(department.created_by) if department.created_by_id else None,
            created_at=department.created_at,
            updated_at=department.updated_at,
        )
