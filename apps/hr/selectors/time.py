"""Reads about time entries: one's own, or everyone's with hr.time_manage."""

from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from apps.core.actors import Actor
from apps.hr.models import Employee, TimeEntry


def entries_of(*, actor: Actor, employee: Employee, start: date, end: date) -> Any:
    """The employee's entries that start between the two days (in the employee's zone), oldest first."""
    zone = ZoneInfo(employee.time_zone)
    first = datetime.combine(start, time(0), tzinfo=zone)
    last = datetime.combine(end + timedelta(days=1), time(0), tzinfo=zone)
    rows = TimeEntry.objects.restrict(actor).filter(employee=employee, clock_in__gte=first, clock_in__lt=last)
    return rows.prefetch_related("edits").order_by("clock_in", "id")


def clocked_in(*, actor: Actor) -> Any:
    return TimeEntry.objects.restrict(actor).filter(clock_out__isnull=True)
