"""Events through the Platform's import and export tools (apps.events.transfer): events and their
attendees exported as each person sees them (a private event of another person absent, no
needs), events imported by row and column then committed once, an event already planned a
duplicate, a role that may not plan events refused."""

import csv
import io
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from django.utils import timezone

from apps.catalogue.testing import ok, person_without, refused
from apps.events.models import Event
from apps.events.tests.factories import AttendeeFactory, EventFactory
from apps.platform.models import DataImport
from apps.platform.tests.test_transfer_tools import _commit, _validate


def _exported(user, kind, query=""):
    answer = ok(user, "exportDataCsv", {"entityType": kind, "query": query})
    return list(csv.DictReader(io.StringIO(answer["csvText"])))


def test_events_and_attendees_are_exported_as_each_person_sees_them(people):
    shared = EventFactory(actor=people["member"], name="Xferev Summit", venue="+Hall 1")
    hidden = EventFactory(actor=people["admin"], name="Xferev Secret", visibility="private")
    AttendeeFactory(actor=people["member"], event=shared, name="Ada Guest", email="ada@xferev.example")
    AttendeeFactory(
        actor=people["admin"],
        event=hidden,
        name="Bo Guest",
        email="bo@xferev.example",
        needs={"dietary": "vegan"},
    )

    member = {row["name"]: row for row in _exported(people["member"], "event", "Xferev")}
    admin = {row["name"]: row for row in _exported(people["admin"], "event", "Xferev")}

    assert set(member) == {"Xferev Summit"} and set(admin) == {"Xferev Summit", "Xferev Secret"}
    row = member["Xferev Summit"]
    assert row["venue"] == "'+Hall 1" and row["timeZone"] == "Europe/Berlin"
    # The times in the event's own zone, with its offset.
    assert datetime.fromisoformat(row["startsAt"]) == shared.starts_at
    assert (
        datetime.fromisoformat(row["startsAt"]).utcoffset()
        == shared.starts_at.astimezone(ZoneInfo("Europe/Berlin")).utcoffset()
    )
    assert row["ownerEmail"] == people["member"].email

    seen = {row["email"]: row for row in _exported(people["member"], "event_attendee", "Guest")}
    assert "ada@xferev.example" in seen and "bo@xferev.example" not in seen
    assert seen["ada@xferev.example"]["eventName"] == "Xferev Summit"
    everything = _exported(people["admin"], "event_attendee", "Guest")
    assert "bo@xferev.example" in {row["email"] for row in everything}
    assert not any("vegan" in str(row) for row in everything)


def test_an_event_import_is_checked_by_row_and_column_then_committed_once(people):
    member = people["member"]
    ahead = (timezone.now() + timedelta(days=90)).date()
    held = EventFactory(
        actor=member,
        name="Xferimp Held",
        starts_at=datetime.fromisoformat(f"{ahead}T09:00"),
        ends_at=datetime.fromisoformat(f"{ahead}T17:00"),
        time_zone="Europe/Berlin",
    )
    before = Event.objects.count()
    text = (
        "name,startsAt,endsAt,timeZone,capacity,visibility\n"
        f"Xferimp Launch,{ahead}T10:00,{ahead}T12:00,America/New_York,50,private\n"  # 2: fine
        f"Xferimp Late,{ahead}T10:00,{ahead}T09:00,UTC,,\n"  # 3: ends before it starts
        f"Xferimp Zone,{ahead}T10:00,{ahead}T12:00,Mars/Base,,\n"  # 4: time zone
        f"Xferimp Cap,{ahead}T10:00,{ahead}T12:00,UTC,many,\n"  # 5: capacity
        f"xferimp launch,{ahead}T10:00:00,{ahead}T12:00,America/New_York,,\n"  # 6: repeats row 2
        f"Xferimp Held,{ahead}T09:00,{ahead}T10:00,Europe/Berlin,,\n"  # 7: planned already
        f"Xferimp Past,2001-01-01T10:00,2001-01-01T12:00,UTC,,\n"  # 8: in the past
        f",{ahead}T10:00,{ahead}T12:00,UTC,,\n"  # 9: no name
    )

    plan = _validate(member, text, kind="event")

    assert (plan["rows"], plan["toImport"], plan["invalidRows"], plan["duplicateRows"]) == (8, 1, 5, 2)
    assert {(p["row"], p["column"]) for p in plan["problems"]} == {
        (3, "endsAt"),
        (4, "timeZone"),
        (5, "capacity"),
        (8, "startsAt"),
        (9, "name"),
    }
    assert [(d["row"], d["ofRow"], d["existingId"]) for d in plan["duplicates"]] == [
        (6, 2, None),
        (7, None, held.pk),
    ]
    assert Event.objects.count() == before

    first = _commit(member, plan["token"], skipInvalidRows=True)
    again = _commit(member, plan["token"], skipInvalidRows=True)

    made = Event.objects.get(name="Xferimp Launch")
    assert first["createdIds"] == again["createdIds"] == [made.pk] and again["alreadyCommitted"]
    assert (made.time_zone, made.capacity, made.visibility, made.owner) == (
        "America/New_York",
        50,
        "private",
        member,
    )
    local = datetime.fromisoformat(f"{ahead}T10:00").replace(tzinfo=ZoneInfo("America/New_York"))
    assert made.starts_at == local.astimezone(UTC)
    assert Event.objects.count() == before + 1


def test_a_role_that_may_not_plan_events_may_not_import_them(people):
    person = person_without("events.edit", email="no-events-edit@acme.example")
    text = "name,startsAt,endsAt\nXferno,2031-01-01T10:00,2031-01-01T12:00\n"

    assert "permission" in refused(person, "validateDataImport", {"entityType": "event", "csvText": text})
    blind = person_without("events.view", email="no-events-view@acme.example")
    assert "permission" in refused(blind, "exportDataCsv", {"entityType": "event_attendee"})
    assert not Event.objects.filter(name="Xferno").exists()
    assert not DataImport.objects.filter(created_by=person).exists()
