"""What the department tools answer (camelCase JSON)."""

from datetime import datetime
from typing import Annotated, Any

from apps.catalogue.shapes import From, Out, PersonRef, RefOut
from apps.contacts.api import LinkedContactOut
from apps.departments.models import Department


class MemberOut(Out):
    person: Annotated[PersonRef, From("user")]
    role: str
    added_at: datetime


class DepartmentSummary(Out):
    id: int
    name: str
    parent: RefOut | None
    head: PersonRef | None
    members: int
    contacts: int
    updated_at: datetime

    @classmethod
    def of(cls, department: Department) -> "DepartmentSummary":
        """`department` as `selectors.with_counts` gives it (its contacts the reader sees, counted)."""
        return cls.of_record(
            department,
            members=department.member_count,  # type: ignore[attr-defined]
            contacts=department.contact_count,  # type: ignore[attr-defined]
        )


class DepartmentOut(Out):
    id: int
    name: str
    description: str
    email: str
    parent: RefOut | None
    parts: list[RefOut]
    head: PersonRef | None
    members: list[MemberOut]
    contacts: list[LinkedContactOut]
    created_by: PersonRef | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, department: Department, actor: Any) -> "DepartmentOut":
        return cls.of_record(
            department,
            parts=list(department.children.live().order_by("name")),
            members=[MemberOut.of_record(member) for member in department.members.select_related("user")],
            contacts=LinkedContactOut.many(actor, department),
        )
