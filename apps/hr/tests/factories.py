"""Employees for tests, made through the service as HR makes them (apps.core.factories):
`EmployeeFactory(actor=people["owner"], fte="0.6", start_date=date(2030, 3, 15))`."""

from datetime import date
from typing import Any

from apps.core.factories import ServiceFactory, fake, numbered
from apps.hr.models import Employee
from apps.hr.services import employees


def _employee(*, actor: Any, fields: dict[str, Any]) -> Employee:
    return employees.employee_create(actor=actor, fields=fields)


class EmployeeFactory(ServiceFactory):
    class Meta:
        model = Employee

    full_name = numbered(fake.name, " ")
    job_title = "Engineer"
    start_date = date(2020, 1, 1)
    country = "GB"
    region = "ENG"
    time_zone = "Europe/London"
    _service = staticmethod(_employee)
