"""The Departments area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.navigation import NavItem
from apps.departments.permissions import DepartmentsPerm

area = areas.declare(
    title=_("Departments"),
    description=_("The workspace's departments, their people and contacts"),
    words="department team division unit org chart office member",
    nav=[NavItem("departments", _("Departments"), "departments:list", DepartmentsPerm.VIEW, order=34)],
)
