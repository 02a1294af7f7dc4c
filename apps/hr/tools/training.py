"""Training records: addTrainingRecord, getTrainingRecords."""

from datetime import date, timedelta
from typing import Annotated, Literal

from django.utils import timezone
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, id_field, paginate
from apps.core import search
from apps.hr.models import Employee, TrainingRecord
from apps.hr.models.training import EXPIRING_DAYS
from apps.hr.permissions import HrPerm
from apps.hr.services import training as services


class TrainingOut(Out):
    id: int
    employee_id: int
    employee: str
    course: str
    provider: str
    completed_on: date
    expires_on: date | None
    status: str = Field(description=f"valid, expiring (within {EXPIRING_DAYS} days) or expired")

    @classmethod
    def of(cls, record: TrainingRecord) -> "TrainingOut":
        return cls.of_record(
            record, employee=record.employee.full_name, status=record.status_on(timezone.localdate())
        )


@tool("addTrainingRecord", permission=HrPerm.TRAINING, title="Add a training record")
def add_training_record(
    ctx: ToolContext,
    *,
    employee_id: Annotated[int, id_field("searchEmployees")],
    course: Annotated[str, Field(min_length=1, max_length=200, description="e.g. First aid")],
    completed_on: Annotated[date, Field(description="Not in the future")],
    expires_on: Annotated[date | None, Field(description="Or validMonths; none: never")] = None,
    valid_months: Annotated[int | None, Field(ge=1, le=240, description="Months it stays valid")] = None,
    provider: Annotated[str, Field(max_length=200, description="Who trained")] = "",
) -> TrainingOut:
    """Record a course an employee completed, with when its certificate expires."""
    employee = Employee.objects.fetch(ctx.actor, employee_id)
    record = services.training_add(
        actor=ctx.actor,
        employee=employee,
        course=course,
        completed_on=completed_on,
        expires_on=expires_on,
        valid_months=valid_months,
        provider=provider,
    )
    return TrainingOut.of(record)


@tool("getTrainingRecords", permission=HrPerm.TRAINING, title="Get training records", read_only=True)
def get_training_records(
    ctx: ToolContext,
    *,
    employee_id: Annotated[int | None, id_field("searchEmployees", description="Only theirs")] = None,
    status: Annotated[Literal["valid", "expiring", "expired"] | None, Field(description="Only these")] = None,
    course: Annotated[str | None, Field(max_length=200, description="Words of the course")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[TrainingOut]:
    """List training records and their expiry; expired or expiring soon with status."""
    rows = TrainingRecord.objects.restrict(ctx.actor).select_related("employee")
    if employee_id:
        rows = rows.filter(employee=Employee.objects.fetch(ctx.actor, employee_id))
    if search.words(course):
        rows = search.matching(rows, course, ("course", "provider"))
    today = timezone.localdate()
    soon = today + timedelta(days=EXPIRING_DAYS)
    if status == "expired":
        rows = rows.filter(expires_on__lte=today)
    elif status == "expiring":
        rows = rows.filter(expires_on__gt=today, expires_on__lte=soon)
    elif status == "valid":
        rows = rows.exclude(expires_on__lte=soon)
    rows = rows.order_by("expires_on", "employee__full_name", "id")
    return paginate(rows, limit=limit, offset=offset, item=TrainingOut.of)
