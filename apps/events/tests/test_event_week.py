"""What a week of planning a conference found: an organiser (the area's admin) and a member plan
one with sessions, a capacity and a waitlist, paid and free tickets, cancellations, changes of
attendees, check-in day and exports, through the tools. A called-off event takes no more
registrations, check-ins, imports or rooms, and keeps no needs; the waitlist holds people only
while the event is full; amounts stay at a rate to the currency they are in; an import refuses
what it cannot keep instead of cutting it, and a year no time can be moved to."""

import csv
import io
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.utils import timezone

from apps.catalogue.testing import confirmed, ok, refused
from apps.events import services
from apps.events.models import (
    Attendee,
    AttendeeNeeds,
    Event,
    HotelBlock,
    RoomAllocation,
    Speaker,
    Supplier,
)
from apps.files.tests.factories import FileFactory

BERLIN = ZoneInfo("Europe/Berlin")
CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def _day(days: int, hour: int = 9) -> str:
    """A wall-clock time `days` ahead at `hour`, without an offset (the event's zone)."""
    moment = (timezone.now() + timedelta(days=days)).replace(hour=hour, minute=0, second=0, microsecond=0)
    return moment.replace(tzinfo=None).isoformat()


def _in(hours: int) -> str:
    """A moment `hours` from now, whole hours, with its offset."""
    return (timezone.now() + timedelta(hours=hours)).replace(minute=0, second=0, microsecond=0).isoformat()


def _event(user, **extra):  # type: ignore[no-untyped-def]
    return ok(
        user,
        "createEvent",
        {
            "name": "Platform Engineering Days",
            "startsAt": _day(40),
            "endsAt": _day(41, 17),
            "timeZone": "Europe/Berlin",
            "venue": "Congress Centre",
            **extra,
        },
    )


@pytest.fixture
def conference(people):  # type: ignore[no-untyped-def]
    """The organiser's conference, three places."""
    return _event(people["admin"], capacity=3)


def _register(user, event_id: int, n: int, status: str = "registered", ticket: str = "paid"):  # type: ignore[no-untyped-def]
    return ok(
        user,
        "addEventAttendee",
        {
            "eventId": event_id,
            "name": f"Guest {n}",
            "email": f"guest{n}@example.org",
            "status": status,
            "type": ticket,
        },
    )


def _status(user, attendee_id: int, status: str):  # type: ignore[no-untyped-def]
    return ok(user, "updateEventAttendee", {"attendeeId": attendee_id, "changes": {"status": status}})


def _block(user, event_id: int, **extra):  # type: ignore[no-untyped-def]
    first = Event.objects.get(pk=event_id).starts_at.date()
    return ok(
        user,
        "manageEventHotels",
        {
            "eventId": event_id,
            "action": "add",
            "block": {
                "hotel": "Hotel Nord",
                "roomType": "double",
                "firstNight": first.isoformat(),
                "nights": 2,
                "rooms": 10,
                "rate": 100,
                "cutOff": (first - timedelta(days=10)).isoformat(),
                **extra,
            },
        },
    )


# --- a week of registrations --------------------------------------------------------------------


def test_the_conference_fills_its_places_and_the_waitlist_moves_up_in_order(people, conference):
    organiser, member = people["admin"], people["member"]
    made = [_register(member, conference["id"], n, ticket="free" if n % 2 else "paid") for n in range(5)]
    assert [a["status"] for a in made] == ["registered"] * 3 + ["waitlisted"] * 2
    # The same person twice, whatever the case and spaces of their address: refused.
    twice = refused(
        member,
        "addEventAttendee",
        {"eventId": conference["id"], "name": "G", "email": " GUEST1@Example.ORG "},
    )
    assert "already an attendee" in twice

    moved = _status(organiser, made[0]["id"], "cancelled")
    more = ok(organiser, "updateEvent", {"eventId": conference["id"], "changes": {"capacity": 4}})
    listed = ok(member, "listEventAttendees", {"eventId": conference["id"]})

    assert moved["promoted"] == [made[3]["id"]] and more["promoted"] == [made[4]["id"]]
    assert listed["counts"] == {"invited": 0, "registered": 4, "waitlisted": 0, "cancelled": 1, "attended": 0}
    rows = list(
        csv.DictReader(io.StringIO(ok(member, "exportDataCsv", {"entityType": "event_attendee"})["csvText"]))
    )
    assert {(r["email"], r["type"], r["status"]) for r in rows if r["eventId"] == str(conference["id"])} == {
        ("guest0@example.org", "paid", "cancelled"),
        ("guest1@example.org", "free", "registered"),
        ("guest2@example.org", "paid", "registered"),
        ("guest3@example.org", "free", "registered"),
        ("guest4@example.org", "paid", "registered"),
    }


def test_the_waitlist_holds_people_only_while_the_event_is_full(people, conference):
    organiser = people["admin"]
    invited = _register(organiser, conference["id"], 1, status="invited")
    registered = _register(organiser, conference["id"], 2)

    # Two places free: nobody waits beside them (before, the invited one stayed waiting beside
    # empty seats, and the registered one was moved straight back up as "promoted").
    for attendee in (invited, registered):
        said = refused(
            organiser,
            "updateEventAttendee",
            {"attendeeId": attendee["id"], "changes": {"status": "waitlisted"}},
        )
        assert said.startswith("`changes.status`: ") or said.startswith("`status`: "), said
        assert "register them instead" in said
    assert Attendee.objects.get(pk=invited["id"]).status == "invited"
    assert Attendee.objects.get(pk=registered["id"]).status == "registered"

    # Full, with someone waiting: a registered person may give their place to the first in line.
    _register(organiser, conference["id"], 3)
    _status(organiser, invited["id"], "registered")
    waiting = _register(organiser, conference["id"], 4)
    assert waiting["status"] == "waitlisted"
    swapped = _status(organiser, registered["id"], "waitlisted")
    assert swapped["attendee"]["status"] == "waitlisted" and swapped["promoted"] == [waiting["id"]]

    # No capacity: no waitlist either.
    open_day = _event(organiser, name="Open day")
    walk_in = _register(organiser, open_day["id"], 9, status="invited")
    assert "no capacity" in refused(
        organiser, "updateEventAttendee", {"attendeeId": walk_in["id"], "changes": {"status": "waitlisted"}}
    )


# --- a called-off event -------------------------------------------------------------------------


def test_a_cancelled_event_takes_no_registration_check_in_import_or_room(people):
    organiser, member = people["admin"], people["member"]
    # Tomorrow's, so that check-in is open.
    event = _event(organiser, name="Tomorrow's meetup", startsAt=_in(6), endsAt=_in(16), capacity=1)
    guest = _register(organiser, event["id"], 1)
    waiting = _register(organiser, event["id"], 2)
    invited = _register(organiser, event["id"], 3, status="invited")
    hotels = _block(
        organiser,
        event["id"],
        firstNight=Event.objects.get(pk=event["id"]).starts_at.astimezone(BERLIN).date().isoformat(),
        nights=1,
    )
    file = FileFactory(
        actor=organiser, name="late.csv", text="name,email,status\nLate,late@example.org,registered\n"
    )
    handle = ok(organiser, "validateAttendeeImport", {"eventId": event["id"], "fileId": file.pk})["handle"]
    ok(organiser, "cancelEvent", {"eventId": event["id"]}, **CONFIRM)

    for user, attendee, status in [
        (organiser, guest, "attended"),  # checked in at a door that never opens
        (member, waiting, "registered"),
        (member, invited, "registered"),
    ]:
        said = refused(
            user, "updateEventAttendee", {"attendeeId": attendee["id"], "changes": {"status": status}}
        )
        assert "is cancelled" in said
    assert refused(organiser, "validateAttendeeImport", {"eventId": event["id"], "fileId": file.pk})
    assert "is cancelled" in refused(organiser, "commitAttendeeImport", {"handle": handle}, **CONFIRM)
    assert "is cancelled" in refused(
        organiser,
        "allocateEventHotel",
        {"blockId": hotels["blocks"][0]["id"], "attendeeId": guest["id"]},
    )
    assert "is cancelled" in refused(
        organiser,
        "manageEventHotels",
        {
            "eventId": event["id"],
            "action": "update",
            "blockId": hotels["blocks"][0]["id"],
            "block": {"rooms": 20},
        },
    )
    assert sorted(Attendee.objects.filter(event_id=event["id"]).values_list("status", flat=True)) == [
        "invited",
        "registered",
        "waitlisted",
    ]
    assert not RoomAllocation.objects.filter(block__event_id=event["id"]).exists()
    assert HotelBlock.objects.get(pk=hotels["blocks"][0]["id"]).rooms == 10
    # Cancelling people, and removing the block, still tidy up after it; a place given up moves
    # nobody up from the waitlist of an event that will not take place.
    gave_up = _status(member, guest["id"], "cancelled")
    assert gave_up["attendee"]["status"] == "cancelled" and gave_up["promoted"] == []
    assert Attendee.objects.get(pk=waiting["id"]).status == "waitlisted"
    assert _status(member, waiting["id"], "cancelled")["attendee"]["status"] == "cancelled"
    ok(
        organiser,
        "manageEventHotels",
        {"eventId": event["id"], "action": "remove", "blockId": hotels["blocks"][0]["id"]},
    )


def test_a_cancelled_event_keeps_no_needs_and_is_no_longer_on_the_board(people, conference):
    organiser = people["admin"]
    guest = ok(
        organiser,
        "addEventAttendee",
        {
            "eventId": conference["id"],
            "name": "Ada",
            "email": "ada@example.org",
            "status": "registered",
            "needs": {"dietary": "no nuts", "accessibility": "wheelchair"},
        },
    )
    for n in range(2, 5):
        _register(organiser, conference["id"], n)
    _block(organiser, conference["id"], cutOff=(timezone.now() + timedelta(days=5)).date().isoformat())
    board = ok(organiser, "getEventPlanningOverview")
    assert [a for a in board["attention"] if "Platform Engineering Days" in a]

    ok(organiser, "cancelEvent", {"eventId": conference["id"]}, **CONFIRM)

    assert not AttendeeNeeds.objects.filter(attendee_id=guest["id"]).exists()
    assert "is cancelled" in refused(
        organiser, "updateEventAttendee", {"attendeeId": guest["id"], "needs": {"dietary": "vegan"}}
    )
    after = ok(organiser, "getEventPlanningOverview")
    assert not [a for a in after["attention"] if "Platform Engineering Days" in a], after["attention"]
    assert after["upcoming"] == board["upcoming"] - 1


# --- amounts and their currencies ---------------------------------------------------------------


def test_the_event_s_currency_stays_while_hotel_blocks_are_priced_in_it(people, conference):
    organiser = people["admin"]
    _block(organiser, conference["id"])

    said = refused(organiser, "updateEvent", {"eventId": conference["id"], "changes": {"currency": "USD"}})
    budget = ok(organiser, "getEventBudgetSummary", {"eventId": conference["id"]})

    assert said.startswith("`changes.currency`: ") or said.startswith("`currency`: "), said
    assert Event.objects.get(pk=conference["id"]).currency == "EUR"
    assert (budget["currency"], budget["total"]["committed"]) == ("EUR", "2000.00")
    # Once the block is removed, nothing is priced in it: the currency may change.
    block_id = HotelBlock.objects.get(event_id=conference["id"]).pk
    ok(organiser, "manageEventHotels", {"eventId": conference["id"], "action": "remove", "blockId": block_id})
    moved = ok(organiser, "updateEvent", {"eventId": conference["id"], "changes": {"currency": "USD"}})
    assert moved["event"]["currency"] == "USD"


def test_a_hotel_block_moved_to_another_currency_needs_its_rate(people, conference):
    organiser = people["admin"]
    block_id = _block(organiser, conference["id"])["blocks"][0]["id"]

    said = refused(
        organiser,
        "manageEventHotels",
        {"eventId": conference["id"], "action": "update", "blockId": block_id, "block": {"currency": "GBP"}},
    )
    priced = ok(
        organiser,
        "manageEventHotels",
        {
            "eventId": conference["id"],
            "action": "update",
            "blockId": block_id,
            "block": {"currency": "GBP", "exchangeRate": 1.2},
        },
    )
    budget = ok(organiser, "getEventBudgetSummary", {"eventId": conference["id"]})

    assert "No GBP→EUR rate" in said
    assert priced["blocks"][0]["currency"] == "GBP"
    # 10 rooms, 2 nights, 100 GBP at 1.2
    assert budget["total"]["committed"] == "2400.00"
    # A later change that keeps the currency keeps the rate it was given.
    ok(
        organiser,
        "manageEventHotels",
        {"eventId": conference["id"], "action": "update", "blockId": block_id, "block": {"rooms": 5}},
    )
    assert (
        ok(organiser, "getEventBudgetSummary", {"eventId": conference["id"]})["total"]["committed"]
        == "1200.00"
    )


def test_a_supplier_whose_cost_line_is_refused_is_not_kept(people, conference):
    said = refused(
        people["member"],
        "addEventSupplier",
        {
            "eventId": conference["id"],
            "name": "Loud AV",
            "service": "sound",
            "costLines": [{"category": "av", "description": "PA", "planned": 900, "currency": "USD"}],
        },
    )
    assert "No USD→EUR rate" in said and not Supplier.objects.filter(name="Loud AV").exists()


# --- imports ------------------------------------------------------------------------------------


def test_an_attendee_import_refuses_cells_longer_than_an_attendee_keeps(people, conference):
    organiser, member = people["admin"], people["member"]
    text = (
        "name,email,organisation,ticket,dietary\n"
        f"Org,org@example.org,{'o' * 201},paid,\n"  # 2
        f"Ticket,ticket@example.org,Acme,{'t' * 41},\n"  # 3
        f"Diet,diet@example.org,Acme,paid,{'d' * 201}\n"  # 4
        "Fine,fine@example.org,Acme,Free,vegan\n"  # 5
    )
    file = FileFactory(actor=organiser, name="guests.csv", text=text)

    checked = ok(organiser, "validateAttendeeImport", {"eventId": conference["id"], "fileId": file.pk})
    # A member may not import needs: the column is left out, so its length is nobody's problem.
    theirs = ok(member, "validateAttendeeImport", {"eventId": conference["id"], "fileId": file.pk})
    ok(organiser, "commitAttendeeImport", {"handle": checked["handle"]}, **CONFIRM)

    assert [(e["line"], e["problem"]) for e in checked["errors"]] == [
        (2, "the organisation is longer than 200 characters"),
        (3, "the type is longer than 40 characters"),
        (4, "the dietary need is longer than 200 characters"),
    ]
    assert [e["line"] for e in theirs["errors"]] == [2, 3] and theirs["ignoredColumns"] == ["dietary"]
    kept = Attendee.objects.get(event_id=conference["id"])
    assert (kept.email, kept.type, kept.needs.dietary) == ("fine@example.org", "free", "vegan")


def test_an_event_import_refuses_a_year_no_time_can_be_moved_to_and_a_description_too_long(people):
    member = people["member"]
    ahead = (timezone.now() + timedelta(days=90)).date()
    text = (
        "name,startsAt,endsAt,timeZone,description\n"
        "Far east,0001-01-01T00:30,0001-01-01T05:00,Asia/Tokyo,\n"  # 2: before year 1 in UTC
        "Far west,9999-12-31T20:00,9999-12-31T23:00,America/New_York,\n"  # 3: after 9999 in UTC
        f"Long,{ahead}T10:00,{ahead}T12:00,UTC,{'x' * 5001}\n"  # 4: cut to 5000 before
        f"Kept,{ahead}T10:00,{ahead}T12:00,UTC,{'y' * 5000}\n"  # 5
    )
    before = Event.objects.count()

    plan = ok(member, "validateDataImport", {"entityType": "event", "csvText": text})

    assert {(p["row"], p["column"]) for p in plan["problems"]} == {
        (2, "startsAt"),
        (2, "endsAt"),
        (3, "startsAt"),
        (3, "endsAt"),
        (4, "description"),
    }, plan["problems"]
    assert any("years 1000 to 2999" in p["problem"] for p in plan["problems"])
    ok(member, "commitDataImport", {"token": plan["token"], "skipInvalidRows": True}, **CONFIRM)
    assert Event.objects.count() == before + 1
    assert Event.objects.get(name="Kept").description == "y" * 5000


# --- what a member sees of the organiser's private event ----------------------------------------


def test_the_organiser_s_private_event_names_nothing_to_a_member(people):
    organiser, member = people["admin"], people["member"]
    secret = _event(
        organiser, name="Retreat of the board", visibility="private", startsAt=_day(30), endsAt=_day(31)
    )
    ok(
        organiser,
        "addEventSession",
        {
            "eventId": secret["id"],
            "title": "Merger talk",
            "startsAt": _day(30, 10),
            "endsAt": _day(30, 11),
            "speakers": [{"name": "Kim", "email": "kim@example.org"}],
        },
    )
    _register(organiser, secret["id"], 7)
    mine = _event(member, name="Open day", startsAt=_day(30), endsAt=_day(31))

    clash = refused(
        member,
        "addEventSession",
        {
            "eventId": mine["id"],
            "title": "Talk",
            "startsAt": _day(30, 10),
            "endsAt": _day(30, 11),
            "speakers": [{"name": "Kim", "email": "kim@example.org"}],
        },
    )
    exported = ok(member, "exportDataCsv", {"entityType": "event_attendee"})["csvText"] or ""

    assert "Merger" not in clash and "Retreat" not in clash
    assert "guest7@example.org" not in exported
    assert "not found" in refused(member, "listEventAttendees", {"eventId": secret["id"]}).lower()
    assert not ok(member, "searchEvents", {"query": "Retreat"})["items"]


# --- the agenda and the rooms -------------------------------------------------------------------


def test_opening_the_doors_earlier_leaves_the_agenda_where_it_was(people, conference):
    organiser = people["admin"]
    keynote = ok(
        organiser,
        "addEventSession",
        {"eventId": conference["id"], "title": "Keynote", "startsAt": _day(40, 10), "endsAt": _day(40, 11)},
    )
    closing = ok(
        organiser,
        "addEventSession",
        {"eventId": conference["id"], "title": "Closing", "startsAt": _day(41, 16), "endsAt": _day(41, 17)},
    )

    # Doors open an hour earlier: the talks stay at their times (before, each moved an hour earlier).
    ok(organiser, "updateEvent", {"eventId": conference["id"], "changes": {"startsAt": _day(40, 8)}})
    agenda = {s["title"]: s for s in ok(organiser, "getEvent", {"eventId": conference["id"]})["sessions"]}
    assert (agenda["Keynote"]["startsAt"], agenda["Closing"]["endsAt"]) == (
        keynote["startsAt"],
        closing["endsAt"],
    )

    # The whole conference a week later: the agenda goes with it.
    ok(
        organiser,
        "updateEvent",
        {"eventId": conference["id"], "changes": {"startsAt": _day(47, 8), "endsAt": _day(48, 17)}},
    )
    moved = {s["title"]: s for s in ok(organiser, "getEvent", {"eventId": conference["id"]})["sessions"]}
    assert moved["Keynote"]["startsAt"][:10] == _day(47)[:10]
    assert moved["Closing"]["endsAt"][:10] == _day(48)[:10]

    # Starting a day later without saying the end: the first day's talk would be left outside.
    said = refused(
        organiser, "updateEvent", {"eventId": conference["id"], "changes": {"startsAt": _day(48, 8)}}
    )
    assert "'Keynote'" in said and "'Closing'" not in said


def test_a_room_is_shared_with_someone_else_who_still_comes(people, conference):
    organiser = people["admin"]
    block_id = _block(organiser, conference["id"])["blocks"][0]["id"]
    ada, bo = _register(organiser, conference["id"], 1), _register(organiser, conference["id"], 2)
    _status(organiser, bo["id"], "cancelled")

    alone = refused(
        organiser,
        "allocateEventHotel",
        {"blockId": block_id, "attendeeId": ada["id"], "sharingWithAttendeeId": ada["id"]},
    )
    gone = refused(
        organiser,
        "allocateEventHotel",
        {"blockId": block_id, "attendeeId": ada["id"], "sharingWithAttendeeId": bo["id"]},
    )

    assert alone.startswith("`sharingWithAttendeeId`: ") and "themselves" in alone
    assert gone.startswith("`sharingWithAttendeeId`: ") and "has cancelled" in gone
    assert not RoomAllocation.objects.filter(block_id=block_id).exists()


def test_an_import_names_its_file_only_to_who_may_see_the_file(people, conference, acme_client):
    organiser, member = people["admin"], people["member"]
    private = FileFactory(
        actor=organiser,
        name="board-salaries-guests.csv",
        text="name,email\nAda,ada@example.org\n",
        visibility="private",
    )
    handle = ok(organiser, "validateAttendeeImport", {"eventId": conference["id"], "fileId": private.pk})[
        "handle"
    ]
    ok(organiser, "commitAttendeeImport", {"handle": handle}, **CONFIRM)

    acme_client.force_login(member)
    theirs = acme_client.get(f"/settings/events/{conference['id']}/").content.decode()
    acme_client.force_login(organiser)
    mine = acme_client.get(f"/settings/events/{conference['id']}/").content.decode()

    assert "board-salaries-guests.csv" in mine
    assert "board-salaries-guests.csv" not in theirs and "A file you may not see" in theirs


# --- check-in day -------------------------------------------------------------------------------


def test_check_in_day_keeps_the_event_full_and_a_cancellation_keeps_no_needs(people):
    organiser, member = people["admin"], people["member"]
    event = _event(organiser, name="Meetup", startsAt=_in(6), endsAt=_in(16), capacity=2)
    ada = ok(
        organiser,
        "addEventAttendee",
        {
            "eventId": event["id"],
            "name": "Ada",
            "email": "ada@example.org",
            "status": "registered",
            "needs": {"dietary": "no nuts"},
        },
    )
    bo = _register(organiser, event["id"], 2)
    _register(organiser, event["id"], 3)  # waitlisted

    for attendee in (ada, bo):
        _status(member, attendee["id"], "attended")
    board = ok(member, "getEventPlanningOverview")
    # Both places are taken by people checked in: still full (before, it counted the registered alone).
    assert [a for a in board["attention"] if a.startswith(f"Meetup ({event['id']}) is full")], board[
        "attention"
    ]

    # Ada goes home ill before the evening: undo her check-in, then cancel her.
    _status(organiser, ada["id"], "registered")
    gone = _status(organiser, ada["id"], "cancelled")
    assert gone["promoted"] and not AttendeeNeeds.objects.filter(attendee_id=ada["id"]).exists()
    said = refused(organiser, "updateEventAttendee", {"attendeeId": ada["id"], "needs": {"dietary": "vegan"}})
    assert said.startswith("`needs`: ") and "has cancelled" in said


def test_a_speaker_of_a_cancelled_event_is_free_to_speak_elsewhere_then(people):
    organiser, member = people["admin"], people["member"]
    speaker = [{"name": "Kim", "email": "kim@example.org"}]
    called_off = _event(organiser, name="Called off", startsAt=_day(30), endsAt=_day(30, 17))
    ok(
        organiser,
        "addEventSession",
        {
            "eventId": called_off["id"],
            "title": "Keynote",
            "startsAt": _day(30, 10),
            "endsAt": _day(30, 11),
            "speakers": speaker,
        },
    )
    ok(organiser, "cancelEvent", {"eventId": called_off["id"]}, **CONFIRM)
    elsewhere = _event(member, name="Elsewhere", startsAt=_day(30), endsAt=_day(30, 17))

    talk = ok(
        member,
        "addEventSession",
        {
            "eventId": elsewhere["id"],
            "title": "Talk",
            "startsAt": _day(30, 10),
            "endsAt": _day(30, 11),
            "speakers": speaker,
        },
    )
    assert talk["speakers"] == speaker

    # Deleted and restored, the cancelled event stays cancelled and books nobody again.
    ok(organiser, "deleteEvent", {"eventId": called_off["id"]}, **CONFIRM)
    services.event_restore(actor=organiser, event=Event.objects.get(pk=called_off["id"]))
    restored = Event.objects.get(pk=called_off["id"])
    assert restored.deleted_at is None and restored.cancelled_at is not None
    assert not Speaker.objects.filter(session__event_id=called_off["id"]).exclude(starts_at=None).exists()


def test_moving_the_conference_onto_its_speaker_s_other_talk_names_the_clash(people, conference):
    organiser, member = people["admin"], people["member"]
    speaker = [{"name": "Kim", "email": "kim@example.org"}]
    ok(
        organiser,
        "addEventSession",
        {
            "eventId": conference["id"],
            "title": "Keynote",
            "startsAt": _day(40, 10),
            "endsAt": _day(40, 11),
            "speakers": speaker,
        },
    )
    other = _event(member, name="Week later", startsAt=_day(47), endsAt=_day(47, 17))
    ok(
        member,
        "addEventSession",
        {
            "eventId": other["id"],
            "title": "Their talk",
            "startsAt": _day(47, 10),
            "endsAt": _day(47, 11),
            "speakers": speaker,
        },
    )

    said = refused(
        organiser,
        "updateEvent",
        {"eventId": conference["id"], "changes": {"startsAt": _day(47), "endsAt": _day(48, 17)}},
    )

    assert "kim@example.org already speaks in session" in said and "'Their talk'" in said, said
    assert Event.objects.get(pk=conference["id"]).starts_at.isoformat()[:10] == _day(40)[:10]


def _last_sunday_of_march() -> date:
    """The day Europe's clocks go forward, in a year still to come."""
    day = date(timezone.now().year + 1, 3, 31)
    return day - timedelta(days=(day.weekday() + 1) % 7)


def test_a_weekend_event_over_the_clock_change_moves_a_week_with_its_agenda_at_the_same_hours(people):
    organiser = people["admin"]
    sunday = _last_sunday_of_march()  # 02:00 becomes 03:00 in Berlin
    saturday = sunday - timedelta(days=1)
    event = _event(organiser, startsAt=f"{saturday}T09:00", endsAt=f"{sunday}T17:00")
    for title, day, hour in (("Saturday talk", saturday, 10), ("Sunday talk", sunday, 15)):
        ok(
            organiser,
            "addEventSession",
            {
                "eventId": event["id"],
                "title": title,
                "startsAt": f"{day}T{hour}:00",
                "endsAt": f"{day}T{hour + 1}:00",
            },
        )
    week = timedelta(days=7)

    # A week later, in Berlin's hours: on the wall clock both ends move seven days, in UTC the start
    # moves an hour less than the end (the clocks changed between the two).
    ok(
        organiser,
        "updateEvent",
        {
            "eventId": event["id"],
            "changes": {"startsAt": f"{saturday + week}T09:00", "endsAt": f"{sunday + week}T17:00"},
        },
    )

    agenda = {
        s["title"]: datetime.fromisoformat(s["startsAt"]).astimezone(BERLIN).replace(tzinfo=None)
        for s in ok(organiser, "getEvent", {"eventId": event["id"]})["sessions"]
    }
    assert agenda == {
        "Saturday talk": datetime.fromisoformat(f"{saturday + week}T10:00"),
        "Sunday talk": datetime.fromisoformat(f"{sunday + week}T15:00"),
    }


def test_an_event_that_took_place_is_not_called_off(people, conference):
    organiser = people["admin"]
    guest = _register(organiser, conference["id"], 1)
    Attendee.objects.filter(pk=guest["id"]).update(invited_sequence=0)
    over = timezone.now() - timedelta(hours=1)
    Event.objects.filter(pk=conference["id"]).update(starts_at=over - timedelta(days=1), ends_at=over)

    said = refused(organiser, "cancelEvent", {"eventId": conference["id"]}, **CONFIRM)

    assert said.startswith("`eventId`: ") and "took place" in said
    assert Event.objects.get(pk=conference["id"]).cancelled_at is None
    assert not mail.outbox
    # Deleting it cancels nothing either: it goes to the trash as it was.
    deleted = ok(organiser, "deleteEvent", {"eventId": conference["id"]}, **CONFIRM)
    assert deleted["told"] == 0 and deleted["event"]["cancelledAt"] is None


def test_an_event_that_is_over_takes_nobody_still_to_come(people, conference):
    organiser = people["admin"]
    guest = _register(organiser, conference["id"], 1)
    invited = _register(organiser, conference["id"], 2, status="invited")
    Attendee.objects.filter(pk=guest["id"]).update(status="attended")
    waiting = Attendee.objects.create(
        event_id=conference["id"], name="Late", email="late@example.org", status="waitlisted"
    )
    over = timezone.now() - timedelta(hours=1)
    Event.objects.filter(pk=conference["id"]).update(starts_at=over - timedelta(days=1), ends_at=over)

    for status in ("registered", "invited"):
        given = {"eventId": conference["id"], "name": "Walk", "email": "w@example.org", "status": status}
        assert "ended" in refused(organiser, "addEventAttendee", given)
    assert "ended" in refused(
        organiser, "updateEventAttendee", {"attendeeId": invited["id"], "changes": {"status": "registered"}}
    )
    # Who came is still recorded, a mistaken check-in undone, and a place given up moves nobody up.
    walk_in = {"eventId": conference["id"], "name": "Walk", "email": "w@example.org", "status": "attended"}
    assert ok(organiser, "addEventAttendee", walk_in)["status"] == "attended"
    assert _status(organiser, guest["id"], "registered")["attendee"]["status"] == "registered"
    assert _status(organiser, guest["id"], "cancelled")["promoted"] == []
    assert Attendee.objects.get(pk=waiting.pk).status == "waitlisted"


def test_a_walk_in_is_recorded_only_once_check_in_opens(people, conference):
    walk_in = {"eventId": conference["id"], "name": "Walk", "email": "w@example.org", "status": "attended"}
    assert "check-in opens" in refused(people["admin"], "addEventAttendee", walk_in)
    assert not Attendee.objects.filter(event_id=conference["id"]).exists()
