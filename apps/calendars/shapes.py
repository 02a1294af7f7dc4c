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
    visibility: str = Field(description="workspace (everyone who may see calendars) or private")
    is_default: bool = Field(description="Its owner's own calendar, used when no calendar is named")
    archived: Annotated[bool, From("in_trash")]
    created_at: datetime
    updated_at: datetime


class AttendeeOut(Out):
    email: str
    name: str
    person_id: int | None = Field(description="The workspace person with this address, if any")
    contact_id: int | None = Field(description="The contact with this address, if any")
    optional: bool
    response: str = Field(description="needs_action, accepted, tentative or declined")
    responded_at: datetime | None
    comment: str
    invited_at: datetime | None = Field(description="When the last invitation was sent; null: never")
    invitation_up_to_date: bool = Field(
        description="False when never invited, or the event changed since the last invitation"
    )

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
    start: datetime = Field(description="The first (or only) start, in the event's time zone")
    end: datetime
    all_day: bool
    time_zone: str
    recurrence: str = Field(description="RFC 5545 RRULE value; empty when it does not repeat")
    cancelled_occurrences: list[datetime]
    repeats_until: datetime | None = Field(
        description="End of the last occurrence; null if it repeats for ever"
    )
    status: str = Field(description="confirmed, tentative or cancelled")
    busy: bool = Field(description="Whether it makes its people busy")
    organizer: PersonRef | None
    attendees: list[AttendeeOut]
    sequence: int = Field(description="iCalendar SEQUENCE: goes up when the time, place or rule changes")
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
    recurring: bool = Field(description="One occurrence of a repeating event")
    attendees: int = Field(description="How many people are invited")

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
    title: str = Field(description='"busy" for events you may not see')
