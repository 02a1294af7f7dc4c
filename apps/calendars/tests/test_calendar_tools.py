"""The Calendars tools through call_tool: per tool a normal call, bad input and a refusal; the
mandatory first call; recurrence and time zones."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.core import mail
from django.utils import timezone

from apps.calendars import selectors
from apps.calendars.errors import EventReadOnly
from apps.calendars.models import Attendee, Calendar, Event, Invitation
from apps.calendars.tests.factories import AttendeeFactory, CalendarFactory, EventFactory, soon
from apps.calendars.tests.samples import cal, started
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without, structured, text_of
from apps.contacts.tests.factories import ContactFactory
from apps.core.kinds.testing import without_areas


@pytest.fixture(autouse=True)
def no_demo_events(people):  # type: ignore[no-untyped-def]
    """Only this test's events: the demo workspaces' own (HR's approved leave) are removed inside
    the test's transaction."""
    Event.objects.all().delete()


TOOLS = {
    "getCalendarSummary": ("calendars.view", {}),
    "manageCalendar": ("calendars.manage", {"action": "create", "calendar": {"name": "X"}}),
    "createCalendarEvent": ("calendars.edit", {"title": "X", "start": "2026-03-10T10:00"}),
    "updateCalendarEvent": ("calendars.edit", {"eventId": 1}),
    "searchCalendarEvents": ("calendars.view", {}),
    "checkAvailability": ("calendars.view", {"attendees": ["a@example.org"]}),
    "checkEventRsvpStatus": ("calendars.view", {"eventId": 1}),
    "sendCalendarInvite": ("calendars.invite", {"eventId": 1}),
}


def ok(user, name, arguments=None, session=None):
    return structured(cal(user, name, arguments, session=session))


def refused(user, name, arguments=None, session=None):
    result = cal(user, name, arguments, session=session)
    assert result["isError"] is True, result
    return text_of(result)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, arguments, session=MemorySession())


@pytest.mark.parametrize(
    "name", ["createCalendarEvent", "manageCalendar", "sendCalendarInvite", "updateCalendarEvent"]
)
def test_viewers_may_not_change_calendars(people, name):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], name, TOOLS[name][1])


# --- the mandatory first call ---------------------------------------------------------------------


def test_every_calendar_tool_waits_for_the_summary_in_its_session(people):
    session = MemorySession()
    before = call(people["member"], "searchCalendarEvents", {}, session=session)

    assert before["isError"] is True
    assert "getCalendarSummary must be called first" in text_of(before)

    structured(call(people["member"], "getCalendarSummary", {}, session=session))
    after = call(people["member"], "searchCalendarEvents", {}, session=session)

    assert after["isError"] is False
    # Another session starts again.
    assert call(people["member"], "searchCalendarEvents", {}, session=MemorySession())["isError"] is True


def test_the_summary_tells_the_zone_calendars_and_what_waits_for_an_answer(acme, people):
    acme.time_zone = "Europe/Paris"
    acme.save(update_fields=["time_zone"])
    event = EventFactory(
        organizer=people["owner"], title="Board", attendees=[{"email": "member@acme.example"}]
    )

    answer = ok(people["member"], "getCalendarSummary", {"days": 3})

    assert answer["workspaceTimeZone"] == "Europe/Paris"
    assert answer["now"].endswith(("+01:00", "+02:00"))
    assert [item["eventId"] for item in answer["awaitingYourAnswer"]] == [event.pk]
    assert event.calendar.pk in [calendar["id"] for calendar in answer["calendars"]]
    assert any("RRULE" in rule for rule in answer["rules"])


def test_the_summary_refuses_a_bad_horizon(people):
    result = call(people["member"], "getCalendarSummary", {"days": 90})

    assert result["isError"] is True and "days" in text_of(result)


# --- manageCalendar --------------------------------------------------------------------------------


def test_manage_calendar_creates_updates_archives_and_restores(people):
    session = started(people["admin"])
    created = ok(
        people["admin"],
        "manageCalendar",
        {"action": "create", "calendar": {"name": "Rota", "timeZone": "Asia/Tokyo", "colour": "#3366CC"}},
        session,
    )
    calendar_id = created["calendar"]["id"]
    assert created["calendar"]["timeZone"] == "Asia/Tokyo"
    assert Calendar.objects.get(pk=calendar_id).colour == "#3366cc"

    updated = ok(
        people["admin"],
        "manageCalendar",
        {"action": "update", "calendarId": calendar_id, "calendar": {"name": "Night rota"}},
        session,
    )
    assert updated["changed"] == ["name"]

    ok(people["admin"], "manageCalendar", {"action": "archive", "calendarId": calendar_id}, session)
    assert Calendar.objects.get(pk=calendar_id).deleted_at is not None
    ok(people["admin"], "manageCalendar", {"action": "restore", "calendarId": calendar_id}, session)
    assert Calendar.objects.get(pk=calendar_id).deleted_at is None


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"action": "create", "calendar": {"name": "X", "timeZone": "Mars/Olympus"}}, "not a time zone"),
        ({"action": "create", "calendar": {"name": "  "}}, "name"),
        ({"action": "create", "calendar": {"name": "X", "colour": "blue"}}, "colour"),
        ({"action": "update", "calendar": {"name": "X"}}, "calendarId"),
        ({"action": "update", "calendarId": 999999, "calendar": {"name": "X"}}, "was not found"),
        ({"action": "explode"}, "action"),
    ],
)
def test_manage_calendar_refuses_bad_input_and_writes_nothing(people, arguments, said):
    count = Calendar.objects.count()

    assert said in refused(people["admin"], "manageCalendar", arguments)
    assert Calendar.objects.count() == count


def test_members_may_create_calendars_but_not_archive_them(people):
    session = started(people["member"])
    created = ok(
        people["member"], "manageCalendar", {"action": "create", "calendar": {"name": "Mine"}}, session
    )

    message = refused(
        people["member"],
        "manageCalendar",
        {"action": "archive", "calendarId": created["calendar"]["id"]},
        session,
    )

    assert "may see calendars but not delete them" in message
    assert Calendar.objects.get(pk=created["calendar"]["id"]).deleted_at is None


def test_a_private_calendar_of_someone_else_is_not_found(people):
    session = started(people["member"])
    private = ok(
        people["member"],
        "manageCalendar",
        {"action": "create", "calendar": {"name": "Private", "visibility": "private"}},
        session,
    )

    message = refused(people["viewer"], "searchCalendarEvents", {"calendarId": private["calendar"]["id"]})

    assert "was not found" in message


def test_a_private_calendar_is_its_owners_and_the_admins_only(people):
    private = CalendarFactory(owner=people["owner"], visibility="private", name="Own")
    EventFactory(organizer=people["owner"], calendar=private, title="Dentist")

    for name, arguments in [
        ("manageCalendar", {"action": "update", "calendarId": private.pk, "calendar": {"name": "Mine"}}),
        ("manageCalendar", {"action": "archive", "calendarId": private.pk}),
        ("createCalendarEvent", {"title": "Intrusion", "start": soon(), "calendarId": private.pk}),
        ("searchCalendarEvents", {"calendarId": private.pk}),
    ]:
        assert f"Calendar {private.pk} was not found" in refused(people["member"], name, arguments)

    def seen_by(role):
        summary = ok(people[role], "getCalendarSummary", {})
        found = ok(people[role], "searchCalendarEvents", {"query": "Dentist"})
        return private.pk in [c["id"] for c in summary["calendars"]], len(found["items"])

    assert seen_by("member") == (False, 0)
    assert seen_by("admin") == (True, 1)
    private.refresh_from_db()
    assert (private.name, private.deleted_at) == ("Own", None)
    assert not Event.objects.filter(title="Intrusion").exists()


# --- createCalendarEvent ---------------------------------------------------------------------------


def test_create_event_reads_wall_clock_times_in_the_zone_and_links_attendees(people):
    contact = ContactFactory(actor=people["member"], first_name="Grace", email="grace@navy.example")

    answer = ok(
        people["member"],
        "createCalendarEvent",
        {
            "title": "Planning",
            "start": "2026-07-01T09:30",
            "end": "2026-07-01T10:15",
            "timeZone": "America/New_York",
            "location": "Room 4",
            "attendees": [
                {"contactId": contact.pk},
                {"email": "Viewer@acme.example"},
                {"email": "guest@example.org", "optional": True},
            ],
        },
    )

    event = Event.objects.get(pk=answer["id"])
    assert event.starts_at == datetime(2026, 7, 1, 13, 30, tzinfo=ZoneInfo("UTC"))
    assert answer["start"] == "2026-07-01T09:30:00-04:00"
    assert event.calendar.is_default and event.calendar.owner == people["member"]
    attendees = {a.email: a for a in event.attendees.all()}
    assert attendees["grace@navy.example"].contact == contact
    assert attendees["viewer@acme.example"].user == people["viewer"]
    assert attendees["guest@example.org"].optional is True
    assert {a["response"] for a in answer["attendees"]} == {"needs_action"}
    assert not mail.outbox


def test_create_event_with_an_offset_keeps_the_instant(people):
    answer = ok(
        people["member"],
        "createCalendarEvent",
        {
            "title": "Call",
            "start": "2026-07-01T09:30:00Z",
            "durationMinutes": 30,
            "timeZone": "Europe/Berlin",
        },
    )

    assert answer["start"] == "2026-07-01T11:30:00+02:00"
    assert answer["end"] == "2026-07-01T12:00:00+02:00"


def test_an_all_day_event_covers_whole_days(people):
    answer = ok(
        people["member"],
        "createCalendarEvent",
        {"title": "Offsite", "start": "2026-07-01", "end": "2026-07-02", "allDay": True},
    )

    assert answer["allDay"] is True
    assert answer["start"].startswith("2026-07-01T00:00:00")
    assert answer["end"].startswith("2026-07-03T00:00:00")


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"start": "10/03/2026 10:00"}, "is not a date and time in ISO 8601"),
        ({"start": "2026-03-10"}, "is not a date and time in ISO 8601"),
        ({"start": "2026-03-10T10:00", "end": "2026-03-10T09:00"}, "ends"),
        ({"start": "2026-03-10T10:00", "end": "2026-03-10T10:00"}, "before or when it starts"),
        ({"start": "2026-03-10T10:00", "timeZone": "Europe/Atlantis"}, "not a time zone"),
        ({"start": "2026-03-10T10:00", "recurrence": "EVERY TUESDAY"}, "recurrence"),
        ({"start": "2026-03-10T10:00", "recurrence": "FREQ=FORTNIGHTLY"}, "FREQ=FORTNIGHTLY is not allowed"),
        ({"start": "2026-03-10T10:00", "recurrence": "FREQ=WEEKLY;BYDAY=XX"}, "does not parse"),
        (
            {"start": "2026-03-10T10:00", "recurrence": "FREQ=WEEKLY;COUNT=3;UNTIL=20260601"},
            "COUNT and UNTIL",
        ),
        ({"start": "2026-03-10T10:00", "recurrence": "FREQ=MINUTELY"}, "not allowed"),
        ({"start": "2026-03-10T10:00", "attendees": [{"email": "not-an-address"}]}, "not a valid e-mail"),
        (
            {"start": "2026-03-10T10:00", "attendees": [{"name": "Nobody"}]},
            "needs an `email` or a `contactId`",
        ),
        ({"start": "2026-03-10T10:00", "attendees": [{"contactId": 999999}]}, "Contact 999999 was not found"),
        ({"start": "2026-03-10T10:00", "calendarId": 999999}, "Calendar 999999 was not found"),
        ({"start": "2026-03-10T10:00", "colour": "red"}, "is not an argument it takes"),
    ],
)
def test_create_event_refuses_bad_input_and_writes_nothing(people, arguments, said):
    message = refused(people["member"], "createCalendarEvent", {"title": "Bad", **arguments})

    assert said in message, message
    assert not Event.objects.exists()
    assert not Attendee.objects.exists()


def test_ids_of_another_workspace_are_not_found(acme, globex, people):
    from django.db import connection

    from apps.accounts.models import User

    connection.set_tenant(globex)
    try:
        event = EventFactory(organizer=User.objects.get(email="owner@globex.example"), title="Globex secret")
    finally:
        connection.set_tenant(acme)

    message = refused(people["owner"], "checkEventRsvpStatus", {"eventId": event.pk})

    assert f"Event {event.pk} was not found" in message
    assert "Globex secret" not in message


# --- recurrence -----------------------------------------------------------------------------------


def test_a_weekly_event_keeps_its_wall_clock_time_across_daylight_saving(people):
    created = ok(
        people["member"],
        "createCalendarEvent",
        {
            "title": "Standup",
            "start": "2026-03-23T09:00",
            "timeZone": "Europe/London",
            "recurrence": "RRULE:freq=weekly;count=3",
        },
    )
    assert created["recurrence"] == "FREQ=WEEKLY;COUNT=3"

    found = ok(people["member"], "searchCalendarEvents", {"start": "2026-03-20", "end": "2026-04-20"})

    starts = [item["start"] for item in found["items"] if item["eventId"] == created["id"]]
    # The clocks go forward on 29 March: still 09:00, now at +01:00.
    assert starts == ["2026-03-23T09:00:00Z", "2026-03-30T09:00:00+01:00", "2026-04-06T09:00:00+01:00"]
    assert Event.objects.get(pk=created["id"]).recurrence_ends_at is not None


def test_until_as_a_date_is_stored_in_utc_and_one_occurrence_can_be_cancelled(people):
    created = ok(
        people["member"],
        "createCalendarEvent",
        {
            "title": "Review",
            "start": "2026-05-04T15:00",
            "timeZone": "Europe/Paris",
            "recurrence": "FREQ=WEEKLY;UNTIL=20260518",
        },
    )
    assert created["recurrence"] == "FREQ=WEEKLY;UNTIL=20260518T215959Z"

    updated = ok(
        people["member"],
        "updateCalendarEvent",
        {"eventId": created["id"], "changes": {"cancelOccurrence": "2026-05-11T15:00"}},
    )

    assert updated["event"]["cancelledOccurrences"] == ["2026-05-11T15:00:00+02:00"]
    found = ok(people["member"], "searchCalendarEvents", {"start": "2026-05-01", "end": "2026-06-01"})
    assert [item["start"][:10] for item in found["items"]] == ["2026-05-04", "2026-05-18"]
    message = refused(
        people["member"],
        "updateCalendarEvent",
        {"eventId": created["id"], "changes": {"cancelOccurrence": "2026-05-12T15:00"}},
    )
    assert "is not the start of an occurrence" in message


# --- updateCalendarEvent ---------------------------------------------------------------------------


def test_update_moves_the_event_and_says_whose_invitation_is_outdated(people):
    event = EventFactory(
        organizer=people["member"], start="2026-06-01T10:00", attendees=[{"email": "guest@example.org"}]
    )
    session = started(people["member"])
    ok(people["member"], "sendCalendarInvite", {"eventId": event.pk}, session)

    answer = ok(
        people["member"],
        "updateCalendarEvent",
        {
            "eventId": event.pk,
            "changes": {"start": "2026-06-01T11:00", "title": "Moved"},
            "addAttendees": [{"email": "second@example.org"}],
            "responses": [{"email": "guest@example.org", "response": "tentative", "comment": "may be late"}],
        },
        session,
    )

    assert set(answer["changed"]) >= {
        "title",
        "starts_at",
        "ends_at",
        "attendee second@example.org added",
        "guest@example.org answered tentative",
    }
    assert answer["event"]["sequence"] == 1
    assert answer["event"]["end"].startswith("2026-06-01T12:00")
    assert answer["invitationsOutdated"] == ["guest@example.org"]
    guest = Attendee.objects.get(event=event, email="guest@example.org")
    assert (guest.response, guest.comment) == ("tentative", "may be late")


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"end": "2026-06-01T09:00"}, "before or when it starts"),
        ({"start": "tomorrow at ten"}, "ISO 8601"),
        ({"recurrence": "FREQ=DAILY;COUNT=0"}, "COUNT must be a number"),
        ({"timeZone": "Nowhere/Land"}, "not a time zone"),
        ({"calendarId": 999999}, "was not found"),
    ],
)
def test_update_refuses_bad_input_and_changes_nothing(people, changes, said):
    event = EventFactory(organizer=people["member"], start="2026-06-01T10:00", title="Keep")

    assert said in refused(people["member"], "updateCalendarEvent", {"eventId": event.pk, "changes": changes})

    event.refresh_from_db()
    assert (event.title, event.starts_at.hour, event.sequence) == ("Keep", 10, 0)


def test_update_refuses_unknown_attendees_and_events(people):
    event = EventFactory(organizer=people["member"])

    assert "is not an attendee" in refused(
        people["member"],
        "updateCalendarEvent",
        {"eventId": event.pk, "removeAttendees": ["nobody@example.org"]},
    )
    assert "is not an attendee" in refused(
        people["member"],
        "updateCalendarEvent",
        {"eventId": event.pk, "responses": [{"email": "nobody@example.org", "response": "accepted"}]},
    )
    assert "Event 999999 was not found" in refused(
        people["member"], "updateCalendarEvent", {"eventId": 999999}
    )


def test_an_invited_person_sees_an_event_on_a_private_calendar_but_cannot_change_it(people):
    session = started(people["owner"])
    private = ok(
        people["owner"],
        "manageCalendar",
        {"action": "create", "calendar": {"name": "Own", "visibility": "private"}},
        session,
    )
    event = ok(
        people["owner"],
        "createCalendarEvent",
        {
            "calendarId": private["calendar"]["id"],
            "title": "One to one",
            "start": soon(),
            "attendees": [{"email": "member@acme.example"}],
        },
        session,
    )

    assert ok(people["member"], "checkEventRsvpStatus", {"eventId": event["id"]})["title"] == "One to one"
    assert "may not change" in refused(
        people["member"], "updateCalendarEvent", {"eventId": event["id"], "changes": {"title": "Mine"}}
    )
    assert "was not found" in refused(people["viewer"], "checkEventRsvpStatus", {"eventId": event["id"]})


def test_being_invited_shows_an_event_but_changing_it_answers_event_read_only(people):
    private = CalendarFactory(owner=people["owner"], visibility="private")
    event = EventFactory(organizer=people["owner"], calendar=private, title="Appraisal")
    AttendeeFactory(event=event, user=people["member"])

    with pytest.raises(EventReadOnly) as refusal:
        Event.objects.fetch(people["member"], event.pk, "change")
    message = refused(people["member"], "sendCalendarInvite", {"eventId": event.pk})

    assert Event.objects.fetch(people["member"], event.pk) == event
    assert (refusal.value.code, refusal.value.http_status) == ("EVENT_READ_ONLY", 409)
    assert f"You are invited to event {event.pk} but it is on a calendar you may not change" in message
    assert not Event.objects.restrict(people["member"], "change").filter(pk=event.pk).exists()
    assert [found.pk for found in Event.objects.restrict(people["member"])] == [event.pk]
    assert not mail.outbox


def test_an_archived_calendar_hides_its_events_from_everyone(people):
    calendar = CalendarFactory(owner=people["owner"])
    event = EventFactory(organizer=people["owner"], calendar=calendar)
    AttendeeFactory(event=event, user=people["member"])
    calendar.trash(people["owner"])

    for role in ("owner", "admin", "member"):
        assert f"Event {event.pk} was not found" in refused(
            people[role], "checkEventRsvpStatus", {"eventId": event.pk}
        )
    assert "is archived. Restore it with manageCalendar (action restore) first." in refused(
        people["owner"], "searchCalendarEvents", {"calendarId": calendar.pk}
    )


# --- searchCalendarEvents --------------------------------------------------------------------------


def test_search_finds_by_words_calendar_and_attendee_within_the_window(people):
    match = EventFactory(
        organizer=people["member"],
        title="Quarterly budget",
        start=soon(3),
        attendees=[{"email": "cfo@example.org"}],
    )
    EventFactory(organizer=people["member"], title="Lunch", start=soon(3))
    EventFactory(organizer=people["member"], title="Budget far away", start=soon(200))

    by_words = ok(people["member"], "searchCalendarEvents", {"query": "budget"})
    by_person = ok(people["member"], "searchCalendarEvents", {"attendeeEmail": "CFO@example.org"})

    assert [item["eventId"] for item in by_words["items"]] == [match.pk]
    assert [item["eventId"] for item in by_person["items"]] == [match.pk]
    assert by_words["items"][0]["attendees"] == 1


def test_search_pages_through_occurrences(people):
    EventFactory(organizer=people["member"], title="Daily", start=soon(1), recurrence="FREQ=DAILY;COUNT=10")

    first = ok(people["member"], "searchCalendarEvents", {"limit": 4})
    last = ok(people["member"], "searchCalendarEvents", {"limit": 4, "offset": 8})

    assert first["total"] == 10 and first["nextOffset"] == 4
    assert len(last["items"]) == 2 and last["nextOffset"] is None


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"start": "2026-03-10", "end": "2026-03-01"}, "after its start"),
        ({"start": "2026-01-01", "end": "2028-01-01"}, "at most 366 days"),
        ({"start": "March"}, "ISO 8601"),
        ({"limit": 0}, "limit"),
    ],
)
def test_search_refuses_bad_windows(people, arguments, said):
    assert said in refused(people["member"], "searchCalendarEvents", arguments)


# --- checkAvailability -----------------------------------------------------------------------------


def test_availability_merges_busy_times_and_offers_common_free_slots(people):
    day = (timezone.now() + timedelta(days=7)).date()
    while day.weekday() >= 5:
        day += timedelta(days=1)
    EventFactory(organizer=people["member"], title="Member busy", start=f"{day}T09:00", end=f"{day}T12:00")
    EventFactory(
        organizer=people["owner"],
        title="Owner's",
        start=f"{day}T13:00",
        end=f"{day}T14:00",
        attendees=[{"email": "viewer@acme.example"}],
    )
    declined = EventFactory(
        organizer=people["owner"],
        title="Declined",
        start=f"{day}T15:00",
        end=f"{day}T16:00",
        attendees=[{"email": "member@acme.example"}],
    )
    Attendee.objects.filter(event=declined).update(response="declined")

    answer = ok(
        people["member"],
        "checkAvailability",
        {
            "attendees": ["member@acme.example", "viewer@acme.example", "outsider@example.org"],
            "start": f"{day}",
            "end": f"{day + timedelta(days=1)}",
            "durationMinutes": 60,
        },
    )

    busy = {
        person["email"]: [(b["start"][11:16], b["end"][11:16]) for b in person["busy"]]
        for person in answer["people"]
    }
    assert busy["member@acme.example"] == [("09:00", "12:00")]
    assert busy["viewer@acme.example"] == [("13:00", "14:00")]
    assert busy["outsider@example.org"] == []
    assert [p["known"] for p in answer["people"]] == [True, True, False]
    slots = [(s["start"][11:16], s["end"][11:16]) for s in answer["freeSlots"]]
    assert slots[0] == ("12:00", "13:00")
    assert ("14:00", "15:00") in slots
    assert all(not ("09:00" <= start < "12:00") for start, _end in slots)


@pytest.mark.parametrize(
    ("asked", "first"),
    [
        ("10:15:30", "10:30"),  # half a minute past a boundary: the next one, never one in the past
        ("10:15:00", "10:15"),
        ("10:14:59.5", "10:15"),
        ("10:59:01", "11:00"),
    ],
)
def test_free_slots_never_start_before_the_window(asked, first):
    berlin = ZoneInfo("Europe/Berlin")
    start = datetime.fromisoformat(f"2026-03-11T{asked}").replace(tzinfo=berlin)

    slots = selectors.free_slots(
        [],
        start=start,
        end=start + timedelta(hours=3),
        length=timedelta(minutes=30),
        zone=berlin,
        day_starts=None,
        day_ends=None,
    )

    assert slots[0][0] >= start and slots[0][0].astimezone(berlin).strftime("%H:%M") == first


def test_availability_hides_what_the_asker_may_not_see(people):
    session = started(people["owner"])
    private = ok(
        people["owner"],
        "manageCalendar",
        {"action": "create", "calendar": {"name": "Mine", "visibility": "private"}},
        session,
    )
    ok(
        people["owner"],
        "createCalendarEvent",
        {"calendarId": private["calendar"]["id"], "title": "Doctor", "start": soon(2, 10)},
        session,
    )

    answer = ok(
        people["viewer"],
        "checkAvailability",
        {
            "attendees": ["owner@acme.example"],
            "start": soon(2, 0)[:10],
            "end": soon(3, 0)[:10],
            "includeWeekends": True,
        },
    )

    [block] = answer["people"][0]["busy"]
    assert block["title"] == "busy" and block["eventId"] is None


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"attendees": []}, "attendees"),
        ({"attendees": ["a@example.org"], "timeZone": "Moon/Base"}, "not a time zone"),
        ({"attendees": ["a@example.org"], "dayStartsAt": 18, "dayEndsAt": 9}, "working hours"),
        ({"attendees": ["a@example.org"], "start": "2026-01-01", "end": "2026-03-01"}, "at most 31 days"),
    ],
)
def test_availability_refuses_bad_input(people, arguments, said):
    assert said in refused(people["member"], "checkAvailability", arguments)


# --- checkEventRsvpStatus / sendCalendarInvite -----------------------------------------------------


def test_rsvp_status_counts_the_answers(people):
    event = EventFactory(
        organizer=people["member"],
        attendees=[{"email": "a@example.org"}, {"email": "b@example.org"}, {"email": "c@example.org"}],
    )
    Attendee.objects.filter(event=event, email="a@example.org").update(response="accepted")
    Attendee.objects.filter(event=event, email="b@example.org").update(response="declined")

    answer = ok(people["viewer"], "checkEventRsvpStatus", {"eventId": event.pk})

    assert (answer["accepted"], answer["declined"], answer["tentative"], answer["needsAction"]) == (
        1,
        1,
        0,
        1,
    )
    assert answer["notInvitedYet"] == ["a@example.org", "b@example.org", "c@example.org"]


def test_rsvp_status_refuses_an_unknown_event(people):
    assert "Event 424242 was not found" in refused(
        people["viewer"], "checkEventRsvpStatus", {"eventId": 424242}
    )
    assert "eventId" in refused(people["viewer"], "checkEventRsvpStatus", {"eventId": "seven"})


def test_send_invite_is_gated_and_sends_nothing_until_the_user_agrees(people):
    event = EventFactory(organizer=people["member"], attendees=[{"email": "guest@example.org"}])
    session = started(people["member"])

    result = call(people["member"], "sendCalendarInvite", {"eventId": event.pk}, session=session)

    assert result["isError"] is True and "Confirmation required" in text_of(result)
    assert not mail.outbox and not Invitation.objects.exists()


def test_invitations_go_through_the_mail_app_without_the_email_inbox_area(people):
    """Sending for the service is the mail app's, not the Email Inbox area's tools: a workspace
    without that area still sends its calendar invitations, from the service's address."""
    event = EventFactory(organizer=people["member"], attendees=[{"email": "guest@example.org"}])
    session = started(people["member"])

    with without_areas("emailinbox"):
        sent = ok(people["member"], "sendCalendarInvite", {"eventId": event.pk}, session)

    assert [item["email"] for item in sent["sent"]] == ["guest@example.org"]
    [message] = mail.outbox
    assert (message.from_email, message.to, message.reply_to) == (
        settings.DEFAULT_FROM_EMAIL,
        ["guest@example.org"],
        ["member@acme.example"],
    )
    [part] = [p for p in message.message().walk() if p.get_content_type() == "text/calendar"]
    assert (part.get_param("method"), part.get_filename()) == ("REQUEST", "invite.ics")
    assert Invitation.objects.filter(event=event, recipient="guest@example.org").count() == 1


def test_send_invite_refuses_strangers_and_events_without_attendees(people):
    lonely = EventFactory(organizer=people["member"])
    event = EventFactory(organizer=people["member"], attendees=[{"email": "guest@example.org"}])

    assert "nobody to invite" in refused(people["member"], "sendCalendarInvite", {"eventId": lonely.pk})
    assert "not attendees" in refused(
        people["member"], "sendCalendarInvite", {"eventId": event.pk, "attendeeEmails": ["else@example.org"]}
    )
    assert "was not found" in refused(people["member"], "sendCalendarInvite", {"eventId": 999999})
    assert not mail.outbox
