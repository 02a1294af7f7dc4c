"""A normal call of every Events tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`."""

from datetime import timedelta
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.events import services
from apps.events.tests.factories import AttendeeFactory, BlockFactory, EventFactory, PipelineFactory
from apps.files.tests.factories import FileFactory


def _event(actor: Any, arguments: dict[str, Any] | None = None, **fields: Any) -> Sample:
    event = EventFactory(actor=actor, **fields)
    return Sample({"eventId": event.pk, **(arguments or {})}, private=[event.name])


def _attendee(actor: Any, arguments: dict[str, Any] | None = None) -> Sample:
    event = EventFactory(actor=actor)
    attendee = AttendeeFactory(actor=actor, event=event, name="Ottilie Quarrington")
    return Sample({"attendeeId": attendee.pk, **(arguments or {})}, private=[event.name, attendee.name])


@sample("createEventPipeline")
def create_event_pipeline(actor: Any) -> Sample:
    return Sample({"name": "Conferences", "stages": ["Idea", "Venue booked", "Live", "Wrapped up"]})


@sample("moveEventStage")
def move_event_stage(actor: Any) -> Sample:
    pipeline = PipelineFactory(actor=actor)
    return _event(actor, {"stageId": pipeline.stages.last().pk})


@sample("getEventPlanningOverview")
def get_event_planning_overview(actor: Any) -> Sample:
    pipeline = PipelineFactory(actor=actor)
    sample = _event(actor, stage=pipeline.stages.first())
    return Sample({}, private=sample.private)


@sample("createEvent")
def create_event(actor: Any) -> Sample:
    return Sample(
        {
            "name": "Partner summit",
            "startsAt": "2030-05-12T09:00:00",
            "endsAt": "2030-05-13T17:00:00",
            "timeZone": "Europe/Lisbon",
            "venue": "Centro de Congressos",
            "capacity": 250,
        }
    )


@sample("getEvent")
def get_event(actor: Any) -> Sample:
    return _event(actor, {"withIcs": True})


@sample("updateEvent")
def update_event(actor: Any) -> Sample:
    return _event(actor, {"changes": {"venue": "Harbour hall", "capacity": 80}})


@sample("listEvents")
def list_events(actor: Any) -> Sample:
    sample = _event(actor)
    return Sample({"when": "upcoming", "limit": 100}, private=sample.private)


@sample("searchEvents")
def search_events(actor: Any) -> Sample:
    sample = _event(actor, name="Quillfeather gala")
    return Sample({"query": "quillfeather"}, private=sample.private)


@sample("openEvent")
def open_event(actor: Any) -> Sample:
    return _event(actor)


@sample("openEvents")
def open_events(actor: Any) -> Sample:
    return Sample({})


@sample("shareEvent")
def share_event(actor: Any) -> Sample:
    return _event(actor, {"personEmail": "member@acme.example", "access": "view"})


@sample("addEventSession")
def add_event_session(actor: Any) -> Sample:
    event = EventFactory(actor=actor)
    start = event.starts_at.isoformat()
    end = (event.starts_at.replace(hour=10)).isoformat()
    return Sample(
        {
            "eventId": event.pk,
            "title": "Opening keynote",
            "startsAt": start,
            "endsAt": end,
            "room": "Main hall",
            "speakers": [{"name": "Ada Lovelace", "email": "ada@example.org"}],
        },
        private=[event.name],
    )


def _session(actor: Any) -> tuple[Any, Any]:
    event = EventFactory(actor=actor)
    fields = {
        "title": "Opening",
        "starts_at": event.starts_at,
        "ends_at": event.starts_at + timedelta(hours=1),
    }
    return event, services.session_add(actor=actor, event=event, fields=fields, speakers=[])


@sample("updateEventSession")
def update_event_session(actor: Any) -> Sample:
    event, session = _session(actor)
    return Sample(
        {
            "sessionId": session.pk,
            "changes": {"room": "Room B"},
            "speakers": [{"name": "Grace", "email": f"grace-{session.pk}@example.org"}],
        },
        private=[event.name],
    )


@sample("removeEventSession")
def remove_event_session(actor: Any) -> Sample:
    event, session = _session(actor)
    return Sample({"sessionId": session.pk}, private=[event.name])


@sample("cancelEvent")
def cancel_event(actor: Any) -> Sample:
    return _event(actor)


@sample("deleteEvent")
def delete_event(actor: Any) -> Sample:
    return _event(actor)


@sample("addEventAttendee")
def add_event_attendee(actor: Any) -> Sample:
    return _event(actor, {"name": "Grace Hopper", "email": "grace@example.org", "status": "registered"})


@sample("updateEventAttendee")
def update_event_attendee(actor: Any) -> Sample:
    return _attendee(actor, {"changes": {"status": "registered"}})


@sample("listEventAttendees")
def list_event_attendees(actor: Any) -> Sample:
    event = EventFactory(actor=actor)
    attendee = AttendeeFactory(actor=actor, event=event, name="Perpetua Vandermolen")
    return Sample({"eventId": event.pk}, private=[event.name, attendee.name])


CSV = "name,email,company\nAlan Turing,alan@example.org,Bletchley\nKaren Jones,karen@example.org,\n"


@sample("validateAttendeeImport")
def validate_attendee_import(actor: Any) -> Sample:
    file = FileFactory(actor=actor, name="guests.csv", text=CSV)
    return _event(actor, {"fileId": file.pk})


@sample("commitAttendeeImport")
def commit_attendee_import(actor: Any) -> Sample:
    from apps.events import services

    event = EventFactory(actor=actor)
    file = FileFactory(actor=actor, name="guests.csv", text=CSV)
    _checked, handle = services.import_validate(actor=actor, event=event, file_id=file.pk)
    return Sample({"handle": handle}, private=[event.name])


@sample("addEventSupplier")
def add_event_supplier(actor: Any) -> Sample:
    return _event(
        actor,
        {
            "name": "Blue Fork Catering",
            "service": "catering",
            "costLines": [{"category": "catering", "description": "Lunch, 2 days", "planned": "4800.00"}],
        },
    )


@sample("getEventBudgetSummary")
def get_event_budget_summary(actor: Any) -> Sample:
    return _event(actor)


@sample("analyzeEventBudget")
def analyze_event_budget(actor: Any) -> Sample:
    return _event(actor)


@sample("manageEventHotels")
def manage_event_hotels(actor: Any) -> Sample:
    event = EventFactory(actor=actor)
    first = event.starts_at.date()
    return Sample(
        {
            "eventId": event.pk,
            "action": "add",
            "block": {
                "hotel": "Hotel Adlon",
                "roomType": "double",
                "firstNight": first.isoformat(),
                "nights": 2,
                "rooms": 20,
                "rate": "189.00",
                "cutOff": first.replace(day=1).isoformat() if first.day > 1 else first.isoformat(),
                "attritionPercent": "20",
            },
        },
        private=[event.name],
    )


@sample("allocateEventHotel")
def allocate_event_hotel(actor: Any) -> Sample:
    event = EventFactory(actor=actor)
    block = BlockFactory(actor=actor, event=event)
    attendee = AttendeeFactory(actor=actor, event=event, status="registered")
    return Sample({"blockId": block.pk, "attendeeId": attendee.pk}, private=[event.name, attendee.name])


@sample("planEventAttendeeTravel")
def plan_event_attendee_travel(actor: Any) -> Sample:
    return _attendee(actor, {"status": "planned", "mode": "train", "origin": "Hamburg", "plan": "ICE 1001"})
