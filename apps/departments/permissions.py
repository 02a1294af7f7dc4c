from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class DepartmentsPerm(PermissionEnum):
    VIEW = "departments.view", Level.READ, _("See departments, their members and linked contacts")
    EDIT = "departments.edit", Level.WRITE, _("Create and change departments, their members and contacts")
    DELETE = "departments.delete", Level.DELETE, _("Delete departments")
