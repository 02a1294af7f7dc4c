"""The Events rules found wanting when an events manager used the area: what a clash says about
events the caller cannot see, currencies, the waitlist's order, statuses that go back, dates that
cannot be meant, one form of time in answers, hotel rooms of the cancelled, capacity, blocks and
their cut-off, an agenda that moves with its event and can be changed, and cancelling."""

from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from apps.catalogue.testing import confirmed, ok, person_with, refused
from apps.events import services
from apps.events.models import Attendee, BudgetLine, Event, HotelBlock, RoomAllocation, Session, Speaker
from apps.events.tests.factories import AttendeeFactory, BlockFactory, EventFactory

CONFIRMED = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def _session(event, title="Opening", hours=(0, 1), speakers=(), room=""):
    return {
        "eventId": event.pk,
        "title": title,
        "startsAt": (event.starts_at + timedelta(hours=hours[0])).isoformat(),
        "endsAt": (event.starts_at + timedelta(hours=hours[1])).isoformat(),
        "room": room,
        "speakers": [{"name": n, "email": e} for n, e in speakers],
    }


# --- the leak: a clash with a session the caller cannot see ------------------------------------------


@pytest.mark.parametrize("role", ["member", "planner"])
def test_a_speaker_busy_in_a_private_event_says_only_that_there_is_a_session(people, role):
    owner = people["owner"]
    caller = (
        people["member"]
        if role == "member"
        else person_with({"events.view", "events.edit"}, email="planner@acme.example")
    )
    secret = EventFactory(actor=owner, visibility="private", name="Board retreat")
    hidden = services.session_add(
        actor=owner,
        event=secret,
        fields={
            "title": "Acquisition of Initech",
            "starts_at": secret.starts_at,
            "ends_at": secret.starts_at + timedelta(hours=1),
        },
        speakers=[{"name": "Ada", "email": "ada@example.org"}],
    )
    mine = EventFactory(actor=caller, starts_at=secret.starts_at, ends_at=secret.ends_at)

    message = refused(caller, "addEventSession", _session(mine, speakers=[("Ada", "ada@example.org")]))

    assert "ada@example.org already speaks in another session at that time" in message
    assert "Initech" not in message and str(hidden.pk) not in message and "Board retreat" not in message
    assert not Session.objects.filter(event=mine).exists()
    # Who sees the other session is told which it is.
    admin_event = EventFactory(actor=people["admin"], starts_at=secret.starts_at, ends_at=secret.ends_at)
    named = refused(
        people["admin"], "addEventSession", _session(admin_event, speakers=[("Ada", "ada@example.org")])
    )
    assert f"session {hidden.pk} ('Acquisition of Initech')" in named


# --- currencies ---------------------------------------------------------------------------------------


def test_a_currency_iso_4217_does_not_list_is_refused_for_events_budgets_and_hotels(people):
    member = people["member"]
    event = EventFactory(actor=member)
    start = event.starts_at.replace(tzinfo=None)
    line = {"category": "av", "description": "PA", "planned": 100, "currency": "ZZZ", "rate": 1}
    block = {
        "hotel": "Adlon",
        "roomType": "double",
        "firstNight": event.starts_at.date().isoformat(),
        "nights": 2,
        "rooms": 2,
        "rate": 100,
        "currency": "ZZZ",
        "exchangeRate": 1,
        "cutOff": (event.starts_at.date() - timedelta(days=10)).isoformat(),
    }

    made = refused(
        member,
        "createEvent",
        {
            "name": "Z",
            "startsAt": start.isoformat(),
            "endsAt": (start + timedelta(hours=3)).isoformat(),
            "timeZone": "UTC",
            "currency": "ZZZ",
        },
    )
    supplier = refused(
        member,
        "addEventSupplier",
        {"eventId": event.pk, "name": "AV", "service": "sound", "costLines": [line]},
    )
    hotel = refused(member, "manageEventHotels", {"eventId": event.pk, "action": "add", "block": block})

    for message in (made, supplier, hotel):
        assert "'ZZZ' is not a three-letter ISO 4217 code" in message
    assert not Event.objects.filter(name="Z").exists()
    assert (
        not BudgetLine.objects.filter(event=event).exists()
        and not HotelBlock.objects.filter(event=event).exists()
    )


# --- the waitlist and statuses --------------------------------------------------------------------------


def test_a_waitlisted_person_keeps_their_place_when_their_status_is_sent_again(people):
    member = people["member"]
    event = EventFactory(actor=member, capacity=2)
    people_ids = [
        ok(
            member,
            "addEventAttendee",
            {"eventId": event.pk, "name": f"P{n}", "email": f"p{n}@example.org", "status": "registered"},
        )["id"]
        for n in range(4)
    ]
    first_waiting, second_waiting = people_ids[2], people_ids[3]

    again = ok(
        member, "updateEventAttendee", {"attendeeId": first_waiting, "changes": {"status": "registered"}}
    )
    same = ok(
        member, "updateEventAttendee", {"attendeeId": first_waiting, "changes": {"status": "waitlisted"}}
    )
    cancelled = ok(
        member, "updateEventAttendee", {"attendeeId": people_ids[0], "changes": {"status": "cancelled"}}
    )

    assert again["attendee"]["status"] == same["attendee"]["status"] == "waitlisted"
    assert cancelled["promoted"] == [first_waiting]
    waiting = ok(member, "listEventAttendees", {"eventId": event.pk, "status": "waitlisted"})["items"]
    assert [a["id"] for a in waiting] == [second_waiting]


def test_statuses_do_not_go_back_and_check_in_opens_near_the_event(people):
    member = people["member"]
    soon = timezone.now() + timedelta(hours=2)
    near = EventFactory(actor=member, starts_at=soon, ends_at=soon + timedelta(hours=5))
    far = EventFactory(actor=member)
    here = AttendeeFactory(actor=member, event=near, status="registered")
    away = AttendeeFactory(actor=member, event=far, status="registered")

    early = refused(member, "updateEventAttendee", {"attendeeId": away.pk, "changes": {"status": "attended"}})
    checked_in = ok(member, "updateEventAttendee", {"attendeeId": here.pk, "changes": {"status": "attended"}})
    back = refused(member, "updateEventAttendee", {"attendeeId": here.pk, "changes": {"status": "invited"}})
    unasked = refused(
        member, "updateEventAttendee", {"attendeeId": away.pk, "changes": {"status": "invited"}}
    )
    undone = ok(member, "updateEventAttendee", {"attendeeId": here.pk, "changes": {"status": "registered"}})

    assert "check-in opens 24 hours before the event starts" in early
    assert checked_in["attendee"]["status"] == "attended"
    assert "invited after attended goes back" in back
    assert "has answered the invitation already" in unasked
    assert undone["attendee"]["status"] == "registered"
    assert Attendee.objects.get(pk=away.pk).status == "registered"


# --- dates and times ------------------------------------------------------------------------------------


def test_dates_that_cannot_be_meant_are_refused_saying_why(people):
    member = people["member"]
    base = {"name": "Odd", "timeZone": "Europe/Berlin"}
    past = refused(
        member, "createEvent", {**base, "startsAt": "2020-03-01T09:00:00", "endsAt": "2020-03-01T17:00:00"}
    )
    decade = refused(
        member, "createEvent", {**base, "startsAt": "2031-03-01T09:00:00", "endsAt": "2041-03-01T17:00:00"}
    )
    # On 30 March 2031 Berlin's clocks go from 02:00 to 03:00: 02:30 does not exist there.
    gap = refused(
        member, "createEvent", {**base, "startsAt": "2031-03-30T02:30:00", "endsAt": "2031-03-30T09:00:00"}
    )
    event = EventFactory(actor=member)
    moved_back = refused(
        member, "updateEvent", {"eventId": event.pk, "changes": {"startsAt": "2021-01-01T09:00:00"}}
    )

    assert "`startsAt`: 2020-03-01T08:00:00+00:00 is in the past" in past
    assert "an event lasts at most 366 days" in decade
    assert "2031-03-30T02:30 does not exist in Europe/Berlin" in gap
    assert "is in the past" in moved_back
    assert not Event.objects.filter(name="Odd").exists()
    assert ok(member, "updateEvent", {"eventId": event.pk, "changes": {"venue": "Hall 3"}})["changed"] == [
        "venue"
    ]


def test_times_in_answers_are_in_utc_whichever_tool_answers(people):
    member = people["member"]
    made = ok(
        member,
        "createEvent",
        {
            "name": "Lisbon days",
            "startsAt": "2031-05-12T09:00:00",
            "endsAt": "2031-05-13T17:00:00",
            "timeZone": "Europe/Lisbon",
        },
    )
    session = ok(
        member,
        "addEventSession",
        {
            "eventId": made["id"],
            "title": "Open",
            "startsAt": "2031-05-12T09:30:00",
            "endsAt": "2031-05-12T10:00:00",
        },
    )
    read = ok(member, "getEvent", {"eventId": made["id"]})
    listed = ok(member, "searchEvents", {"query": "Lisbon days"})["items"][0]

    assert made["startsAt"] == read["event"]["startsAt"] == listed["startsAt"] == "2031-05-12T08:00:00Z"
    assert made["timeZone"] == "Europe/Lisbon"
    assert session["startsAt"] == read["sessions"][0]["startsAt"] == "2031-05-12T08:30:00Z"


# --- hotels and capacity --------------------------------------------------------------------------------


def test_a_cancelled_attendee_gives_their_hotel_room_back(people):
    member = people["member"]
    event = EventFactory(actor=member)
    block = BlockFactory(actor=member, event=event, rooms=1)
    guest, mate = (AttendeeFactory(actor=member, event=event, status="registered") for _n in range(2))
    other = AttendeeFactory(actor=member, event=event, status="registered")
    ok(
        member,
        "allocateEventHotel",
        {"blockId": block.pk, "attendeeId": guest.pk, "sharingWithAttendeeId": mate.pk},
    )
    assert "has all 1 rooms allocated" in refused(
        member, "allocateEventHotel", {"blockId": block.pk, "attendeeId": other.pk}
    )

    ok(member, "updateEventAttendee", {"attendeeId": guest.pk, "changes": {"status": "cancelled"}})

    assert not RoomAllocation.objects.filter(attendee=guest).exists()
    assert ok(member, "allocateEventHotel", {"blockId": block.pk, "attendeeId": other.pk})["allocated"]


def test_capacity_cannot_drop_below_the_registered_without_naming_who(people):
    member = people["member"]
    event = EventFactory(actor=member, capacity=5)
    for n in range(3):
        AttendeeFactory(
            actor=member, event=event, name=f"Guest {n}", email=f"g{n}@example.org", status="registered"
        )

    message = refused(member, "updateEvent", {"eventId": event.pk, "changes": {"capacity": 1}})

    assert "3 people are registered or attended; a capacity of 1" in message
    assert "Guest 2 <g2@example.org>" in message and "Guest 1 <g1@example.org>" in message
    assert "Guest 0" not in message
    assert Event.objects.get(pk=event.pk).capacity == 5
    assert ok(member, "updateEvent", {"eventId": event.pk, "changes": {"capacity": 3}})["changed"] == [
        "capacity"
    ]


def test_a_block_covers_the_events_nights_and_one_past_its_cut_off_warns(people):
    member = people["member"]
    soon = (timezone.now() + timedelta(days=3)).replace(hour=9, minute=0, second=0, microsecond=0)
    event = EventFactory(actor=member, starts_at=soon, ends_at=soon + timedelta(days=2), time_zone="UTC")
    first = soon.date()
    block = {"hotel": "Adlon", "roomType": "double", "rooms": 2, "rate": 100}

    short = refused(
        member,
        "manageEventHotels",
        {
            "eventId": event.pk,
            "action": "add",
            "block": {
                **block,
                "firstNight": first.isoformat(),
                "nights": 1,
                "cutOff": (first - timedelta(days=1)).isoformat(),
            },
        },
    )
    late = ok(
        member,
        "manageEventHotels",
        {
            "eventId": event.pk,
            "action": "add",
            "block": {
                **block,
                "firstNight": (first - timedelta(days=1)).isoformat(),
                "nights": 3,
                "cutOff": (first - timedelta(days=5)).isoformat(),
            },
        },
    )

    last = (first + timedelta(days=1)).isoformat()
    assert f"the block must cover the event's nights, {first.isoformat()} to {last}" in short
    [warning] = late["warnings"]
    assert f"Block {late['blocks'][0]['id']} (Adlon): its cut-off" in warning and "has passed" in warning


# --- the agenda moves with its event and can be changed ---------------------------------------------------


def test_moving_an_event_moves_its_sessions_or_names_those_left_outside(people):
    member = people["member"]
    event = EventFactory(actor=member)
    ok(member, "addEventSession", _session(event, "Opening", (0, 1)))
    closing = ok(member, "addEventSession", _session(event, "Closing", (30, 31)))
    later = event.starts_at + timedelta(days=7)

    ok(
        member,
        "updateEvent",
        {
            "eventId": event.pk,
            "changes": {"startsAt": later.isoformat(), "endsAt": (later + timedelta(days=2)).isoformat()},
        },
    )
    shorter = refused(
        member,
        "updateEvent",
        {"eventId": event.pk, "changes": {"endsAt": (later + timedelta(hours=5)).isoformat()}},
    )

    moved = {s["title"]: s["startsAt"] for s in ok(member, "getEvent", {"eventId": event.pk})["sessions"]}
    assert datetime.fromisoformat(moved["Opening"]) == later.astimezone(UTC)
    assert datetime.fromisoformat(moved["Closing"]) == (later + timedelta(hours=30)).astimezone(UTC)
    assert f"Sessions {closing['id']} ('Closing') would fall outside" in shorter
    assert "'Opening'" not in shorter


def test_sessions_and_their_speakers_are_changed_and_removed(people):
    member = people["member"]
    event = EventFactory(actor=member)
    keynote = ok(
        member, "addEventSession", _session(event, "Keynote", (0, 1), [("Ada", "ada@example.org")], "Main")
    )
    panel = ok(
        member, "addEventSession", _session(event, "Panel", (1, 2), [("Bob", "bob@example.org")], "Main")
    )

    changed = ok(
        member,
        "updateEventSession",
        {
            "sessionId": keynote["id"],
            "changes": {"title": "Welcome", "room": "Hall B"},
            "speakers": [{"name": "Cy", "email": "cy@example.org"}],
        },
    )
    clash = refused(
        member,
        "updateEventSession",
        {
            "sessionId": panel["id"],
            "changes": {
                "startsAt": event.starts_at.isoformat(),
                "endsAt": (event.starts_at + timedelta(hours=1)).isoformat(),
            },
            "speakers": [{"name": "Cy", "email": "cy@example.org"}],
        },
    )
    removed = ok(member, "removeEventSession", {"sessionId": panel["id"]}, **CONFIRMED)

    assert (changed["title"], changed["room"], changed["speakers"]) == (
        "Welcome",
        "Hall B",
        [{"name": "Cy", "email": "cy@example.org"}],
    )
    assert f"cy@example.org already speaks in session {keynote['id']}" in clash
    assert removed["removed"] is True
    assert [s["title"] for s in ok(member, "getEvent", {"eventId": event.pk})["sessions"]] == ["Welcome"]


# --- cancelling and deleting ------------------------------------------------------------------------------


def test_a_cancelled_event_tells_its_attendees_and_a_deleted_one_goes_to_the_trash(people, acme_client):
    member = people["member"]
    event = EventFactory(actor=member, name="Harbour gala")
    ok(
        member,
        "addEventAttendee",
        {"eventId": event.pk, "name": "Kim", "email": "kim@example.org", "sendInvitation": True},
    )
    ok(member, "addEventAttendee", {"eventId": event.pk, "name": "Lee", "email": "lee@example.org"})
    mail.outbox.clear()

    cancelled = ok(member, "cancelEvent", {"eventId": event.pk}, **CONFIRMED)

    assert (cancelled["told"], cancelled["sequence"]) == (1, 1) and cancelled["event"]["cancelledAt"]
    [letter] = mail.outbox
    assert letter.to == ["kim@example.org"] and letter.subject.startswith("Cancelled: Harbour gala")
    ics = letter.attachments[0].get_payload(decode=True).decode()
    assert "METHOD:CANCEL" in ics and "STATUS:CANCELLED" in ics and "SEQUENCE:1" in ics
    assert "is cancelled" in refused(
        member, "addEventAttendee", {"eventId": event.pk, "name": "M", "email": "m@example.org"}
    )

    acme_client.force_login(member)
    page = acme_client.get(f"/settings/events/{event.pk}/").content.decode()
    listing = acme_client.get("/settings/events/").content.decode()
    assert "Cancelled" in page and "(cancelled)" in listing

    other = EventFactory(actor=member)
    ok(
        member,
        "addEventAttendee",
        {"eventId": other.pk, "name": "Kim", "email": "kim@example.org", "sendInvitation": True},
    )
    mail.outbox.clear()
    deleted = ok(member, "deleteEvent", {"eventId": other.pk}, **CONFIRMED)

    assert deleted["event"]["inTrash"] is True and deleted["told"] == 1
    assert f"Event {other.pk} is in the trash" in refused(member, "getEvent", {"eventId": other.pk})
    assert "METHOD:CANCEL" in mail.outbox[0].attachments[0].get_payload(decode=True).decode()


def _ended(event, *, days=400):
    """The event, its sessions and its speakers' copies of their times `days` earlier: one that has
    ended (the services plan only ahead)."""
    by = timedelta(days=days)
    Event.objects.filter(pk=event.pk).update(starts_at=F("starts_at") - by, ends_at=F("ends_at") - by)
    Session.objects.filter(event=event).update(starts_at=F("starts_at") - by, ends_at=F("ends_at") - by)
    Speaker.objects.filter(session__event=event).exclude(starts_at=None).update(
        starts_at=F("starts_at") - by, ends_at=F("ends_at") - by
    )
    event.refresh_from_db()
    return event


def test_a_deleted_event_is_restored_from_the_page_with_its_speakers_booked_again(people, acme_client):
    member = people["member"]
    event = EventFactory(actor=member, name="Quay talks")
    ok(member, "addEventSession", _session(event, "Keynote", speakers=[("Ada", "ada@example.org")]))
    # Over already, so deleting it cancels nothing.
    event = _ended(event)
    ok(member, "deleteEvent", {"eventId": event.pk}, **CONFIRMED)
    acme_client.force_login(member)

    listing = acme_client.get("/settings/events/").content.decode()
    answer = acme_client.post(f"/settings/events/{event.pk}/restore/")

    assert "Quay talks" in listing and f"/settings/events/{event.pk}/restore/" in listing
    assert answer.status_code == 302
    assert ok(member, "getEvent", {"eventId": event.pk})["event"]["name"] == "Quay talks"
    # Ada holds that hour again: another event cannot book her for it.
    other = _ended(EventFactory(actor=member, starts_at=event.starts_at + timedelta(days=400)))
    session = Session.objects.create(
        event=other, title="Clash", starts_at=other.starts_at, ends_at=other.starts_at + timedelta(hours=1)
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Speaker.objects.create(
            session=session,
            name="Ada",
            email="ada@example.org",
            starts_at=session.starts_at,
            ends_at=session.ends_at,
        )


def test_a_deleted_event_still_to_come_is_restored_cancelled_holding_nobody(people, acme_client):
    member = people["member"]
    event = EventFactory(actor=member, name="Quay talks")
    ok(member, "addEventSession", _session(event, "Keynote", speakers=[("Ada", "ada@example.org")]))
    ok(member, "deleteEvent", {"eventId": event.pk}, **CONFIRMED)
    acme_client.force_login(member)

    answer = acme_client.post(f"/settings/events/{event.pk}/restore/")

    assert answer.status_code == 302
    assert ok(member, "getEvent", {"eventId": event.pk})["event"]["cancelledAt"] is not None
    # Called off as it was deleted: Ada is free at that hour.
    other = EventFactory(actor=member, starts_at=event.starts_at, ends_at=event.ends_at)
    ok(member, "addEventSession", _session(other, "Free", speakers=[("Ada", "ada@example.org")]))


def test_an_event_whose_speaker_was_booked_meanwhile_stays_in_the_trash(people):
    member = people["member"]
    event = EventFactory(actor=member)
    ok(member, "addEventSession", _session(event, "Keynote", speakers=[("Ada", "ada@example.org")]))
    event = _ended(event)
    ok(member, "deleteEvent", {"eventId": event.pk}, **CONFIRMED)
    other = EventFactory(actor=member, starts_at=event.starts_at + timedelta(days=400))
    ok(member, "addEventSession", _session(other, "Taken", speakers=[("Ada", "ada@example.org")]))
    _ended(other)

    with pytest.raises(Exception, match="already speaks in session"):
        services.event_restore(actor=member, event=event)

    assert Event.objects.get(pk=event.pk).in_trash


def test_only_who_may_delete_an_event_sees_it_among_the_deleted_and_restores_it(people, acme_client):
    event = EventFactory(actor=people["member"], name="Private retreat", visibility="private")
    ok(people["member"], "deleteEvent", {"eventId": event.pk}, **CONFIRMED)
    acme_client.force_login(people["viewer"])

    listing = acme_client.get("/settings/events/").content.decode()
    answer = acme_client.post(f"/settings/events/{event.pk}/restore/")

    assert "Private retreat" not in listing
    assert answer.status_code in (403, 404)
    assert Event.objects.get(pk=event.pk).in_trash
