"""A normal call of every Calendars tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py), and the helpers the area's tests share."""

import uuid
from datetime import timedelta
from typing import Any

from django.utils import timezone

from apps.calendars import services
from apps.calendars.models import Event
from apps.catalogue.dispatch import MemorySession
from apps.catalogue.testing import Sample, call, confirmed, sample, structured


def unique(prefix: str = "Meet") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def soon(days: int = 1, hour: int = 10) -> str:
    """A wall-clock time `days` from now at `hour`:00, as an agent writes it."""
    moment = timezone.now() + timedelta(days=days)
    return moment.strftime(f"%Y-%m-%dT{hour:02d}:00")


def make_event(actor: Any, *, attendees: list[dict[str, Any]] = (), **fields: Any) -> Event:  # type: ignore[assignment]
    fields.setdefault("title", unique())
    fields.setdefault("start", soon())
    calendar = services.default_calendar(actor=actor)
    return services.event_create(actor=actor, calendar=calendar, fields=fields, attendees=list(attendees))


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
    event = make_event(actor)
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
    event = make_event(actor)
    return Sample({"eventId": event.pk, "changes": {"location": "Room 2"}}, private=[event.title])


@sample("searchCalendarEvents")
def search_calendar_events(actor: Any) -> Sample:
    event = make_event(actor)
    return Sample({"query": event.title}, private=[event.title])


@sample("checkAvailability")
def check_availability(actor: Any) -> Sample:
    event = make_event(actor, start=soon(1, 11))
    return Sample(
        {"attendees": [actor.email], "start": soon(1, 0)[:10], "end": soon(2, 0)[:10]}, private=[event.title]
    )


@sample("checkEventRsvpStatus")
def check_event_rsvp_status(actor: Any) -> Sample:
    event = make_event(actor, attendees=[{"email": "rsvp-guest@example.org"}])
    return Sample({"eventId": event.pk}, private=[event.title])


@sample("sendCalendarInvite")
def send_calendar_invite(actor: Any) -> Sample:
    event = make_event(actor, attendees=[{"email": "invitee@example.org"}])
    return Sample({"eventId": event.pk, "message": "See you there"}, private=[event.title])
