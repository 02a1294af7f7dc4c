"""Every Events tool through the real dispatcher: a normal call and its effect (the catalogue's
contract test makes one of each too), bad input that names the problem and writes nothing, and
refusals; then the area's rules: agenda clashes, the waitlist, restricted needs, the two-step
import, room blocks, budgets at dated rates, iCalendar invitations, travel plans."""

import io
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import openpyxl
import pytest
from django.core import mail

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import (
    assert_refused_without_its_permission,
    call,
    confirmed,
    ok,
    refused,
    tools_of,
)
from apps.events import errors, services
from apps.events.models import (
    Attendee,
    AttendeeImport,
    AttendeeNeeds,
    BudgetLine,
    Event,
    EventPipeline,
    HotelBlock,
    RoomAllocation,
    Session,
    Supplier,
    TravelPlan,
)
from apps.events.tests.factories import AttendeeFactory, BlockFactory, EventFactory, PipelineFactory
from apps.files.tests.factories import FileFactory

EVENT_TOOLS = tools_of("events")
CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
MODELS = (Event, EventPipeline, Session, Attendee, AttendeeNeeds, AttendeeImport, Supplier, BudgetLine)
MODELS += (HotelBlock, RoomAllocation, TravelPlan)


def counts() -> dict[str, int]:
    return {model.__name__: model._default_manager.count() for model in MODELS}


def test_the_area_has_its_27_tools():
    assert len({spec.name for spec in EVENT_TOOLS}) == 27


@pytest.mark.parametrize("spec", EVENT_TOOLS, ids=lambda spec: spec.name)
def test_a_role_without_the_permission_cannot_call_it(acme, spec):
    assert_refused_without_its_permission(spec)


@pytest.mark.parametrize(
    "name",
    ["createEvent", "addEventAttendee", "commitAttendeeImport", "manageEventHotels", "addEventSession"],
)
def test_viewers_may_read_but_not_plan(people, name):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], name, {})


# --- bad input: a clear error naming the problem, nothing written ----------------------------------


@pytest.fixture
def world(people):
    member = people["member"]
    event = EventFactory(actor=member, capacity=2)
    attendee = AttendeeFactory(actor=member, event=event)
    block = BlockFactory(actor=member, event=event, rooms=1)
    pdf = FileFactory(actor=member, name="guests.pdf", text="%PDF-1.4 not a list")
    return {"member": member, "event": event, "attendee": attendee, "block": block, "pdf": pdf}


def _start(world, hours=0):
    return (world["event"].starts_at + timedelta(hours=hours)).isoformat()


BAD = [
    ("createEventPipeline", lambda w: {"name": "Dup", "stages": ["Idea", "idea"]}, "each stage once"),
    ("moveEventStage", lambda w: {"eventId": w["event"].pk, "stageId": 987654}, "no stage 987654"),
    ("getEventPlanningOverview", lambda w: {"pipeline": 1}, "pipeline"),
    (
        "createEvent",
        lambda w: {"name": "X", "startsAt": _start(w), "endsAt": _start(w, 2), "timeZone": "Mars/Base"},
        "is not a time zone",
    ),
    ("getEvent", lambda w: {"eventId": 987654}, "not found"),
    ("cancelEvent", lambda w: {"eventId": 987654}, "not found"),
    ("deleteEvent", lambda w: {"eventId": 987654}, "not found"),
    ("updateEventSession", lambda w: {"sessionId": 987654, "changes": {"room": "B"}}, "not found"),
    ("removeEventSession", lambda w: {"sessionId": 987654}, "not found"),
    ("updateEvent", lambda w: {"eventId": w["event"].pk, "changes": {"endsAt": _start(w, -5)}}, "end after"),
    ("listEvents", lambda w: {"when": "someday"}, "when"),
    ("searchEvents", lambda w: {"query": ""}, "query"),
    ("openEvent", lambda w: {"eventId": 987654}, "not found"),
    ("openEvents", lambda w: {"eventId": 1}, "eventId"),
    ("shareEvent", lambda w: {"eventId": w["event"].pk, "personEmail": "nobody@nowhere.example"}, "nobody"),
    (
        "addEventSession",
        lambda w: {"eventId": w["event"].pk, "title": "T", "startsAt": _start(w, 2), "endsAt": _start(w, 1)},
        "end after",
    ),
    (
        "addEventAttendee",
        lambda w: {"eventId": w["event"].pk, "name": "A", "email": "not-mail"},
        "not a valid e-mail",
    ),
    (
        "updateEventAttendee",
        lambda w: {"attendeeId": w["attendee"].pk, "changes": {"status": "attended"}},
        "only a registered attendee",
    ),
    ("listEventAttendees", lambda w: {"eventId": w["event"].pk, "status": "maybe"}, "status"),
    ("validateAttendeeImport", lambda w: {"eventId": w["event"].pk, "fileId": w["pdf"].pk}, "neither a CSV"),
    ("commitAttendeeImport", lambda w: {"handle": "forged-handle-123"}, "validateAttendeeImport again"),
    (
        "addEventSupplier",
        lambda w: {
            "eventId": w["event"].pk,
            "name": "AV Co",
            "service": "sound",
            "costLines": [{"category": "av", "description": "PA", "planned": 900, "currency": "USD"}],
        },
        "No USD→EUR rate",
    ),
    ("getEventBudgetSummary", lambda w: {"eventId": 987654}, "not found"),
    ("analyzeEventBudget", lambda w: {"eventId": 987654}, "not found"),
    ("manageEventHotels", lambda w: {"eventId": w["event"].pk, "action": "update"}, "give blockId"),
    (
        "allocateEventHotel",
        lambda w: {"blockId": w["block"].pk, "attendeeId": w["attendee"].pk, "nights": 9},
        "the block has nights",
    ),
    (
        "planEventAttendeeTravel",
        lambda w: {"attendeeId": w["attendee"].pk, "arriveBy": _start(w), "departAfter": _start(w, -3)},
        "departure is after the arrival",
    ),
]


def test_every_tool_has_a_bad_input_case():
    assert sorted(name for name, _build, _problem in BAD) == sorted(spec.name for spec in EVENT_TOOLS)


@pytest.mark.parametrize(("name", "build", "problem"), BAD, ids=[name for name, _b, _p in BAD])
def test_bad_input_is_a_tool_error_naming_the_problem_and_writes_nothing(world, name, build, problem):
    before = counts()

    message = refused(world["member"], name, build(world), **CONFIRM)

    assert problem.lower() in message.lower(), message
    assert counts() == before


# --- events, stages, agenda -------------------------------------------------------------------------


def test_an_event_moves_along_its_pipeline_and_not_onto_another(people):
    member = people["member"]
    pipeline = ok(
        member, "createEventPipeline", {"name": "Conferences", "stages": ["Idea", "Booked", "Live"]}
    )
    other = PipelineFactory(actor=member)
    idea, booked = pipeline["stages"][0]["id"], pipeline["stages"][1]["id"]
    event = ok(
        member,
        "createEvent",
        {
            "name": "Partner summit",
            "startsAt": "2031-05-12T09:00:00",
            "endsAt": "2031-05-13T17:00:00",
            "timeZone": "Europe/Lisbon",
            "stageId": idea,
            "capacity": 100,
        },
    )
    # 09:00 in Lisbon in May (WEST) is 08:00 UTC
    assert datetime.fromisoformat(event["startsAt"]) == datetime(2031, 5, 12, 8, tzinfo=UTC)

    moved = ok(member, "moveEventStage", {"eventId": event["id"], "stageId": booked})
    message = refused(member, "moveEventStage", {"eventId": event["id"], "stageId": other.stages.first().pk})
    board = ok(member, "getEventPlanningOverview")

    assert moved["stage"]["name"] == "Booked"
    assert "pick one of that pipeline's stages" in message
    column = next(p for p in board["pipelines"] if p["name"] == "Conferences")
    assert [e["name"] for s in column["stages"] if s["stage"]["name"] == "Booked" for e in s["events"]] == [
        "Partner summit"
    ]


def test_sessions_never_double_book_a_room_or_a_speaker(people):
    member = people["member"]
    event = EventFactory(actor=member)
    other = EventFactory(actor=member)
    at = event.starts_at
    first = {
        "eventId": event.pk,
        "title": "Keynote",
        "startsAt": at.isoformat(),
        "endsAt": (at + timedelta(hours=1)).isoformat(),
        "room": "Main hall",
        "speakers": [{"name": "Ada", "email": "ada@example.org"}],
    }
    ok(member, "addEventSession", first)

    room = refused(member, "addEventSession", {**first, "title": "Panel", "speakers": []})
    speaker = refused(
        member,
        "addEventSession",
        {
            **first,
            "eventId": other.pk,
            "title": "Fireside",
            "room": "Room B",
            "startsAt": (at + timedelta(minutes=30)).isoformat(),
            "endsAt": (at + timedelta(hours=2)).isoformat(),
        },
    )
    after = ok(
        member,
        "addEventSession",
        {
            **first,
            "title": "Next",
            "startsAt": first["endsAt"],
            "endsAt": (at + timedelta(hours=2)).isoformat(),
        },
    )

    assert "Room 'Main hall' is taken" in room
    assert "ada@example.org already speaks" in speaker
    assert after["room"] == "Main hall"
    assert Session.objects.filter(event__in=[event, other]).count() == 2


# --- attendees, waitlist, needs, invitations --------------------------------------------------------


def test_a_cancellation_moves_the_first_waitlisted_person_up(people):
    member = people["member"]
    event = EventFactory(actor=member, capacity=2)
    answers = [
        ok(
            member,
            "addEventAttendee",
            {"eventId": event.pk, "name": f"P{n}", "email": f"p{n}@example.org", "status": "registered"},
        )
        for n in range(4)
    ]

    assert [a["status"] for a in answers] == ["registered", "registered", "waitlisted", "waitlisted"]
    changed = ok(
        member, "updateEventAttendee", {"attendeeId": answers[0]["id"], "changes": {"status": "cancelled"}}
    )
    assert changed["promoted"] == [answers[2]["id"]]
    listed = ok(member, "listEventAttendees", {"eventId": event.pk, "status": "waitlisted"})
    assert [a["id"] for a in listed["items"]] == [answers[3]["id"]]
    assert listed["counts"] == {"invited": 0, "registered": 2, "waitlisted": 1, "cancelled": 1, "attended": 0}


def test_needs_are_seen_only_with_their_permission_and_removed_after_the_event(people):
    event = EventFactory(actor=people["admin"])
    answer = ok(
        people["admin"],
        "addEventAttendee",
        {"eventId": event.pk, "name": "Lin", "email": "lin@example.org", "needs": {"dietary": "vegan"}},
    )
    assert answer["needs"] == {"dietary": "vegan", "accessibility": ""}

    seen_by_member = ok(people["member"], "listEventAttendees", {"eventId": event.pk})["items"][0]
    refusal = refused(
        people["member"], "updateEventAttendee", {"attendeeId": answer["id"], "needs": {"dietary": "none"}}
    )
    assert seen_by_member["needs"] is None
    assert "may not record attendees' dietary or accessibility needs" in refusal

    assert services.needs_purge(now=event.ends_at + timedelta(minutes=1)) == 1
    assert not AttendeeNeeds.objects.filter(attendee_id=answer["id"]).exists()
    assert Event.objects.get(pk=event.pk).needs_removed_at is not None


def test_invitations_keep_their_uid_and_the_sequence_goes_up_when_the_event_moves(people):
    member = people["member"]
    event = EventFactory(actor=member)
    mail.outbox.clear()
    ok(
        member,
        "addEventAttendee",
        {"eventId": event.pk, "name": "Kim", "email": "kim@example.org", "sendInvitation": True},
    )
    before = ok(member, "getEvent", {"eventId": event.pk, "withIcs": True})

    moved = ok(
        member,
        "updateEvent",
        {"eventId": event.pk, "changes": {"venue": "Harbour hall"}, "resendInvitations": True},
    )
    after = ok(member, "getEvent", {"eventId": event.pk, "withIcs": True})

    assert (before["calendar"]["sequence"], moved["sequence"], moved["reinvited"]) == (0, 1, 1)
    assert after["calendar"]["uid"] == before["calendar"]["uid"]
    assert f"UID:{before['calendar']['uid']}" in after["ics"] and "SEQUENCE:1" in after["ics"]
    assert [m.subject.split(":")[0] for m in mail.outbox] == ["Invitation", "Updated invitation"]
    ics = mail.outbox[1].attachments[0].get_payload(decode=True).decode()
    assert "SEQUENCE:1" in ics and "LOCATION:Harbour hall" in ics


# --- the two-step import ----------------------------------------------------------------------------


def _guest_rows() -> list[list[str]]:
    rows = [["Name", "Email", "Company", "Status"]]
    rows += [[f"Guest {n}", f"guest{n}@example.org", "Acme", "registered"] for n in range(192)]
    rows += [["No Mail", "", "", ""], ["Bad Mail", "bad@", "", ""], ["", "noname@example.org", "", ""]]
    rows += [["Odd", "odd@example.org", "", "maybe"], ["Long", "x" * 250 + "@example.org", "", ""]]
    rows += [[f"Again {n}", f"GUEST{n}@example.org", "", ""] for n in range(3)]
    return rows


def _xlsx(rows: list[list[str]]) -> bytes:
    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    data = io.BytesIO()
    book.save(data)
    return data.getvalue()


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_an_import_of_200_with_5_bad_rows_and_3_duplicates_committed_twice_has_one_effect(people, kind):
    from apps.files import services as files

    member = people["member"]
    event = EventFactory(actor=member, capacity=150)
    rows = _guest_rows()
    assert len(rows) - 1 == 200
    if kind == "csv":
        file = FileFactory(actor=member, name="guests.csv", text="\n".join(",".join(r) for r in rows))
    else:
        file = files.file_create(
            actor=member,
            name="guests.xlsx",
            content=_xlsx(rows),
            folder=None,
            mime_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        )

    checked = ok(member, "validateAttendeeImport", {"eventId": event.pk, "fileId": file.pk})
    assert Attendee.objects.filter(event=event).count() == 0
    assert (checked["rows"], checked["valid"], len(checked["errors"]), len(checked["duplicates"])) == (
        200,
        192,
        5,
        3,
    )
    assert [e["line"] for e in checked["errors"]] == [194, 195, 196, 197, 198]
    assert checked["duplicates"][0] == {"line": 199, "email": "guest0@example.org", "of": "line 2"}

    first = ok(member, "commitAttendeeImport", {"handle": checked["handle"]}, **CONFIRM)
    second = ok(member, "commitAttendeeImport", {"handle": checked["handle"]}, **CONFIRM)

    assert (first["created"], first["skipped"], first["rejected"], first["alreadyCommitted"]) == (
        192,
        3,
        5,
        False,
    )
    assert (second["importId"], second["created"], second["alreadyCommitted"]) == (
        first["importId"],
        192,
        True,
    )
    assert Attendee.objects.filter(event=event).count() == 192
    assert Attendee.objects.filter(event=event, status="registered").count() == 150
    assert Attendee.objects.filter(event=event, status="waitlisted").count() == 42
    assert AttendeeImport.objects.filter(event=event).count() == 1


def test_a_file_that_does_not_parse_is_refused_by_name(people):
    member = people["member"]
    event = EventFactory(actor=member)
    broken = FileFactory(actor=member, name="guests.xlsx", text="PK\x03\x04 this is no workbook")
    headless = FileFactory(actor=member, name="guests.csv", text="a;b\n1;2\n")

    assert "could not be read as an XLSX workbook" in refused(
        member, "validateAttendeeImport", {"eventId": event.pk, "fileId": broken.pk}
    )
    assert "must name the columns" in refused(
        member, "validateAttendeeImport", {"eventId": event.pk, "fileId": headless.pk}
    )


def test_a_handle_is_the_validators_alone_and_a_changed_file_needs_a_new_one(people):
    member = people["member"]
    event = EventFactory(actor=member)
    file = FileFactory(actor=member, name="g.csv", text="name,email\nA,a@example.org\n")
    checked = ok(member, "validateAttendeeImport", {"eventId": event.pk, "fileId": file.pk})

    assert "someone else's" in refused(
        people["admin"], "commitAttendeeImport", {"handle": checked["handle"]}, **CONFIRM
    )
    assert Attendee.objects.filter(event=event).count() == 0


# --- hotels -----------------------------------------------------------------------------------------


def test_a_hotel_block_filled_to_its_limit_refuses_the_next_allocation(people):
    member = people["member"]
    event = EventFactory(actor=member)
    hotels = ok(
        member,
        "manageEventHotels",
        {
            "eventId": event.pk,
            "action": "add",
            "block": {
                "hotel": "Hotel Adlon",
                "roomType": "double",
                "firstNight": event.starts_at.date().isoformat(),
                "nights": 2,
                "rooms": 3,
                "rate": 200,
                "cutOff": (event.starts_at.date() - timedelta(days=14)).isoformat(),
                "attritionPercent": 20,
            },
        },
    )
    block_id = hotels["blocks"][0]["id"]
    guests = [AttendeeFactory(actor=member, event=event, status="registered") for _n in range(5)]

    ok(member, "allocateEventHotel", {"blockId": block_id, "attendeeId": guests[0].pk})
    ok(
        member,
        "allocateEventHotel",
        {"blockId": block_id, "attendeeId": guests[1].pk, "sharingWithAttendeeId": guests[2].pk},
    )
    full = ok(member, "allocateEventHotel", {"blockId": block_id, "attendeeId": guests[3].pk})
    message = refused(member, "allocateEventHotel", {"blockId": block_id, "attendeeId": guests[4].pk})

    assert (full["block"]["allocated"], full["block"]["roomNights"], full["block"]["pickupPercent"]) == (
        6,
        6,
        "100.00",
    )
    assert "has all 3 rooms allocated" in message
    assert RoomAllocation.objects.filter(block_id=block_id).count() == 3
    shrink = refused(
        member,
        "manageEventHotels",
        {"eventId": event.pk, "action": "update", "blockId": block_id, "block": {"rooms": 2}},
    )
    assert "cannot shrink to 2" in shrink
    ok(member, "allocateEventHotel", {"blockId": block_id, "attendeeId": guests[3].pk, "action": "cancel"})
    assert ok(member, "allocateEventHotel", {"blockId": block_id, "attendeeId": guests[4].pk})["allocated"]


# --- budget and travel ------------------------------------------------------------------------------


def test_the_budget_is_in_the_event_currency_at_the_given_dated_rates(people):
    member = people["member"]
    event = EventFactory(actor=member)
    BlockFactory(
        actor=member, event=event, rooms=2, nights=2, rate=Decimal("100"), attrition_percent=Decimal("50")
    )
    attendee = AttendeeFactory(actor=member, event=event, status="registered")
    ok(
        member,
        "addEventSupplier",
        {
            "eventId": event.pk,
            "name": "Blue Fork",
            "service": "catering",
            "costLines": [
                {"category": "catering", "description": "Lunch", "planned": 1000, "committed": 1200},
                {
                    "category": "av",
                    "description": "PA",
                    "planned": 500,
                    "actual": 400,
                    "currency": "USD",
                    "rate": 0.9,
                    "rateDate": "2030-01-15",
                },
            ],
        },
    )

    summary = ok(member, "getEventBudgetSummary", {"eventId": event.pk})
    analysis = ok(member, "analyzeEventBudget", {"eventId": event.pk})

    assert summary["currency"] == "EUR"
    assert summary["total"] == {
        "planned": "1450.00",
        "committed": "1600.00",
        "actual": "360.00",
        "remaining": "-150.00",
    }
    assert {c["category"]: c["committed"] for c in summary["categories"]}["lodging"] == "400.00"
    assert analysis["hotelExposure"] == "200.00"  # 2 of 4 room nights guaranteed, none used
    assert any("catering: 200.00 EUR over the plan" in f for f in analysis["findings"])
    assert (analysis["attendees"], analysis["costPerAttendee"]) == (1, "1600.00")
    assert attendee.status == "registered"


def test_budget_rates_come_from_the_one_place_for_rates_as_the_planner_gave_them(people):
    """Event budgets ask apps.accounting.api.rate for the planner's rate: never the ECB's of the
    day instead, and none given is refused in the Events area's own words and code."""
    member = people["member"]
    event = EventFactory(actor=member)
    line = {"category": "av", "description": "PA", "planned": 900, "currency": "USD"}
    day = datetime(2026, 3, 2).date()

    with pytest.raises(errors.NoBudgetRate) as missing:
        services.cost_lines_add(actor=member, event=event, supplier=None, lines=[{**line, "rate_date": day}])
    [kept] = services.cost_lines_add(
        actor=member, event=event, supplier=None, lines=[{**line, "rate_date": day, "rate": 0.5}]
    )

    assert (missing.value.code, missing.value.message) == (
        "NO_EXCHANGE_RATE",
        f"No USD→{event.currency} rate for 2026-03-02: give `rate` (one USD in {event.currency}) with the "
        "amounts, or enter them in the event's currency.",
    )
    assert (kept.rate, kept.rate_date) == (Decimal("0.5"), day)


def test_a_travel_plan_is_recorded_and_nothing_is_booked(people):
    member = people["member"]
    attendee = AttendeeFactory(actor=member, event=EventFactory(actor=member))

    answer = ok(
        member,
        "planEventAttendeeTravel",
        {
            "attendeeId": attendee.pk,
            "status": "planned",
            "mode": "flight",
            "origin": "Boston",
            "arriveBy": "2030-05-11T18:00:00",
            "plan": "BOS-LIS overnight",
        },
    )

    assert answer["travel"]["booking"] is None and "nothing is booked" in answer["note"]
    assert TravelPlan.objects.get(attendee=attendee).origin == "Boston"
    listed = ok(member, "listEventAttendees", {"eventId": attendee.event_id})["items"][0]
    assert listed["travel"]["mode"] == "flight"


def test_open_tools_answer_links_to_the_events_pages(people):
    event = EventFactory(actor=people["member"])
    assert ok(people["member"], "openEvent", {"eventId": event.pk})["url"].endswith(
        f"/settings/events/{event.pk}/"
    )
    assert ok(people["member"], "openEvents")["url"].endswith("/settings/events/")


def test_a_private_event_is_not_found_by_others_until_shared(people):
    event = EventFactory(actor=people["member"], visibility="private", name="Secret retreat")
    assert "not found" in refused(people["viewer"], "getEvent", {"eventId": event.pk}).lower()
    ok(people["member"], "shareEvent", {"eventId": event.pk, "personEmail": "viewer@acme.example"})
    assert ok(people["viewer"], "searchEvents", {"query": "secret retreat"})["total"] == 1


def test_the_events_page_shows_what_the_tools_did(people, acme_client):
    member = people["member"]
    event = EventFactory(actor=member, name="Harbour gala")
    AttendeeFactory(actor=member, event=event, name="Quentin Blake", status="registered")
    acme_client.force_login(member)

    listing = acme_client.get("/settings/events/")
    detail = acme_client.get(f"/settings/events/{event.pk}/")

    assert listing.status_code == 200 and "Harbour gala" in listing.content.decode()
    assert detail.status_code == 200 and "Quentin Blake" in detail.content.decode()
    assert acme_client.get("/settings/events/987654/").status_code == 404
