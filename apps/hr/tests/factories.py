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


# --- reviews, training, policies, grievances, hiring ---------------------------------------------


def hiring_pipeline(actor: Any, name: str = "", stages: tuple[str, ...] = ()) -> Any:
    """A hiring pipeline (Applied, Interview, Offer, Hired; Offer and Hired are decisions)."""
    import uuid

    from apps.hr.services import hiring

    return hiring.pipeline_create(
        actor=actor,
        name=name or f"Job {uuid.uuid4().hex[:8]}",
        stages=list(stages or ("Applied", "Interview", "Offer", "Hired")),
        decision_stages=["Offer", "Hired"] if not stages else None,
    )


def candidate(actor: Any, pipeline: Any, **fields: Any) -> Any:
    from apps.hr.services import hiring

    fields.setdefault("name", fake.name())
    fields.setdefault("email", f"{fake.user_name()}.{fake.random_int(1, 10**9)}@example.net")
    made, _looks = hiring.candidate_create(actor=actor, pipeline=pipeline, fields=fields)
    return made


def review(
    actor: Any, employee: Employee, manager: Any, peers: list[Any] | None = None, cycle: str = ""
) -> Any:
    """A review of `employee` run by `manager` in a cycle (new unless named)."""
    import uuid

    from apps.hr.services import reviews

    found = reviews.cycle_find_or_create(actor=actor, name=cycle or f"Cycle {uuid.uuid4().hex[:8]}")
    return reviews.review_create(actor=actor, cycle=found, employee=employee, manager=manager, peers=peers)
