"""What the calendar tools answer (camelCase JSON). Times are given in the event's (or the
calendar's) own time zone, with their offset."""

from datetime import datetime
from typing import Annotated
from zoneinfo import ZoneInfo

from pydantic import Field

from apps.calendars.models import Attendee, Event
from apps.calendars.selectors import Occurrence
from apps.catalogue.shapes import From, Out, PersonRef, RefOut


class CalendarOut(Out):
    id: int
    name: str
    description: str
    colour: str
    time_zone: str
    owner: PersonRef | None
    visibility: str
    is_default: bool = Field(description="Its owner's own, used when none is named")
    archived: Annotated[bool, From("in_trash")]
    created_at: datetime
    updated_at: datetime


class AttendeeOut(Out):
    email: str
    name: str
    person_id: int | None
    contact_id: int | None
    optional: bool
    response: str
    responded_at: datetime | None
    comment: str
    invited_at: datetime | None
    invitation_up_to_date: bool

    @classmethod
    def of(cls, attendee: Attendee, event: Event) -> "AttendeeOut":
        return cls.of_record(
            attendee,
            person_id=attendee.user_id,
            invitation_up_to_date=attendee.invited_sequence == event.sequence,
        )


class EventOut(Out):
    id: int
    calendar: RefOut
    title: str
    description: str
    location: str
    start: datetime = Field(description="The first start")
    end: datetime
    all_day: bool
    time_zone: str
    recurrence: str
    cancelled_occurrences: list[datetime]
    repeats_until: datetime | None = Field(description="null: for ever")
    status: str
    busy: bool
    organizer: PersonRef | None
    attendees: list[AttendeeOut]
    sequence: int = Field(description="iCalendar SEQUENCE")
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, event: Event) -> "EventOut":
        zone = ZoneInfo(event.time_zone)
        return cls.of_record(
            event,
            start=event.starts_at.astimezone(zone),
            end=event.ends_at.astimezone(zone),
            cancelled_occurrences=[moment.astimezone(zone) for moment in event.excluded],
            repeats_until=event.recurrence_ends_at.astimezone(zone)
            if event.recurrence and event.recurrence_ends_at
            else None,
            attendees=[AttendeeOut.of(attendee, event) for attendee in event.attendees.all()],
        )


class OccurrenceOut(Out):
    event_id: int
    calendar_id: int
    title: str
    start: datetime
    end: datetime
    all_day: bool
    time_zone: str
    location: str
    status: str
    recurring: bool
    attendees: int = Field(description="How many are invited")

    @classmethod
    def of(cls, occurrence: Occurrence, counts: dict[int, int] | None = None) -> "OccurrenceOut":
        event = occurrence.event
        zone = ZoneInfo(event.time_zone)
        return cls.of_record(
            event,
            event_id=event.pk,
            start=occurrence.starts_at.astimezone(zone),
            end=occurrence.ends_at.astimezone(zone),
            recurring=occurrence.recurring,
            attendees=(counts or {}).get(event.pk, 0),
        )


class Interval(Out):
    start: datetime
    end: datetime


class BusyOut(Interval):
    event_id: int | None = Field(description="Only for events you may see")
    title: str
