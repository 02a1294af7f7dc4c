"""Reads about calendars and events beyond what the access model gives (apps.core.records:
`Calendar.objects.restrict(actor, "view")`, `Event.objects.fetch(actor, id, "change")`; the
rule is in apps.calendars.models): occurrences in a window, free/busy, and the contacts an
address belongs to.

Free/busy is the exception to "what you may see": the times a person is busy are shown to anyone
who may see calendars, without the event's details when they may not see the event itself.
"""

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.db.models import Exists, OuterRef, Q, QuerySet

from apps.calendars.models import Attendee, Event
from apps.core import recurrence

# --- occurrences in a window ----------------------------------------------------------------------


@dataclass(frozen=True)
class Occurrence:
    event: Event
    starts_at: datetime
    ends_at: datetime

    @property
    def recurring(self) -> bool:
        return bool(self.event.recurrence)


def overlapping(rows: QuerySet[Event], *, start: datetime, end: datetime) -> QuerySet[Event]:
    """Events with an occurrence that may overlap [start, end): single events by their times,
    series by their first start and their end."""
    return rows.filter(starts_at__lt=end).filter(
        Q(recurrence="", ends_at__gt=start)
        | (~Q(recurrence="") & (Q(recurrence_ends_at__isnull=True) | Q(recurrence_ends_at__gt=start)))
    )


def expand(
    events: Any, *, start: datetime, end: datetime, limit: int = recurrence.MAX_OCCURRENCES
) -> list[Occurrence]:
    """Every occurrence of `events` overlapping [start, end), soonest first."""
    found: list[Occurrence] = []
    for event in events:
        zone = ZoneInfo(event.time_zone)
        duration = recurrence.wall_length(event.starts_at, event.ends_at, zone)
        for moment in recurrence.occurrences(
            event.recurrence,
            start=event.starts_at,
            duration=duration,
            zone=zone,
            window_start=start,
            window_end=end,
            excluded=event.excluded,
            limit=limit,
        ):
            found.append(Occurrence(event, moment, _end(event, moment, duration, zone)))
    found.sort(key=lambda occurrence: (occurrence.starts_at, occurrence.event.pk))
    return found[:limit]


def _end(event: Event, moment: datetime, duration: timedelta, zone: ZoneInfo) -> datetime:
    """The end of the occurrence starting at `moment`. An all-day one ends at a midnight of its
    zone, whole days later: its first lasted 23 or 25 hours if it began on the day the clocks
    changed, and the others must not end an hour before or after theirs."""
    if not event.all_day:
        return moment + duration
    days = max(1, round(duration / timedelta(days=1)))
    return datetime.combine(moment.date() + timedelta(days=days), time(0), tzinfo=zone)


def occurrences(rows: QuerySet[Event], *, start: datetime, end: datetime) -> list[Occurrence]:
    """Every occurrence of the events `rows` overlapping [start, end), soonest first."""
    return expand(overlapping(rows, start=start, end=end), start=start, end=end)


# --- free / busy ----------------------------------------------------------------------------------


def busy_events_of(email: str, user: Any = None) -> QuerySet[Event]:
    """Events that make the person with this address busy: theirs to attend (not declined), or
    theirs as organiser or calendar owner, not cancelled, not marked free."""
    attending = Attendee.objects.filter(event=OuterRef("pk"), email__iexact=email).exclude(
        response=Attendee.Response.DECLINED
    )
    mine = Q(Exists(attending))
    if user is not None:
        mine = mine | Q(organizer=user) | Q(calendar__owner=user, calendar__is_default=True)
    return (
        Event.objects.live()
        .filter(calendar__deleted_at__isnull=True, busy=True)
        .exclude(status=Event.Status.CANCELLED)
        .filter(mine)
        .select_related("calendar")
    )


def merged(intervals: list[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    result: list[tuple[datetime, datetime]] = []
    for begin, finish in sorted(intervals):
        if result and begin <= result[-1][1]:
            result[-1] = (result[-1][0], max(result[-1][1], finish))
        else:
            result.append((begin, finish))
    return result


def free_slots(
    busy: list[tuple[datetime, datetime]],
    *,
    start: datetime,
    end: datetime,
    length: timedelta,
    zone: ZoneInfo,
    day_starts: int | None,
    day_ends: int | None,
    step: timedelta = timedelta(minutes=15),
    limit: int = 50,
) -> list[tuple[datetime, datetime]]:
    """Slots of `length` in [start, end) clear of every busy interval, on `step` boundaries,
    within working hours (local hours day_starts..day_ends in `zone`) when given."""
    blocks = merged(busy)
    slots: list[tuple[datetime, datetime]] = []
    # Round the first candidate up to the whole minute, then to the step: never before `start`.
    local = start.astimezone(zone)
    whole = local.replace(second=0, microsecond=0)
    if whole < local:
        whole += timedelta(minutes=1)
    step_minutes = int(step.total_seconds() // 60)
    moment = whole + timedelta(minutes=(-(whole.hour * 60 + whole.minute)) % step_minutes)
    index = 0
    while moment + length <= end and len(slots) < limit:
        finish = moment + length
        local_start, local_end = moment.astimezone(zone), finish.astimezone(zone)
        if day_starts is not None and day_ends is not None:
            opens = local_start.replace(hour=day_starts, minute=0)
            closes = local_start.replace(hour=0, minute=0) + timedelta(hours=day_ends)
            if local_start < opens:
                moment = opens
                continue
            if local_end > closes or (local_end.date() != local_start.date() and day_ends < 24):
                following = (local_start + timedelta(days=1)).replace(hour=day_starts, minute=0)
                moment = following
                continue
        while index < len(blocks) and blocks[index][1] <= moment:
            index += 1
        if index < len(blocks) and blocks[index][0] < finish:
            moment = max(moment + step, blocks[index][1])
            continue
        slots.append((moment, finish))
        moment = finish
    return slots
