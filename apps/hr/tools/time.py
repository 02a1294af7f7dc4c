"""Time clock in the catalogue (apps.hr.services.time)."""

from datetime import date, datetime, timedelta
from typing import Annotated

from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Out
from apps.core.errors import invalid
from apps.hr.errors import NotYourTimeSheet
from apps.hr.models import TimeEntry
from apps.hr.permissions import HrPerm
from apps.hr.selectors import time as selectors
from apps.hr.services import time as services
from apps.hr.shapes import TimeEntryOut
from apps.hr.tools.leave import Whose, employee_for

At = Annotated[datetime | None, Field(description="Default now; no offset: employee's zone")]
Reason = Annotated[str, Field(max_length=300, description="Needed for a past time (audited)")]


class ClockOut(Out):
    entry: TimeEntryOut
    warnings: list[str] = Field(description="Rest and weekly-hours limits")


def _entry(entry: object) -> TimeEntryOut:
    edited = bool(entry.edits.all())  # type: ignore[attr-defined]
    return TimeEntryOut.of_record(entry, edited=edited)


@tool("clockIn", permission=HrPerm.TIME, title="Clock in")
def clock_in(
    ctx: ToolContext,
    *,
    employee_id: Whose = None,
    at: At = None,
    reason: Reason = "",
    note: Annotated[str, Field(max_length=300, description="e.g. on site")] = "",
) -> ClockOut:
    """Start a time-clock entry (work begins); end it with clockOut."""
    employee = employee_for(ctx, employee_id)
    entry, warnings = services.clock_in(actor=ctx.actor, employee=employee, at=at, reason=reason, note=note)
    return ClockOut(entry=_entry(entry), warnings=warnings)


@tool("clockOut", permission=HrPerm.TIME, title="Clock out")
def clock_out(
    ctx: ToolContext,
    *,
    employee_id: Whose = None,
    at: At = None,
    break_minutes: Annotated[int, Field(ge=0, le=1440, description="Breaks taken")] = 0,
    reason: Reason = "",
) -> ClockOut:
    """End the open time-clock entry started by clockIn, with the breaks taken."""
    employee = employee_for(ctx, employee_id)
    entry, warnings = services.clock_out(
        actor=ctx.actor, employee=employee, at=at, break_minutes=break_minutes, reason=reason
    )
    return ClockOut(entry=_entry(entry), warnings=warnings)


class TimeSheet(Out):
    employee_id: int
    entries: list[TimeEntryOut]
    worked_minutes: int
    warnings: list[str]


@tool("getTimeEntries", permission=HrPerm.TIME, title="Get time entries", read_only=True)
def get_time_entries(
    ctx: ToolContext,
    *,
    employee_id: Whose = None,
    start: Annotated[date | None, Field(description="Default: 6 days ago")] = None,
    end: Annotated[date | None, Field(description="Default: today")] = None,
) -> TimeSheet:
    """An employee's clock-in/out pairs over days (at most 62), total worked and any warnings."""
    employee = employee_for(ctx, employee_id)
    if not TimeEntry.access.covers(ctx.actor, employee=employee):
        raise NotYourTimeSheet()
    end = end or timezone.localdate()
    start = start or end - timedelta(days=6)
    if end < start or (end - start).days > 61:
        raise invalid("end", _("give an end on or after the start, at most 62 days later"))
    rows = list(selectors.entries_of(actor=ctx.actor, employee=employee, start=start, end=end))
    return TimeSheet(
        employee_id=employee.pk,
        entries=[_entry(row) for row in rows],
        worked_minutes=sum(row.worked_minutes or 0 for row in rows),
        warnings=services.entries_warnings(employee, rows),
    )
