"""The Departments area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem
from apps.departments.permissions import DepartmentsPerm

area = areas.declare(
    title=_("Departments"),
    group=areas.Group.PEOPLE,
    description=_("The workspace's departments, their people and contacts"),
    words="department team division unit org chart office member",
    hints={
        "createDepartment": "new team division unit office, set up a department under another",
        "getDepartment": "who is in a team and who runs heads it, its members, outside contacts, sub-teams",
        "listDepartments": "all teams in the organisation org chart, top level divisions, head counts",
        "searchDepartments": (
            "find a team by subject or email address, which team someone is in, a team that handles something"
        ),
        "updateDepartment": (
            "rename a team, make someone its head manager, its parent, move it under another, its shared "
            "email address"
        ),
        "deleteDepartment": "remove get rid of disband shut down close a team",
        "addMemberToDepartment": "put a colleague in a team, join a team, change their role in it",
        "removeMemberFromDepartment": "take a colleague out of a team, they are no longer part of it",
        "linkContactToDepartment": (
            "record an outside contact or supplier for a team, its main contact at a company"
        ),
        "unlinkContactFromDepartment": "remove an outside contact from a team's list of contacts",
    },
    profiles={
        "essentials": ("listDepartments",),
        "people": (
            "listDepartments",
            "searchDepartments",
            "getDepartment",
            "createDepartment",
            "updateDepartment",
            "addMemberToDepartment",
            "removeMemberFromDepartment",
            "linkContactToDepartment",
        ),
        "support": ("listDepartments",),
        "admin": (
            "createDepartment",
            "updateDepartment",
            "deleteDepartment",
            "addMemberToDepartment",
            "removeMemberFromDepartment",
            "linkContactToDepartment",
            "unlinkContactFromDepartment",
            "searchDepartments",
            "getDepartment",
            "listDepartments",
        ),
    },
    nav=[NavItem("departments", _("Departments"), "departments:list", DepartmentsPerm.VIEW, order=34)],
    kinds=[
        Kind(
            "department",
            "departments.Department",
            title="name",
            url=page("departments:list", anchor="department-"),
            search=("name", "description", "email"),
        )
    ],
)
