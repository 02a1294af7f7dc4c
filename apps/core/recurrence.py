"""Time zones, date-times as agents write them, and RFC 5545 recurrence rules: shared by every
area that schedules something (calendar events, scheduled work).

- A time zone is an IANA name (`Europe/London`), read with zoneinfo; the workspace's own
  (`Workspace.time_zone`) is the default.
- A date-time is ISO 8601 text: `2026-03-10T14:30` is a wall-clock time in the zone that
  applies; `2026-03-10T14:30:00+01:00` or `...Z` is an instant. A bare date is accepted only
  where a day is meant.
- A recurrence rule is one RRULE value (`FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10`), read by
  python-dateutil from the first start, in the event's own zone: "10:00 every Monday" stays
  10:00 across daylight-saving changes. Rules are stored canonical: upper case, FREQ first,
  UNTIL in UTC (RFC 5545 3.3.10 requires that when the start has a zone).

Every problem raises `ValidationFailed` whose details name the field, so a tool answers a clear
error that says what to write instead.
"""

import zoneinfo
from collections.abc import Iterable
from datetime import date, datetime, time, timedelta
from typing import Any

from dateutil.rrule import rrule, rrulestr
from django.utils.translation import gettext as _

from apps.core import clean
from apps.core.errors import invalid

# More occurrences than this in one answer are cut (an hourly rule over a year is 8,760).
MAX_OCCURRENCES = 2000
# A rule whose last occurrence is further than this many occurrences away counts as endless.
MAX_COUNT = 1000
# Every so many periods: at most this (a rule every 1,000 years says nothing a date would not).
MAX_INTERVAL = 1000
# How far from its start a rule's first occurrence may be (docs/calendars.md), and the last year
# from which it is looked for (the search runs on to the year 9999).
FIRST_WITHIN = timedelta(days=100 * 365)
LAST_SEARCHED_YEAR = 9999 - 100
FREQUENCIES = ("YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY")
RULE_PARTS = (
    "FREQ",
    "INTERVAL",
    "COUNT",
    "UNTIL",
    "BYMONTH",
    "BYWEEKNO",
    "BYYEARDAY",
    "BYMONTHDAY",
    "BYDAY",
    "BYHOUR",
    "BYMINUTE",
    "BYSECOND",
    "BYSETPOS",
    "WKST",
)


# --- time zones -----------------------------------------------------------------------------------


def workspace_zone() -> zoneinfo.ZoneInfo:
    """The current workspace's time zone (UTC outside a workspace)."""
    from apps.core.workspaces import current_workspace

    workspace = current_workspace()
    try:
        return zoneinfo.ZoneInfo(workspace.time_zone if workspace is not None else "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def zone_named(name: str | None, *, field: str = "time_zone") -> zoneinfo.ZoneInfo:
    """The zone of an IANA name; None or empty: the workspace's."""
    if not name or not name.strip():
        return workspace_zone()
    return zoneinfo.ZoneInfo(clean.zone(name, field=field))


# --- date-times written by agents -----------------------------------------------------------------


def parse_when(text: str, *, zone: zoneinfo.ZoneInfo, field: str, allow_date: bool = False) -> datetime:
    """An aware date-time from ISO 8601 text; a time without an offset is a wall-clock time in
    `zone`. With `allow_date`, a bare date is midnight of that day in `zone`. Within the years of
    `clean.YEARS`: further out, the time moved to UTC, or an end or a window reckoned from it,
    falls outside what Python's datetime holds."""
    value = (text or "").strip()
    example = "2026-03-10T14:30 (in the time zone that applies) or 2026-03-10T14:30:00+01:00"
    if allow_date and len(value) == 10:
        return datetime.combine(parse_day(value, field=field), time(0), tzinfo=zone)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        parsed = None
    if parsed is None or ("T" not in value.upper() and " " not in value):
        raise invalid(
            field,
            _("{value!r} is not a date and time in ISO 8601, e.g. {example}"),
            value=value,
            example=example,
        )
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=zone)
    return clean.in_years(parsed.replace(microsecond=0), field=field)


def parse_day(text: str, *, field: str) -> date:
    """A date from ISO 8601 text, within the years of `clean.YEARS`."""
    try:
        found = date.fromisoformat((text or "").strip())
    except ValueError:
        raise invalid(field, _("{value!r} is not a date in ISO 8601, e.g. 2026-03-10"), value=text) from None
    return clean.in_years(found, field=field)


def local_naive(value: datetime, zone: zoneinfo.ZoneInfo) -> datetime:
    return value.astimezone(zone).replace(tzinfo=None)


def wall_length(start: datetime, end: datetime, zone: zoneinfo.ZoneInfo) -> timedelta:
    """How long something lasts on the clocks of `zone`: 22:00 to 06:00 is eight hours, on the
    night the clocks go back too (nine by the world's clock). Added to an occurrence's start in
    `zone` (aware datetimes add on the wall clock), it ends each at the same time of day."""
    return local_naive(end, zone) - local_naive(start, zone)


# --- recurrence rules -----------------------------------------------------------------------------


def normalise_rule(text: str, *, start: datetime, zone: zoneinfo.ZoneInfo, field: str = "recurrence") -> str:
    """The canonical form of an RRULE value that recurs from `start` in `zone`, or a
    ValidationFailed naming what is wrong."""
    value = (text or "").strip()
    if value.upper().startswith("RRULE:"):
        value = value[6:].strip()
    hint = _("give one RRULE value such as FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10 (RFC 5545)")
    if not value or any(ch in value for ch in "\r\n:"):
        raise invalid(field, hint)
    parts: dict[str, str] = {}
    for piece in value.strip(";").split(";"):
        name, sep, setting = piece.partition("=")
        name, setting = name.strip().upper(), setting.strip().upper()
        if not sep or not name or not setting:
            raise invalid(field, _("{piece!r} is not NAME=VALUE; {hint}"), piece=piece, hint=hint)
        if name not in RULE_PARTS:
            raise invalid(field, _("{name} is not a part of an RRULE"), name=name)
        if name in parts:
            raise invalid(field, _("{name} is given twice"), name=name)
        parts[name] = setting
    frequency = parts.get("FREQ")
    if frequency is None:
        raise invalid(field, _("FREQ is required; {hint}"), hint=hint)
    if frequency not in FREQUENCIES:
        raise invalid(
            field,
            _("FREQ={freq} is not allowed; use one of {allowed}"),
            freq=frequency,
            allowed=", ".join(FREQUENCIES),
        )
    if "COUNT" in parts and "UNTIL" in parts:
        raise invalid(field, _("COUNT and UNTIL cannot be used together (RFC 5545)"))
    # INTERVAL=0 never moves on: the rule library would loop for ever looking for the next one.
    if "INTERVAL" in parts and not (
        parts["INTERVAL"].isdigit() and 1 <= int(parts["INTERVAL"]) <= MAX_INTERVAL
    ):
        raise invalid(field, _("INTERVAL must be a whole number from 1 to {max}"), max=MAX_INTERVAL)
    if "COUNT" in parts and not (parts["COUNT"].isdigit() and 1 <= int(parts["COUNT"]) <= MAX_COUNT):
        raise invalid(field, _("COUNT must be a number from 1 to {max}"), max=MAX_COUNT)
    if "UNTIL" in parts:
        until = _until(parts["UNTIL"], zone=zone, field=field)
        if until < start:
            raise invalid(field, _("UNTIL is before the first occurrence"))
        parts["UNTIL"] = until.astimezone(zoneinfo.ZoneInfo("UTC")).strftime("%Y%m%dT%H%M%SZ")
    canonical = ";".join(f"{name}={parts[name]}" for name in RULE_PARTS if name in parts)
    try:
        rule = _compile(canonical, start=start, zone=zone)
    except (ValueError, TypeError, KeyError, IndexError) as error:
        raise invalid(
            field, _("{rule!r} does not parse as an RFC 5545 rule ({why})"), rule=text, why=error
        ) from None
    local_start = local_naive(start, zone)
    if not _occurs_soon(parts, local_start) or rule.after(local_start, inc=True) is None:
        raise invalid(
            field,
            _("the rule has no occurrence within {years} years of the event's start"),
            years=FIRST_WITHIN.days // 365,
        )
    return canonical


def _occurs_soon(parts: dict[str, str], local_start: datetime) -> bool:
    """Whether the rule (without its COUNT or UNTIL) occurs within FIRST_WITHIN of its start.

    Asked from the start itself, a rule that never occurs (the 30th of February, every seventh day
    that is a Tuesday) is searched for day by day up to the year 9999: seconds of work for each
    call that names it. The Gregorian calendar repeats every 400 years, weekdays and leap days
    with it, so the same question is asked from the same day of a year late in that range, where
    the search ends after at most 500 years."""
    endless = ";".join(
        f"{name}={parts[name]}" for name in RULE_PARTS if name in parts and name not in {"COUNT", "UNTIL"}
    )
    years = max(0, (LAST_SEARCHED_YEAR - local_start.year) // 400 * 400)
    moved = local_start.replace(year=local_start.year + years)
    first = rrulestr(endless, dtstart=moved).after(moved, inc=True)
    return first is not None and first - moved <= FIRST_WITHIN


def _until(value: str, *, zone: zoneinfo.ZoneInfo, field: str) -> datetime:
    try:
        if len(value) == 8:
            # A date: the whole of that day, in the event's zone.
            day = datetime.strptime(value, "%Y%m%d")
            return datetime.combine(day.date(), time(23, 59, 59), tzinfo=zone)
        if value.endswith("Z"):
            return datetime.strptime(value, "%Y%m%dT%H%M%SZ").replace(tzinfo=zoneinfo.ZoneInfo("UTC"))
        return datetime.strptime(value, "%Y%m%dT%H%M%S").replace(tzinfo=zone)
    except ValueError:
        raise invalid(
            field,
            _("UNTIL={value} is not a date (20260630) or a UTC time (20260630T170000Z)"),
            value=value,
        ) from None


def _compile(canonical: str, *, start: datetime, zone: zoneinfo.ZoneInfo) -> rrule:
    """The dateutil rule, expanded on wall-clock times of `zone` (UNTIL turned local too)."""
    pieces = []
    for piece in canonical.split(";"):
        name, _sep, setting = piece.partition("=")
        if name == "UNTIL":
            instant = datetime.strptime(setting, "%Y%m%dT%H%M%SZ").replace(tzinfo=zoneinfo.ZoneInfo("UTC"))
            setting = local_naive(instant, zone).strftime("%Y%m%dT%H%M%S")
        pieces.append(f"{name}={setting}")
    rule = rrulestr(";".join(pieces), dtstart=local_naive(start, zone))
    if not isinstance(rule, rrule):
        raise ValueError("one RRULE value expected")
    return rule


def occurrences(
    rule: str,
    *,
    start: datetime,
    duration: timedelta,
    zone: zoneinfo.ZoneInfo,
    window_start: datetime,
    window_end: datetime,
    excluded: Iterable[datetime] = (),
    limit: int = MAX_OCCURRENCES,
) -> list[datetime]:
    """The starts (aware, in `zone`) of the occurrences that overlap [window_start, window_end),
    without the `excluded` ones. A rule of "" is the single occurrence at `start`."""
    skip = {moment.astimezone(zoneinfo.ZoneInfo("UTC")) for moment in excluded}
    if not rule:
        starts: Iterable[datetime] = [start.astimezone(zone)]
    else:
        compiled = _compile(rule, start=start, zone=zone)
        lower = local_naive(window_start - duration, zone)
        starts = (
            naive.replace(tzinfo=zone) for naive in compiled.xafter(lower, count=limit + len(skip), inc=False)
        )
    found = []
    for moment in starts:
        if moment >= window_end:
            break
        if moment + duration <= window_start or moment.astimezone(zoneinfo.ZoneInfo("UTC")) in skip:
            continue
        found.append(moment)
        if len(found) >= limit:
            break
    return found


def last_start(rule: str, *, start: datetime, zone: zoneinfo.ZoneInfo) -> datetime | None:
    """The start of the last occurrence, or None for a rule without an end (or too long to count)."""
    if not rule:
        return start
    if "COUNT=" not in rule and "UNTIL=" not in rule:
        return None
    compiled = _compile(rule, start=start, zone=zone)
    last = None
    for index, naive in enumerate(compiled):
        if index >= MAX_OCCURRENCES * 5:
            return None
        last = naive
    return last.replace(tzinfo=zone) if last is not None else start


def next_start(rule: str, *, start: datetime, zone: zoneinfo.ZoneInfo, after: datetime) -> datetime | None:
    """The start (aware, in `zone`) of the first occurrence strictly after `after`, or None."""
    if not rule:
        return start.astimezone(zone) if start > after else None
    naive = _compile(rule, start=start, zone=zone).after(local_naive(after, zone), inc=False)
    return naive.replace(tzinfo=zone) if naive is not None else None


def is_recurrence_instance(rule: str, *, start: datetime, zone: zoneinfo.ZoneInfo, moment: datetime) -> bool:
    """Whether `moment` is the start of one of the rule's occurrences."""
    if not rule:
        return moment == start
    naive = local_naive(moment, zone)
    return _compile(rule, start=start, zone=zone).after(naive, inc=True) == naive


def describe_rule(rule: str) -> dict[str, Any]:
    """The parts of a canonical rule, for answers (`{"FREQ": "WEEKLY", "BYDAY": "MO"}`)."""
    return dict(piece.split("=", 1) for piece in rule.split(";")) if rule else {}
