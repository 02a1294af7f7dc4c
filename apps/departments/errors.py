from typing import Any

from django.utils.translation import gettext as _

from apps.core.errors import NotFound, ValidationFailed


class DepartmentNotFound(NotFound):
    def __init__(self, department_id: Any) -> None:
        super().__init__(
            _("Department %(id)s was not found. Find the right id with searchDepartments or listDepartments.")
            % {"id": department_id}
        )


class InvalidDepartment(ValidationFailed):
    @classmethod
    def on(cls, field: str, message: str) -> "InvalidDepartment":
        return cls(f"{field}: {message}.", details={field: [message]})
