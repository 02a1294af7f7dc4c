"""Departments as people import and export them as spreadsheets (apps.core.transfer).

A row becomes a department as createDepartment makes one (`services.department_create`, its
cleaning and checks); its parent is given by name and its head by e-mail address, as the caller
sees them. Two rows are one department when they have the same name (without case or extra
spaces): the area keeps one live department of a name. A parent named in the file must exist
before the import (import parents first)."""

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.core import clean, transfer
from apps.core.actors import actor_id
from apps.core.errors import invalid
from apps.core.transfer import Column
from apps.departments import api, services
from apps.departments.models import Department
from apps.departments.permissions import DepartmentsPerm

COLUMNS = (
    Column("name", "name", "unique in the workspace"),
    Column("description", "description"),
    Column("email", "email", "its shared address"),
    Column("parentName", "parent_name", "the name of the department it is part of"),
    Column("headEmail", "head_email", "a person of the workspace who heads it"),
)


def _fields(actor: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """The row's fields as the service takes them: the parent by its id."""
    given = dict(fields)
    parent_name = given.pop("parent_name", None)
    if parent_name:
        parent = api.department_named(actor, parent_name)
        if parent is None:
            raise invalid(
                "parent_name",
                _("no department called {name!r}; listDepartments lists them (import parents first)"),
                name=parent_name,
            )
        given["parent_id"] = parent.pk
    if given.get("head_email"):
        # The service's own lookup, naming the column when nobody has the address.
        clean.person_by_email(given["head_email"], field="head_email")
    return given


SAME = transfer.SameName("name", lambda actor: Department.objects.restrict(actor, "view"))


def check(actor: Any, fields: dict[str, Any]) -> None:
    if SAME.existing(actor, set(SAME.keys(fields))):
        return  # the import leaves it out as a duplicate
    given = _fields(actor, fields)
    services._apply(actor, Department(created_by_id=actor_id(actor)), given, True)


def create(actor: Any, fields: dict[str, Any]) -> int:
    return services.department_create(actor=actor, fields=_fields(actor, fields)).pk


transfer.importable(
    transfer.Importable(
        kind="department",
        label=_("Department"),
        permission=DepartmentsPerm.EDIT,
        columns=COLUMNS,
        check=check,
        create=create,
        keys=SAME.keys,
        existing=SAME.existing,
        description="name: a department of the same name",
    )
)


# The import's columns after the department's id, and what it has that the import does not make.
transfer.exportable(
    transfer.Exportable(
        kind="department",
        label=_("Department"),
        permission=DepartmentsPerm.VIEW,
        columns=(
            ("id", lambda department: department.pk),
            ("name", lambda department: department.name),
            ("description", lambda department: department.description),
            ("email", lambda department: department.email),
            ("parentName", lambda department: department.parent.name if department.parent else ""),
            ("headEmail", lambda department: department.head.email if department.head else ""),
            (
                "memberEmails",
                lambda department: "; ".join(member.user.email for member in department.members.all()),
            ),
            ("createdAt", lambda department: department.created_at),
        ),
        rows=lambda actor: (
            Department.objects.restrict(actor, "view").select_related("parent", "head").order_by("name", "id")
        ),
        search=("name", "description", "email"),
    )
)
