"""Events and what hangs on them for tests, made through the services as a person makes them
(apps.core.factories): `EventFactory(actor=people["member"], capacity=10)`,
`AttendeeFactory(actor=..., event=event, status="registered")`,
`BlockFactory(actor=..., event=event, rooms=2)`."""

from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

import factory
from django.utils import timezone

from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered, private_rows
from apps.events import services
from apps.events.models import Attendee, Event, EventPipeline, HotelBlock


def _event(*, actor: Any, fields: dict[str, Any]) -> Event:
    return services.event_create(actor=actor, fields=fields)


def _starts() -> Any:
    return (timezone.now() + timedelta(days=60)).replace(hour=9, minute=0, second=0, microsecond=0)


class EventFactory(ServiceFactory):
    class Meta:
        model = Event

    name = numbered(fake.catch_phrase, " summit ")
    starts_at = factory.LazyFunction(_starts)
    ends_at = factory.LazyAttribute(lambda o: o.starts_at + timedelta(days=2))
    time_zone = "Europe/Berlin"
    venue = "Messe Berlin, Hall 2"
    _service = staticmethod(_event)


def _pipeline(*, actor: Any, fields: dict[str, Any]) -> EventPipeline:
    return services.pipeline_create(actor=actor, **fields)


class PipelineFactory(ServiceFactory):
    class Meta:
        model = EventPipeline

    name = numbered(fake.word, " pipeline ")
    stages = factory.LazyFunction(lambda: ["Idea", "Booked", "Done"])
    _service = staticmethod(_pipeline)


def _attendee(*, actor: Any, fields: dict[str, Any]) -> Attendee:
    event = fields.pop("event")
    return services.attendee_add(actor=actor, event=event, fields=fields, needs=fields.pop("needs", None))


class AttendeeFactory(ServiceFactory):
    class Meta:
        model = Attendee

    name = factory.LazyFunction(fake.name)
    email = factory.Sequence(lambda n: f"guest{n:05d}@example.org")
    _service = staticmethod(_attendee)


def _block(*, actor: Any, fields: dict[str, Any]) -> HotelBlock:
    event = fields.pop("event")
    return services.block_save(actor=actor, event=event, block=None, fields=fields)


class BlockFactory(ServiceFactory):
    class Meta:
        model = HotelBlock

    hotel = numbered(fake.company, " Hotel ")
    room_type = "double"
    first_night = factory.LazyAttribute(lambda o: o.event.starts_at.date())
    nights = 2
    rooms = 5
    rate = Decimal("150.00")
    cut_off = factory.LazyAttribute(lambda o: o.event.starts_at.date() - timedelta(days=21))
    attrition_percent = Decimal("20")
    _service = staticmethod(_block)


# --- the rows of each events record, for the access test (tests/test_access_per_model.py) ------------


def _with_events(people: dict[str, Any], make: Callable[[Any, Event], Any]) -> AccessRows:
    """`make(actor, event)` on a private event of the member's, one of the owner's, and one
    everyone sees: the rows of an event follow it."""

    def on(actor: Any, visibility: str) -> Any:
        return make(actor, EventFactory(actor=actor, visibility=visibility))

    return private_rows(people, on)


@access_rows("events.EventPipeline")
def _pipelines(people: dict[str, Any]) -> AccessRows:
    return AccessRows(everyone=[PipelineFactory(actor=people["member"])])


@access_rows("events.Event")
def _events(people: dict[str, Any]) -> AccessRows:
    rows = _with_events(people, lambda actor, event: event)
    rows.listed = lambda person: listed(person, "listEvents", {"when": "all", "limit": 100})
    return rows


@access_rows("events.Session")
def _sessions(people: dict[str, Any]) -> AccessRows:
    def session(actor: Any, event: Event) -> Any:
        fields = {
            "title": "Opening",
            "starts_at": event.starts_at,
            "ends_at": event.starts_at + timedelta(hours=1),
        }
        return services.session_add(actor=actor, event=event, fields=fields, speakers=[])

    return _with_events(people, session)


@access_rows("events.Attendee")
def _attendees(people: dict[str, Any]) -> AccessRows:
    return _with_events(people, lambda actor, event: AttendeeFactory(actor=actor, event=event))


@access_rows("events.Supplier")
def _suppliers(people: dict[str, Any]) -> AccessRows:
    def supplier(actor: Any, event: Event) -> Any:
        return services.supplier_add(
            actor=actor, event=event, fields={"name": "Blue Fork", "service": "catering"}
        )

    return _with_events(people, supplier)


@access_rows("events.HotelBlock")
def _blocks(people: dict[str, Any]) -> AccessRows:
    return _with_events(people, lambda actor, event: BlockFactory(actor=actor, event=event))


@factories.privacy_rows("events")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private event."""
    event = EventFactory(
        actor=people["owner"], name=f"{marker} summit", venue=f"{marker} hall", visibility="private"
    )
    rows.add("eventId", "entityId", record=event)
    guest = AttendeeFactory(
        actor=people["owner"], event=event, name=f"{marker} Guest", email=f"{marker}.guest@example.org"
    )
    rows.add("attendeeId", record=guest)
