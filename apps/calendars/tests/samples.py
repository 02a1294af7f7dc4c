"""A normal call of every Calendars tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py), and the helpers the area's tests share."""

from typing import Any

from apps.calendars.models import Event
from apps.calendars.tests.factories import EventFactory, soon
from apps.catalogue.dispatch import MemorySession
from apps.catalogue.testing import Sample, call, confirmed, sample, structured


def make_event(actor: Any, **fields: Any) -> Event:
    """An event `actor` adds to their own calendar (EventFactory; other areas' tests use it)."""
    return EventFactory(organizer=actor, **fields)


def started(user: Any) -> MemorySession:
    """A session in which getCalendarSummary, the area's mandatory first call, was made."""
    session = MemorySession()
    structured(call(user, "getCalendarSummary", {}, session=session))
    return session


def cal(
    user: Any, name: str, arguments: dict[str, Any] | None = None, *, session: MemorySession | None = None
) -> dict[str, Any]:
    """A calendar tool call after the first call (confirmations accepted by the user)."""
    return call(
        user,
        name,
        arguments or {},
        session=session or started(user),
        capabilities={"elicitation": {}},
        elicit=confirmed,
    )


@sample("getCalendarSummary")
def get_calendar_summary(actor: Any) -> Sample:
    event = EventFactory(organizer=actor)
    return Sample({"days": 7}, private=[event.title])


@sample("manageCalendar")
def manage_calendar(actor: Any) -> Sample:
    return Sample({"action": "create", "calendar": {"name": "Team rota", "timeZone": "Europe/Paris"}})


@sample("createCalendarEvent")
def create_calendar_event(actor: Any) -> Sample:
    return Sample(
        {
            "title": "Weekly sync",
            "start": soon(2),
            "durationMinutes": 45,
            "recurrence": "FREQ=WEEKLY;COUNT=4",
            "attendees": [{"email": "guest@example.org"}],
        }
    )


@sample("updateCalendarEvent")
def update_calendar_event(actor: Any) -> Sample:
    event = EventFactory(organizer=actor)
    return Sample({"eventId": event.pk, "changes": {"location": "Room 2"}}, private=[event.title])


@sample("searchCalendarEvents")
def search_calendar_events(actor: Any) -> Sample:
    event = EventFactory(organizer=actor)
    return Sample({"query": event.title}, private=[event.title])


@sample("checkAvailability")
def check_availability(actor: Any) -> Sample:
    event = EventFactory(organizer=actor, start=soon(1, 11))
    return Sample(
        {"attendees": [actor.email], "start": soon(1, 0)[:10], "end": soon(2, 0)[:10]}, private=[event.title]
    )


@sample("checkEventRsvpStatus")
def check_event_rsvp_status(actor: Any) -> Sample:
    event = EventFactory(organizer=actor, attendees=[{"email": "rsvp-guest@example.org"}])
    return Sample({"eventId": event.pk}, private=[event.title])


@sample("sendCalendarInvite")
def send_calendar_invite(actor: Any) -> Sample:
    event = EventFactory(organizer=actor, attendees=[{"email": "invitee@example.org"}])
    return Sample({"eventId": event.pk, "message": "See you there"}, private=[event.title])
