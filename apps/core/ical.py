"""iCalendar (RFC 5545, with the `icalendar` library) for every area: one builder of the invitations
the service sends (RFC 5546: Calendars' events, Events' invitations) and the reading of the feeds
it imports. It knows no area: a caller describes its event as a `Happening`.

    ics = ical.ics_of(Happening(uid=..., sequence=..., summary=..., starts_at=..., ...),
                      method="REQUEST", prodid="-//Atrium//Calendars//EN")

The UID stays the same for the life of an event and SEQUENCE goes up whenever its time or place
changes, so a newer invitation replaces the older one in the attendee's calendar; each VEVENT
carries its VTIMEZONE.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
from django.utils import timezone


@dataclass(frozen=True)
class Address:
    """An organizer or attendee: `params` are further parameters (`partstat="ACCEPTED"` is
    written PARTSTAT=ACCEPTED)."""

    email: str
    name: str = ""
    params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Happening:
    uid: str
    sequence: int
    summary: str
    starts_at: datetime
    ends_at: datetime
    time_zone: str
    all_day: bool = False
    recurrence: str = ""  # an RRULE's value
    excluded: Sequence[datetime] = ()
    description: str = ""
    location: str = ""
    status: str = ""  # CONFIRMED, TENTATIVE, CANCELLED; none written when empty
    transparency: str = ""  # OPAQUE (busy) or TRANSPARENT; none written when empty
    organizer: Address | None = None
    attendees: Sequence[Address] = ()


def _address(person: Address) -> icalendar.vCalAddress:
    address = icalendar.vCalAddress(f"mailto:{person.email}")
    if person.name:
        address.params["CN"] = icalendar.vText(person.name)
    for key, value in person.params.items():
        address.params[key.replace("_", "-").upper()] = icalendar.vText(value)
    return address


def calendar_of(event: Happening, *, method: str, prodid: str) -> icalendar.Calendar:
    """The event as an iCalendar object with its VTIMEZONE."""
    zone = ZoneInfo(event.time_zone)
    ical = icalendar.Calendar()
    ical.add("prodid", prodid)
    ical.add("version", "2.0")
    ical.add("calscale", "GREGORIAN")
    ical.add("method", method)
    vevent = icalendar.Event()
    vevent.add("uid", event.uid)
    vevent.add("dtstamp", datetime.now(UTC))
    vevent.add("sequence", event.sequence)
    vevent.add("summary", event.summary)
    starts, ends = event.starts_at.astimezone(zone), event.ends_at.astimezone(zone)
    vevent.add("dtstart", starts.date() if event.all_day else starts)
    vevent.add("dtend", ends.date() if event.all_day else ends)
    if event.recurrence:
        vevent.add("rrule", icalendar.vRecur.from_ical(event.recurrence))
        if event.excluded:
            vevent.add("exdate", [moment.astimezone(zone) for moment in event.excluded])
    if event.description:
        vevent.add("description", event.description)
    if event.location:
        vevent.add("location", event.location)
    if event.status:
        vevent.add("status", event.status)
    if event.transparency:
        vevent.add("transp", event.transparency)
    if event.organizer is not None:
        vevent.add("organizer", _address(event.organizer))
    for attendee in event.attendees:
        vevent.add("attendee", _address(attendee))
    ical.add_component(vevent)
    ical.add_missing_timezones()
    return ical


def ics_of(event: Happening, *, method: str, prodid: str) -> bytes:
    return bytes(calendar_of(event, method=method, prodid=prodid).to_ical())


# --- reading --------------------------------------------------------------------------------------


class Unreadable(ValueError):
    """Not an iCalendar file."""


def events_in(body: bytes) -> list[Any]:
    """The VEVENT components of an iCalendar file; Unreadable when it is not one."""
    try:
        parsed = icalendar.Calendar.from_ical(body)
    except Exception:
        raise Unreadable from None
    return [component for component in parsed.walk("VEVENT")]


def moment_of(value: Any) -> tuple[str, bool]:
    """(ISO 8601 text, all day) of a DTSTART / DTEND value; a time without a zone is taken in the
    current one. ValueError when it is neither a date nor a time."""
    moment = value.dt
    if isinstance(moment, datetime):
        if moment.tzinfo is None:
            moment = timezone.make_aware(moment, timezone.get_current_timezone())
        return moment.isoformat(), False
    if isinstance(moment, date):
        return moment.isoformat(), True
    raise ValueError("not a date")
