"""The Departments area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.navigation import NavItem
from apps.departments.permissions import DepartmentsPerm

area = areas.declare(
    title=_("Departments"),
    group=areas.Group.PEOPLE,
    description=_("The workspace's departments, their people and contacts"),
    words="department team division unit org chart office member",
    hints={
        "createDepartment": "new team division",
        "getDepartment": "who is in a team and who runs heads it",
        "listDepartments": "all teams in the organisation org chart",
        "searchDepartments": "find a team by subject or email address",
        "updateDepartment": "rename a team, make someone its head manager, its parent, who it reports to",
        "deleteDepartment": "remove get rid of disband a team",
        "addMemberToDepartment": "put a colleague in a team",
        "removeMemberFromDepartment": "take a colleague out of a team",
        "linkContactToDepartment": "record an outside contact or supplier for a team",
        "unlinkContactFromDepartment": "remove an outside contact from a team",
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
        "support": ("listDepartments", "getDepartment"),
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
)
