"""Export and erasure of one person's data reach every Events model (docs/privacy.md), the
special-category needs included; everyone else's rows stay."""

import io
import json
from datetime import timedelta

from apps.accounts.models import Role, User
from apps.datarights.personal_data import personal_data_erase, personal_data_export
from apps.events import services
from apps.events.models import (
    Attendee,
    AttendeeImport,
    AttendeeNeeds,
    Event,
    RoomAllocation,
    Speaker,
    Supplier,
    TravelPlan,
)
from apps.events.tests.factories import AttendeeFactory, BlockFactory, EventFactory
from apps.files.tests.factories import FileFactory

EMAIL = "erin.vale@acme.example"


def test_export_and_erasure_reach_every_events_model(acme, people):
    admin = people["admin"]
    erin = User.objects.create_user(email=EMAIL, password=None, role=Role.objects.get(key="member"))
    mine = EventFactory(actor=erin, name="Erin's workshop")
    private = EventFactory(actor=erin, name="Erin's private dinner", visibility="private")
    event = EventFactory(actor=admin)
    services.event_update(actor=erin, event=mine, fields={"capacity": 10})
    attendee = AttendeeFactory(actor=admin, event=event, email=EMAIL, needs={"dietary": "gluten-free"})
    other = AttendeeFactory(actor=admin, event=event, email="someone@example.org", needs={"dietary": "vegan"})
    block = BlockFactory(actor=admin, event=event)
    services.allocation_add(
        actor=admin, block=block, attendee=attendee, first_night=None, nights=None, sharing_with=None
    )
    services.travel_plan(actor=admin, attendee=attendee, fields={"origin": "Cork", "mode": "flight"})
    services.session_add(
        actor=admin,
        event=event,
        fields={
            "title": "Talk",
            "starts_at": event.starts_at,
            "ends_at": event.starts_at + timedelta(hours=1),
        },
        speakers=[{"name": "Erin Vale", "email": EMAIL}],
    )
    supplier = services.supplier_add(
        actor=admin, event=event, fields={"name": "Vale AV", "service": "av", "email": EMAIL}
    )
    file = FileFactory(actor=admin, name="g.csv", text="name,email\nA,a@example.org\n")
    _checked, handle = services.import_validate(actor=erin, event=mine, file_id=file.pk)
    services.import_commit(actor=erin, handle=handle)

    out = io.BytesIO()
    summary = personal_data_export(workspace=acme, email=EMAIL, out=out, performed_by="test")
    records = json.loads(out.getvalue())["records"]

    assert {key: n for key, n in summary.counts.items() if key.startswith("events.")} == {
        "events.attendee": 1,
        "events.attendeeimport": 1,
        "events.attendeeneeds": 1,
        "events.event": 2,
        "events.roomallocation": 1,
        "events.speaker": 1,
        "events.supplier": 1,
        "events.travelplan": 1,
    }
    assert records["events.attendeeneeds"][0]["dietary"] == "gluten-free"
    assert "vegan" not in out.getvalue().decode()

    counts = personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert counts["events.attendee"] == 1 and counts["events.attendeeneeds"] == 1
    assert not Attendee.objects.filter(email=EMAIL).exists()
    assert not AttendeeNeeds.objects.filter(attendee__email=EMAIL).exists()
    assert not TravelPlan.objects.filter(attendee__email=EMAIL).exists()
    assert not RoomAllocation.objects.filter(attendee__email=EMAIL).exists()
    assert not Speaker.objects.filter(email=EMAIL).exists()
    assert Supplier.objects.get(pk=supplier.pk).email == ""
    assert Event.objects.get(pk=mine.pk).owner_id is None
    assert not Event.objects.filter(pk=private.pk).exists()
    assert AttendeeImport.objects.get(event=mine).committed_by_id is None
    # Everyone else's rows stay.
    assert AttendeeNeeds.objects.get(attendee=other).dietary == "vegan"


def test_an_erased_attendees_place_goes_to_the_first_on_the_waitlist(acme, people):
    admin = people["admin"]
    event = EventFactory(actor=admin, capacity=1)
    leaving = AttendeeFactory(actor=admin, event=event, email="leaving@example.org", status="registered")
    waiting = AttendeeFactory(actor=admin, event=event, email="waiting@example.org", status="registered")
    assert (leaving.status, waiting.status) == ("registered", "waitlisted")

    personal_data_erase(workspace=acme, email="leaving@example.org", performed_by="test")

    waiting.refresh_from_db()
    assert waiting.status == "registered"
    assert not event.attendees.filter(email="leaving@example.org").exists()
