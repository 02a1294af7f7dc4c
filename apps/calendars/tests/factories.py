"""Test data of the Calendars area (factory_boy).

    calendar = CalendarFactory(owner=people["owner"], visibility="private")
    event = EventFactory(organizer=people["owner"], calendar=calendar, start="2026-06-01T10:00")
    AttendeeFactory(event=event, user=people["member"])

An event is made as createCalendarEvent makes it (services.event_create): times written as an
agent writes them, read in the calendar's zone, the rule made canonical, and `attendees` (as
the tool takes them: `{"email": ...}` or `{"contact_id": ...}`) linked to the people and
contacts with their addresses. Calendars and attendees are plain rows.
"""

import uuid
from datetime import timedelta
from typing import Any

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from apps.calendars import services
from apps.calendars.models import Attendee, Calendar, Event
from apps.catalogue.testing import listed
from apps.core import factories, recurrence
from apps.core.factories import AccessRows, access_rows, private_rows
from apps.core.records import Visibility


def unique(prefix: str = "Meet") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def soon(days: int = 1, hour: int = 10) -> str:
    """A wall-clock time `days` from now at `hour`:00, as an agent writes it."""
    moment = timezone.now() + timedelta(days=days)
    return moment.strftime(f"%Y-%m-%dT{hour:02d}:00")


class CalendarFactory(DjangoModelFactory):
    class Meta:
        model = Calendar

    owner: Any = None  # a person of the workspace
    created_by = factory.SelfAttribute("owner")
    name = factory.LazyFunction(lambda: unique("Calendar"))
    time_zone = factory.LazyFunction(lambda: recurrence.workspace_zone().key)
    visibility = Visibility.WORKSPACE


class EventFactory(factory.Factory):
    """`organizer` (required) adds the event to `calendar` (default: their own calendar); any
    other field is one of createCalendarEvent's (`start`, `end`, `recurrence`, `time_zone`...)."""

    class Meta:
        model = Event

    organizer: Any = None
    calendar: Any = None
    title = factory.LazyFunction(unique)
    start = factory.LazyFunction(soon)
    attendees: Any = ()

    @classmethod
    def _create(cls, model_class: type[Event], *args: Any, **fields: Any) -> Event:
        organizer, calendar = fields.pop("organizer"), fields.pop("calendar")
        attendees = list(fields.pop("attendees"))
        return services.event_create(
            actor=organizer,
            calendar=calendar or services.default_calendar(actor=organizer),
            fields=fields,
            attendees=attendees,
        )


class AttendeeFactory(DjangoModelFactory):
    """Someone invited to `event` (required): a person of the workspace (`user`), or an address."""

    class Meta:
        model = Attendee

    event: Any = None
    user: Any = None
    email = factory.LazyAttribute(
        lambda row: row.user.email if row.user else f"{unique('guest')}@example.org"
    )
    name = factory.LazyAttribute(lambda row: row.user.full_name if row.user else "")


@access_rows("calendars.Calendar")
def _calendars(people: dict[str, Any]) -> AccessRows:
    return private_rows(
        people,
        lambda actor, visibility: CalendarFactory(owner=actor, visibility=visibility),
    )


@access_rows("calendars.Event")
def _events(people: dict[str, Any]) -> AccessRows:
    """Events of the member's and the owner's private calendars (the member invited to one of the
    owner's), and one of a calendar everyone sees."""
    member, owner = people["member"], people["owner"]
    mine = CalendarFactory(owner=member, visibility=Visibility.PRIVATE)
    theirs = CalendarFactory(owner=owner, visibility=Visibility.PRIVATE)
    invited = EventFactory(organizer=owner, calendar=theirs, attendees=[{"email": member.email}])
    return AccessRows(
        own={
            "member": [EventFactory(organizer=member, calendar=mine), invited],
            "owner": [EventFactory(organizer=owner, calendar=theirs), invited],
        },
        everyone=[EventFactory(organizer=member, calendar=CalendarFactory(owner=owner))],
        listed=lambda person: listed(
            person, "searchCalendarEvents", {"limit": 100}, key="eventId", first="getCalendarSummary"
        ),
    )


@factories.privacy_rows("calendars")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private calendar and an event on it, and an event everyone sees with a guest
    from the owner's private contacts."""
    owner = people["owner"]
    calendar = CalendarFactory(owner=owner, name=f"{marker} calendar", visibility=Visibility.PRIVATE)
    rows.add("calendarId", record=calendar)
    event = EventFactory(
        organizer=owner,
        calendar=calendar,
        title=f"{marker} meeting",
        description=f"{marker} description",
        location=f"{marker} location",
    )
    rows.add("eventId", "entityId", record=event)
    from apps.contacts.tests.factories import ContactFactory

    contact = ContactFactory(
        actor=owner, first_name=f"{marker} Guest", email="guest.cal@example.org", visibility="private"
    )
    shared = EventFactory(
        organizer=owner, calendar=CalendarFactory(owner=owner), attendees=[{"contact_id": contact.pk}]
    )
    rows.add("eventId", "entityId", record=shared)
