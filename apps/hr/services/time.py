"""Writes about time: clocking in and out. Instants are kept in UTC with the zone the employee
works in; a time given without an offset is read in that zone, and one that a daylight-saving
change makes ambiguous or skips is refused rather than guessed. Pairs never overlap; a time set
later than it happened needs a reason and is kept in the entry's audit (TimeEntryEdit)."""

import logging
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.hr.errors import NotYourClock
from apps.hr.models import Employee, TimeEntry, TimeEntryEdit
from apps.hr.permissions import HrPerm

logger = logging.getLogger(__name__)
DAILY_REST = timedelta(hours=11)
WEEKLY_LIMIT_MINUTES = 48 * 60
# A clock time this far from now is a correction: it needs a reason and is audited.
LATE = timedelta(minutes=5)


def instant(value: datetime | None, zone_name: str, *, field: str) -> datetime:
    """`value` as an aware instant (now when None); a wall time in `zone_name` that a DST change
    skips or repeats is refused."""
    now = timezone.now()
    if value is None:
        return now
    if value.tzinfo is None:
        zone = ZoneInfo(zone_name)
        first, second = value.replace(tzinfo=zone, fold=0), value.replace(tzinfo=zone, fold=1)
        back = first.astimezone(UTC).astimezone(zone).replace(tzinfo=None)
        if back != value:
            raise invalid(
                field,
                _("{value} does not exist in {zone_name} (clocks go forward)"),
                value=value.isoformat(),
                zone_name=zone_name,
            )
        if first.utcoffset() != second.utcoffset():
            raise invalid(
                field,
                _("{value} happens twice in {zone_name} (clocks go back); add the offset"),
                value=value.isoformat(),
                zone_name=zone_name,
            )
        value = first
    if value > now + timedelta(minutes=1):
        raise invalid(field, _("is in the future; clock times are when it happened"))
    return value


def _correction(value: datetime, reason: str, field: str) -> bool:
    late = timezone.now() - value > LATE
    if late and not reason.strip():
        raise invalid(
            "reason", _("{field} is more than 5 minutes ago: give the reason for the correction"), field=field
        )
    return late


def _audit(
    actor: Actor, entry: TimeEntry, field: str, before: datetime | None, after: datetime, reason: str
) -> None:
    TimeEntryEdit.objects.create(
        entry=entry,
        changed_by=person(actor),
        field=field,
        before=before.isoformat() if before else "",
        after=after.isoformat(),
        reason=" ".join(reason.split())[:300],
    )


def _check(actor: Actor, employee: Employee) -> Employee:
    require(actor, HrPerm.TIME)
    if not TimeEntry.access.covers(actor, employee=employee):
        raise NotYourClock()
    return Employee.objects.select_for_update().get(pk=employee.pk)


@transaction.atomic
def clock_in(
    *, actor: Actor, employee: Employee, at: datetime | None = None, reason: str = "", note: str = ""
) -> tuple[TimeEntry, list[str]]:
    employee = _check(actor, employee)
    when = instant(at, employee.time_zone, field="at")
    entries = TimeEntry.objects.live().filter(employee=employee)
    open_entry = entries.filter(clock_out__isnull=True).first()
    if open_entry is not None:
        raise invalid(
            "at",
            _("already clocked in since {clock_in}; clockOut first"),
            clock_in=open_entry.clock_in.isoformat(),
        )
    inside = entries.filter(clock_in__lte=when, clock_out__gt=when).first()
    if inside is not None or entries.filter(clock_in__gt=when).exists():
        raise invalid("at", _("overlaps a recorded time entry; in and out pairs never overlap"))
    corrected = _correction(when, reason, "at")
    entry = TimeEntry.objects.create(
        employee=employee,
        clock_in=when,
        time_zone=employee.time_zone,
        source=TimeEntry.Source.MANUAL if corrected else TimeEntry.Source.CLOCK,
        note=" ".join(note.split())[:300],
        created_by=person(actor),
    )
    if corrected:
        _audit(actor, entry, "clock_in", None, when, reason)
    warnings = []
    previous = entries.exclude(pk=entry.pk).filter(clock_out__lte=when).order_by("-clock_out").first()
    rested = when - previous.clock_out if previous is not None and previous.clock_out else None
    if rested is not None and rested < DAILY_REST:
        hours = rested.total_seconds() / 3600
        warnings.append(f"only {hours:.1f} h of rest since the last clock-out (11 h daily rest)")
    logger.info("employee %s clocked in (entry %s)", employee.pk, entry.pk)
    return entry, warnings


@transaction.atomic
def clock_out(
    *,
    actor: Actor,
    employee: Employee,
    at: datetime | None = None,
    break_minutes: int = 0,
    reason: str = "",
) -> tuple[TimeEntry, list[str]]:
    employee = _check(actor, employee)
    entry = (
        TimeEntry.objects.live().select_for_update().filter(employee=employee, clock_out__isnull=True).first()
    )
    if entry is None:
        raise invalid(
            "employeeId", _("{full_name} is not clocked in; clockIn first"), full_name=employee.full_name
        )
    when = instant(at, entry.time_zone, field="at")
    if when <= entry.clock_in:
        raise invalid(
            "at", _("must be after the clock-in at {clock_in}"), clock_in=entry.clock_in.isoformat()
        )
    minutes = (when - entry.clock_in).total_seconds() // 60
    if minutes < 1:
        raise invalid(
            "at",
            _(
                "is less than a minute after the clock-in at {clock_in}: a time entry counts whole minutes; "
                "clock out once a minute has passed"
            ),
            clock_in=entry.clock_in.isoformat(),
        )
    if break_minutes < 0 or break_minutes >= minutes:
        raise invalid(
            "breakMinutes",
            _("must be less than the {minutes} minutes between in and out"),
            minutes=int(minutes),
        )
    corrected = _correction(when, reason, "at")
    entry.clock_out, entry.break_minutes = when, break_minutes
    if corrected:
        entry.source = TimeEntry.Source.MANUAL
    entry.save()
    if corrected:
        _audit(actor, entry, "clock_out", None, when, reason)
    warnings = week_warnings(employee, entry.clock_in)
    logger.info("employee %s clocked out (entry %s)", employee.pk, entry.pk)
    return entry, warnings


def week_of(moment: datetime, zone_name: str) -> tuple[datetime, datetime]:
    """The ISO week (Monday 00:00 to Monday 00:00 in the zone) holding `moment`."""
    zone = ZoneInfo(zone_name)
    local = moment.astimezone(zone)
    monday = (local - timedelta(days=local.weekday())).date()
    start = datetime.combine(monday, datetime.min.time(), tzinfo=zone)
    end = datetime.combine(monday + timedelta(days=7), datetime.min.time(), tzinfo=zone)
    return start, end


def week_warnings(employee: Employee, moment: datetime) -> list[str]:
    start, end = week_of(moment, employee.time_zone)
    rows = TimeEntry.objects.live().filter(employee=employee, clock_in__gte=start, clock_in__lt=end)
    worked = sum(entry.worked_minutes or 0 for entry in rows.filter(~Q(clock_out=None)))
    if worked > WEEKLY_LIMIT_MINUTES:
        return [f"{worked / 60:.1f} h worked in the week of {start.date().isoformat()} (48 h weekly limit)"]
    return []


def entries_warnings(employee: Employee, entries: list[TimeEntry]) -> list[str]:
    """Rest periods under 11 h and weeks over 48 h among `entries` (oldest first)."""
    warnings: list[str] = []
    previous: Any = None
    weeks: dict[Any, int] = {}
    for entry in entries:
        if previous is not None and previous.clock_out and entry.clock_in - previous.clock_out < DAILY_REST:
            rest = (entry.clock_in - previous.clock_out).total_seconds() / 3600
            warnings.append(f"{rest:.1f} h rest before {entry.clock_in.isoformat()} (11 h daily rest)")
        week = week_of(entry.clock_in, entry.time_zone)[0].date()
        weeks[week] = weeks.get(week, 0) + (entry.worked_minutes or 0)
        previous = entry
    for week, minutes in sorted(weeks.items()):
        if minutes > WEEKLY_LIMIT_MINUTES:
            warnings.append(f"{minutes / 60:.1f} h in the week of {week.isoformat()} (48 h weekly limit)")
    return warnings
