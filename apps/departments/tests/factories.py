"""Departments for tests, created through the service (apps.core.factories), e.g.
`DepartmentFactory(actor=people["admin"], name="Sales", parent_id=top.pk)`."""

from apps.core.factories import ServiceFactory, fake, numbered
from apps.departments import services
from apps.departments.models import Department


class DepartmentFactory(ServiceFactory):
    class Meta:
        model = Department

    name = numbered(fake.city, " office ")
    _service = staticmethod(services.department_create)
