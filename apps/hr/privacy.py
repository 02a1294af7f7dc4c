"""Personal data in HR (docs/privacy.md).

An employee is found by the person of the workspace it is linked to, or by its work e-mail
address; every HR row about them is found through that employee (restricted details:
special-category data). Soft delete archives the employment record; erasure deletes it with
everything that hangs on it.
"""

from typing import Any

from django.db.models import Q

from apps.core import privacy
from apps.hr.models import Employee, RestrictedDetails


def _employee_rows(subject: privacy.Subject, prefix: str = "") -> Q:
    rows = Q(**{f"{prefix}email__iexact": subject.email}) & ~Q(**{f"{prefix}email": ""})
    if subject.user is not None:
        rows |= Q(**{f"{prefix}user": subject.user})
    return rows


def _of(model: Any, prefix: str) -> Any:
    def find(subject: privacy.Subject) -> Any:
        return model._base_manager.filter(_employee_rows(subject, prefix))

    return find


privacy.register(Employee, find=_of(Employee, ""), soft_delete="deleted_at", order=50)
privacy.register(RestrictedDetails, find=_of(RestrictedDetails, "employee__"))
