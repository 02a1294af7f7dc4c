"""The Calendars area's public module: what other areas may use of it (docs/calendars.md, "For
other areas"). Nothing else of apps.calendars is theirs to import.

Another area shows its own dates in the workspace's calendars (HR: approved leave) with
`put_event(...)`: an event on a shared calendar of the workspace named by the caller (made when
missing), with its guests; `cancel_event(...)` takes it back. No permission of the actor is asked:
the caller's area decided (a leave approver), and the caller checks that the Calendars area is
installed. `Guest` is one attendee.

A video meeting is attached to an event the actor may change (Video Meeting's
createProviderMeeting): `event_for_meeting(...)` reads it with its guests (or the kit's error),
`link_meeting(...)` puts the join address in its location and description through the same update
as any change of the event (the actor's permission checked, a new SEQUENCE for the guests).

An area that plans a person's time (the Personal Assistant) reads when they are busy with
`busy_times(...)` (checkAvailability's reading: every event that makes the person busy, series
expanded, declined and free ones left out) and writes the blocks a person approved into their own
calendar with `put_own_event(...)` (the Calendars area's create service, the actor's permission
checked; guests invited by the same e-mail as createEvent's, when asked).
"""

from dataclasses import dataclass
from datetime import datetime

from apps.calendars import invitations, selectors, services
from apps.calendars.models import Attendee, Calendar, Event
from apps.core.actors import Actor, actor_id

__all__ = [
    "Guest",
    "MeetingEvent",
    "busy_times",
    "cancel_event",
    "event_for_meeting",
    "link_meeting",
    "put_event",
    "put_own_event",
]


@dataclass(frozen=True)
class Guest:
    email: str
    name: str = ""
    user_id: int | None = None  # a person of the workspace
    response: str = Attendee.Response.NEEDS_ACTION


def _shared_calendar(actor: Actor | None, name: str, description: str, time_zone: str) -> Calendar:
    """The workspace's shared calendar of this name (not anyone's default), made when missing."""
    found = Calendar.objects.live().filter(name=name, visibility="workspace", is_default=False).first()
    if found is None:
        found = Calendar.objects.create(
            name=name,
            description=description,
            time_zone=time_zone,
            visibility="workspace",
            owner=None,
            created_by_id=actor_id(actor),
        )
    return found


def put_event(
    *,
    actor: Actor | None,
    calendar: str,
    calendar_description: str,
    title: str,
    description: str,
    starts_at: datetime,
    ends_at: datetime,
    time_zone: str,
    all_day: bool = False,
    busy: bool = True,
    guests: list[Guest] | None = None,
) -> int:
    """A new event on the shared calendar named `calendar`, organised by the actor; its id."""
    event = Event.objects.create(
        calendar=_shared_calendar(actor, calendar, calendar_description, time_zone),
        title=title[:300],
        description=description,
        starts_at=starts_at,
        ends_at=ends_at,
        all_day=all_day,
        time_zone=time_zone,
        busy=busy,
        organizer_id=actor_id(actor),
        created_by_id=actor_id(actor),
    )
    for guest in guests or []:
        Attendee.objects.create(
            event=event, email=guest.email, name=guest.name, user_id=guest.user_id, response=guest.response
        )
    return event.pk


def cancel_event(*, actor: Actor | None, event_id: int) -> None:
    """Cancels a live event made with `put_event` (its SEQUENCE goes up) and puts it in the trash."""
    event = Event.objects.filter(pk=event_id, deleted_at__isnull=True).first()
    if event is not None:
        event.status = Event.Status.CANCELLED
        event.sequence += 1
        event.save(update_fields=["status", "sequence", "updated_at"])
        event.trash(actor)


@dataclass(frozen=True)
class MeetingEvent:
    id: int
    title: str
    starts_at: datetime
    ends_at: datetime
    guests: tuple[Guest, ...]


def event_for_meeting(*, actor: Actor, event_id: int) -> MeetingEvent:
    """The event `event_id` if the actor may change it ("not found", in the trash or read-only
    otherwise), with its guests."""
    event = Event.objects.prefetch_related("attendees").fetch(actor, event_id, "change")
    guests = tuple(
        Guest(email=attendee.email, name=attendee.name, user_id=attendee.user_id)
        for attendee in event.attendees.all()
    )
    return MeetingEvent(
        id=event.pk, title=event.title, starts_at=event.starts_at, ends_at=event.ends_at, guests=guests
    )


def link_meeting(*, actor: Actor, event_id: int, url: str, note: str) -> None:
    """The meeting at `url` on the event: its location unless the event has a place of its own (a
    room is kept: the meeting is then hybrid), and `note` (which names the address) at the end of
    its description unless there already."""
    event = Event.objects.fetch(actor, event_id, "change")
    description = event.description if note in event.description else f"{event.description}\n\n{note}".strip()
    place = event.location.strip()
    location = place if place and "://" not in place else url[:300]
    services.event_update(
        actor=actor, event=event, fields={"location": location, "description": description[:10_000]}
    )


def busy_times(
    *, email: str, user: Actor | None, start: datetime, end: datetime
) -> list[tuple[datetime, datetime]]:
    """When the person of `email` (and `user`, a person of the workspace) is busy in [start, end),
    soonest first: times only, as free/busy shows them to anyone who may see calendars."""
    found = selectors.occurrences(selectors.busy_events_of(email, user), start=start, end=end)
    return [(occurrence.starts_at, occurrence.ends_at) for occurrence in found]


def put_own_event(
    *,
    actor: Actor,
    title: str,
    description: str,
    starts_at: datetime,
    ends_at: datetime,
    time_zone: str,
    guests: list[str] | None = None,
    invite: bool = False,
) -> int:
    """A new event on the actor's own calendar (made the first time), organised by them, with
    `guests` as attendees, invited by e-mail when `invite`; its id."""
    event = services.event_create(
        actor=actor,
        calendar=services.default_calendar(actor=actor),
        fields={
            "title": title[:300],
            "description": description,
            "start": starts_at.isoformat(),
            "end": ends_at.isoformat(),
            "time_zone": time_zone,
        },
        attendees=[{"email": email} for email in guests or []],
    )
    if invite and guests:
        invitations.send(actor=actor, event=event, attendees=list(event.attendees.all()))
    return event.pk
