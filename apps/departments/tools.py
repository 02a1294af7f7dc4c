"""The Departments area of the catalogue (SPEC 4.7): thin doors onto services and selectors."""

from typing import Annotated

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, EntityId, Limit, Offset, Out, Page, PersonRef, id_field, paginate
from apps.contacts import api as contacts_api
from apps.contacts.api import ContactLinkResultOut
from apps.core import clean, search
from apps.core.records import Action
from apps.departments import selectors, services
from apps.departments.models import Department
from apps.departments.permissions import DepartmentsPerm
from apps.departments.shapes import DepartmentOut, DepartmentSummary

DepartmentId = Annotated[int, id_field("searchDepartments")]
PersonEmail = Annotated[str, Field(min_length=3, max_length=254, description="A person of the workspace")]
ContactId = Annotated[int, id_field("searchContacts")]
Role = Annotated[str, Field(max_length=100, description="e.g. lead, buyer")]


def _department(ctx: ToolContext, department_id: int, action: Action = "view") -> Department:
    return Department.objects.select_related("parent", "head").fetch(ctx.actor, department_id, action)


class DepartmentFields(Changes):
    name: Annotated[str, Field(min_length=1, max_length=120)] | None = Field(None, description="Unique")
    description: Annotated[str, Field(max_length=5000)] | None = None
    email: Annotated[str, Field(max_length=254)] | None = Field(None, description="Its shared address")
    parent_id: EntityId | None = Field(None, description="The department it is part of")
    head_email: Annotated[str, Field(max_length=254)] | None = Field(None, description="Who heads it")


@tool("createDepartment", permission=DepartmentsPerm.EDIT, title="Create a department")
def create_department(
    ctx: ToolContext,
    *,
    department: Annotated[DepartmentFields, Field(description="name is required")],
) -> DepartmentOut:
    """Create a department (a team, a unit, an office). Its people: addMemberToDepartment."""
    created = services.department_create(actor=ctx.actor, fields=department.given())
    return DepartmentOut.of(created, ctx.actor)


class UpdatedDepartmentOut(Out):
    department: DepartmentOut
    changed: list[str]


@tool("updateDepartment", permission=DepartmentsPerm.EDIT, title="Update a department", idempotent=True)
def update_department(
    ctx: ToolContext,
    *,
    department_id: DepartmentId,
    changes: Annotated[DepartmentFields, Field(description="Only the fields to change; null clears one")],
) -> UpdatedDepartmentOut:
    """Change some fields of a department: name, description, e-mail, head, parent; the rest stay."""
    found = _department(ctx, department_id, "change")
    changed = services.department_update(
        actor=ctx.actor, department=found, fields=changes.given(required=True)
    )
    return UpdatedDepartmentOut(department=DepartmentOut.of(found, ctx.actor), changed=changed)


class DeletedDepartmentOut(Out):
    id: int
    name: str
    parts_moved_up: int = Field(description="Its parts, now its parent's")


@tool(
    "deleteDepartment",
    permission=DepartmentsPerm.DELETE,
    title="Delete a department",
    markers=Marker.DESTRUCTIVE,
)
def delete_department(ctx: ToolContext, *, department_id: DepartmentId) -> DeletedDepartmentOut:
    """Delete a department with its members and links; its parts move up to its parent."""
    found = _department(ctx, department_id, "delete")
    moved = services.department_delete(actor=ctx.actor, department=found)
    return DeletedDepartmentOut(id=found.pk, name=found.name, parts_moved_up=moved)


@tool("getDepartment", permission=DepartmentsPerm.VIEW, title="Get a department", read_only=True)
def get_department(ctx: ToolContext, *, department_id: DepartmentId) -> DepartmentOut:
    """Get a department with its head, members, contacts, parent and parts."""
    return DepartmentOut.of(_department(ctx, department_id), ctx.actor)


@tool("listDepartments", permission=DepartmentsPerm.VIEW, title="List departments", read_only=True)
def list_departments(
    ctx: ToolContext,
    *,
    parent_id: Annotated[int | None, Field(ge=1, description="Only the parts of this one")] = None,
    top_level: Annotated[bool, Field(description="Only those part of none")] = False,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[DepartmentSummary]:
    """List departments by name, with their head and counts. By words: searchDepartments."""
    rows = selectors.with_counts(
        ctx.actor, Department.objects.restrict(ctx.actor).select_related("parent", "head")
    )
    if parent_id:
        rows = rows.filter(parent=Department.objects.fetch(ctx.actor, parent_id))
    if top_level:
        rows = rows.filter(parent__isnull=True)
    return paginate(rows.order_by("name", "id"), limit=limit, offset=offset, item=DepartmentSummary.of)


@tool("searchDepartments", permission=DepartmentsPerm.VIEW, title="Search departments", read_only=True)
def search_departments(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(min_length=1, max_length=200, description="Words to find")],
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[DepartmentSummary]:
    """Find departments by words in their fields or their members' names. All of them: listDepartments."""
    rows = search.matching(Department.objects.restrict(ctx.actor), query, selectors.SEARCHED).distinct()
    rows = selectors.with_counts(ctx.actor, rows.select_related("parent", "head"))
    return paginate(rows.order_by("name", "id"), limit=limit, offset=offset, item=DepartmentSummary.of)


class MembershipOut(Out):
    department_id: int
    person: PersonRef
    role: str
    member: bool
    changed: bool


@tool(
    "addMemberToDepartment",
    permission=DepartmentsPerm.EDIT,
    title="Add a member to a department",
    idempotent=True,
)
def add_member_to_department(
    ctx: ToolContext, *, department_id: DepartmentId, person_email: PersonEmail, role: Role = ""
) -> MembershipOut:
    """Make a person a member of a department, with a role (again: changes it). A contact:
    linkContactToDepartment."""
    found = _department(ctx, department_id, "change")
    person = clean.person_by_email(person_email)
    changed = services.member_add(actor=ctx.actor, department=found, person=person, role=role)
    return MembershipOut(
        department_id=found.pk,
        person=PersonRef.of(person),
        role=" ".join(role.split()),
        member=True,
        changed=changed,
    )


@tool(
    "removeMemberFromDepartment",
    permission=DepartmentsPerm.EDIT,
    title="Remove a member from a department",
)
def remove_member_from_department(
    ctx: ToolContext, *, department_id: DepartmentId, person_email: PersonEmail
) -> MembershipOut:
    """Take a person out of a department; they stay in the workspace."""
    found = _department(ctx, department_id, "change")
    person = services.member_remove(actor=ctx.actor, department=found, email=person_email)
    return MembershipOut(
        department_id=found.pk, person=PersonRef.of(person), role="", member=False, changed=True
    )


@tool(
    "linkContactToDepartment",
    permission=DepartmentsPerm.EDIT,
    title="Link a contact to a department",
    idempotent=True,
)
def link_contact_to_department(
    ctx: ToolContext, *, department_id: DepartmentId, contact_id: ContactId, role: Role = ""
) -> ContactLinkResultOut:
    """Link a contact the department deals with, with a role (again: changes it). A person:
    addMemberToDepartment."""
    return contacts_api.change(ctx.actor, Department, department_id, contact_id=contact_id, role=role)


@tool(
    "unlinkContactFromDepartment", permission=DepartmentsPerm.EDIT, title="Unlink a contact from a department"
)
def unlink_contact_from_department(
    ctx: ToolContext, *, department_id: DepartmentId, contact_id: ContactId
) -> ContactLinkResultOut:
    """Remove a contact from a department's contacts; the contact itself stays."""
    return contacts_api.change(ctx.actor, Department, department_id, contact_id=contact_id, remove=True)
