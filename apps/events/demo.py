"""The demo workspaces' events (`manage.py seed_demo`): a conference on a planning pipeline with
its agenda, attendees, a caterer, a hotel block and a travel plan. Made once: a second run finds
the pipeline and changes nothing."""

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.events import services
from apps.events.models import EventPipeline

PIPELINE = "Conference planning"


@transaction.atomic
def seed(*, people: list[Any], domain: str) -> None:
    owner = next(person for person in people if person.role.key == "owner")
    if EventPipeline.objects.filter(name=PIPELINE).exists():
        return
    pipeline = services.pipeline_create(
        actor=owner, name=PIPELINE, stages=["Idea", "Venue booked", "Registration open", "Wrapped up"]
    )
    starts = (timezone.now() + timedelta(days=75)).replace(hour=8, minute=0, second=0, microsecond=0)
    event = services.event_create(
        actor=owner,
        fields={
            "name": "Partner summit",
            "starts_at": starts,
            "ends_at": starts + timedelta(days=1, hours=9),
            "time_zone": "Europe/Lisbon",
            "venue": "Centro de Congressos, Lisbon",
            "capacity": 120,
            "stage": pipeline.stages.get(position=3),
            "currency": "EUR",
        },
    )
    services.session_add(
        actor=owner,
        event=event,
        fields={
            "title": "Opening keynote",
            "starts_at": starts + timedelta(hours=1),
            "ends_at": starts + timedelta(hours=2),
            "room": "Main hall",
        },
        speakers=[{"name": "Ada Quinn", "email": "ada.quinn@example.org"}],
    )
    guests = [
        services.attendee_add(
            actor=owner,
            event=event,
            fields={"name": name, "email": email, "status": "registered", "organisation": "Hillcrest"},
        )
        for name, email in (
            ("Alan Reyes", "alan.reyes@example.org"),
            ("Karen Osei", "karen.osei@example.org"),
        )
    ]
    supplier = services.supplier_add(
        actor=owner, event=event, fields={"name": "Blue Fork Catering", "service": "catering"}
    )
    services.cost_lines_add(
        actor=owner,
        event=event,
        supplier=supplier,
        lines=[
            {
                "category": "catering",
                "description": "Lunch and coffee, 2 days",
                "planned": 6000,
                "committed": 5400,
            }
        ],
    )
    block = services.block_save(
        actor=owner,
        event=event,
        block=None,
        fields={
            "hotel": "Hotel Avenida",
            "room_type": "double",
            "first_night": starts.date() - timedelta(days=1),
            "nights": 2,
            "rooms": 30,
            "rate": 145,
            "cut_off": starts.date() - timedelta(days=30),
            "attrition_percent": 20,
        },
    )
    services.allocation_add(
        actor=owner, block=block, attendee=guests[0], first_night=None, nights=None, sharing_with=None
    )
    services.travel_plan(
        actor=owner, attendee=guests[1], fields={"status": "needed", "mode": "flight", "origin": "Accra"}
    )
