"""Departments for tests, created through the service (apps.core.factories), e.g.
`DepartmentFactory(actor=people["admin"], name="Sales", parent_id=top.pk)`."""

from typing import Any

from apps.catalogue.testing import listed
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered
from apps.departments import services
from apps.departments.models import Department


class DepartmentFactory(ServiceFactory):
    class Meta:
        model = Department

    name = numbered(fake.city, " office ")
    _service = staticmethod(services.department_create)


@access_rows("departments.Department")
def _departments(people: dict[str, Any]) -> AccessRows:
    return AccessRows(
        everyone=[DepartmentFactory(actor=people["admin"])],
        listed=lambda person: listed(person, "listDepartments", {"limit": 100}),
    )
