from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DepartmentsConfig(AppConfig):
    name = "apps.departments"
    label = "departments"
    verbose_name = _("Departments")

    def ready(self) -> None:
        from apps.core import navigation
        from apps.core.navigation import NavItem

        from .permissions import DepartmentsPerm

        navigation.register(
            NavItem("departments", _("Departments"), "departments:list", DepartmentsPerm.VIEW, order=34)
        )
