"""What a week of a team's calendars found: a weekly meeting across the change to summer time,
one occurrence cancelled and the series moved without bringing it back (also the one in the hour
the clocks skip), invitations answered by the invited themselves, a free hour for three people, an
outside feed with a cancelled and a moved occurrence, in its own zone, subscribed twice and not
making its subscriber busy, private contacts' names kept out of shared events, a series through an
export and an import, all-day events that keep their days, and bad input (far dates, times on
all-day events, a null calendar) refused by its field instead of failing on the server."""

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from apps.calendars.models import Attendee, Calendar, Event
from apps.calendars.tests.factories import CalendarFactory
from apps.catalogue.dispatch import MemorySession
from apps.catalogue.testing import call, confirmed, structured, text_of
from apps.contacts.tests.factories import ContactFactory
from apps.core.testing import loopback

SESSIONS: dict[int, MemorySession] = {}


@pytest.fixture(autouse=True)
def london(acme, people):  # type: ignore[no-untyped-def]
    """Acme keeps London's time, and only this test's events (the demo's leave removed)."""
    acme.time_zone = "Europe/London"
    acme.save(update_fields=["time_zone"])
    Event.objects.all().delete()
    SESSIONS.clear()
    yield
    SESSIONS.clear()


def _call(user: Any, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    session = SESSIONS.get(user.pk)
    if session is None:
        session = SESSIONS[user.pk] = MemorySession()
        structured(call(user, "getCalendarSummary", {}, session=session))
    return call(
        user, name, arguments or {}, session=session, capabilities={"elicitation": {}}, elicit=confirmed
    )


def ok(user: Any, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return structured(_call(user, name, arguments))


def refused(user: Any, name: str, arguments: dict[str, Any] | None = None) -> str:
    result = _call(user, name, arguments)
    assert result["isError"] is True, result
    said = text_of(result)
    assert "reference" not in said, said  # a failure on the server, not a refusal
    return said


def _starts(user: Any, event_id: int, start: str = "2027-03-15", end: str = "2027-04-30") -> list[str]:
    found = ok(user, "searchCalendarEvents", {"start": start, "end": end, "limit": 100})["items"]
    return [item["start"] for item in found if item["eventId"] == event_id]


def _team(user: Any) -> int:
    made = ok(user, "manageCalendar", {"action": "create", "calendar": {"name": "Team"}})
    return made["calendar"]["id"]


def _weekly(user: Any, calendar_id: int, **extra: Any) -> dict[str, Any]:
    return ok(
        user,
        "createCalendarEvent",
        {
            "title": "Team sync",
            "start": "2027-03-16T09:00",
            "durationMinutes": 30,
            "recurrence": "FREQ=WEEKLY;COUNT=6",
            "calendarId": calendar_id,
            **extra,
        },
    )


# --- the weekly meeting -------------------------------------------------------------------------------


def test_a_weekly_meeting_stays_at_nine_across_the_change_to_summer_time(people):
    member = people["member"]
    sync = _weekly(member, _team(member))
    starts = _starts(member, sync["id"])
    assert [start[:16] for start in starts] == [
        "2027-03-16T09:00",
        "2027-03-23T09:00",
        "2027-03-30T09:00",
        "2027-04-06T09:00",
        "2027-04-13T09:00",
        "2027-04-20T09:00",
    ]
    assert starts[1].endswith(("Z", "+00:00")) and starts[2].endswith("+01:00")
    # Seen from New York (its summer time began two weeks earlier) the meeting moves an hour.
    free = ok(
        member,
        "checkAvailability",
        {
            "attendees": [member.email],
            "start": "2027-03-15",
            "end": "2027-04-01",
            "timeZone": "America/New_York",
        },
    )
    assert [busy["start"][11:16] for busy in free["people"][0]["busy"]] == ["05:00", "05:00", "04:00"]


def test_moving_the_series_keeps_its_cancelled_occurrence_cancelled(people):
    member = people["member"]
    sync = _weekly(member, _team(member), attendees=[{"email": people["admin"].email}])
    ok(
        member,
        "updateCalendarEvent",
        {"eventId": sync["id"], "changes": {"cancelOccurrence": "2027-03-30T09:00"}},
    )
    assert len(_starts(member, sync["id"])) == 5

    # The whole series moves an hour later: the 30th stays cancelled, the attendee stays.
    moved = ok(
        member, "updateCalendarEvent", {"eventId": sync["id"], "changes": {"start": "2027-03-16T10:00"}}
    )
    starts = _starts(member, sync["id"])
    assert len(starts) == 5, starts
    assert not any(start.startswith("2027-03-30") for start in starts)
    assert all("T10:00:00" in start for start in starts)
    assert [a["email"] for a in moved["event"]["attendees"]] == [people["admin"].email]
    assert [moment[:16] for moment in moved["event"]["cancelledOccurrences"]] == ["2027-03-30T10:00"]

    # Another day of the week: the 30th's Wednesday, the 31st, is the one cancelled.
    ok(member, "updateCalendarEvent", {"eventId": sync["id"], "changes": {"start": "2027-03-17T10:00"}})
    starts = _starts(member, sync["id"])
    assert len(starts) == 5 and not any(start.startswith("2027-03-31") for start in starts), starts

    # A new time zone keeps the same wall-clock exceptions too.
    ok(member, "updateCalendarEvent", {"eventId": sync["id"], "changes": {"timeZone": "Europe/Paris"}})
    assert len(_starts(member, sync["id"])) == 5


def test_a_cancelled_occurrence_is_left_out_of_availability_and_the_invitation(people):
    member, admin = people["member"], people["admin"]
    sync = _weekly(member, _team(member), attendees=[{"email": admin.email}])
    ok(
        member,
        "updateCalendarEvent",
        {"eventId": sync["id"], "changes": {"cancelOccurrence": "2027-03-23T09:00"}},
    )
    free = ok(
        member,
        "checkAvailability",
        {"attendees": [admin.email], "start": "2027-03-22", "end": "2027-03-25", "durationMinutes": 30},
    )
    assert [busy["start"][:10] for busy in free["people"][0]["busy"]] == []


# --- invitations and answers ----------------------------------------------------------------------


def test_an_invited_person_answers_for_themselves(people):
    member, admin, viewer = people["member"], people["admin"], people["viewer"]
    private = ok(
        member, "manageCalendar", {"action": "create", "calendar": {"name": "Mine", "visibility": "private"}}
    )["calendar"]["id"]
    one_to_one = ok(
        member,
        "createCalendarEvent",
        {
            "title": "One to one",
            "start": "2027-03-17T14:00",
            "calendarId": private,
            "attendees": [{"email": admin.email}, {"email": viewer.email}],
        },
    )
    # The invited see it waiting for their answer.
    assert [e["eventId"] for e in ok(viewer, "getCalendarSummary", {"days": 31})["awaitingYourAnswer"]] in (
        [],
        [one_to_one["id"]],
    )
    # The admin declines; a member invited to a private event accepts (their own answer only).
    ok(
        admin,
        "updateCalendarEvent",
        {"eventId": one_to_one["id"], "responses": [{"email": admin.email, "response": "declined"}]},
    )
    other = ok(
        member, "createCalendarEvent", {"title": "Other", "start": "2027-03-18T14:00", "calendarId": private}
    )
    owner = people["owner"]
    theirs = CalendarFactory(owner=owner, visibility="private")
    invited = ok(
        owner,
        "createCalendarEvent",
        {
            "title": "Owner's review",
            "start": "2027-03-19T11:00",
            "calendarId": theirs.pk,
            "attendees": [{"email": member.email}],
        },
    )
    answered = ok(
        member,
        "updateCalendarEvent",
        {"eventId": invited["id"], "responses": [{"email": member.email, "response": "accepted"}]},
    )
    assert answered["changed"] == [f"{member.email} answered accepted"]
    assert Attendee.objects.get(event_id=invited["id"], email=member.email).response == "accepted"
    # ... but not somebody else's answer, nor any other change.
    ok(owner, "updateCalendarEvent", {"eventId": invited["id"], "addAttendees": [{"email": "x@example.org"}]})
    assert "may not change" in refused(
        member,
        "updateCalendarEvent",
        {"eventId": invited["id"], "responses": [{"email": "x@example.org", "response": "accepted"}]},
    )
    assert "may not change" in refused(
        member, "updateCalendarEvent", {"eventId": invited["id"], "changes": {"title": "Mine now"}}
    )
    assert Event.objects.get(pk=invited["id"]).title == "Owner's review"
    status = ok(member, "checkEventRsvpStatus", {"eventId": one_to_one["id"]})
    assert (status["declined"], status["needsAction"]) == (1, 1)
    assert other["id"]


# --- free slot for three people -----------------------------------------------------------------


def test_a_free_hour_for_three_people_names_no_private_title(people):
    member, admin, viewer, owner = people["member"], people["admin"], people["viewer"], people["owner"]
    secret = CalendarFactory(owner=admin, visibility="private")
    ok(
        admin,
        "createCalendarEvent",
        {
            "title": "Divorce lawyer",
            "start": "2027-03-16T09:00",
            "durationMinutes": 120,
            "calendarId": secret.pk,
        },
    )
    ok(
        member,
        "createCalendarEvent",
        {"title": "Dentist", "start": "2027-03-16T11:00", "durationMinutes": 60},
    )
    free = ok(
        viewer,
        "checkAvailability",
        {
            "attendees": [member.email, admin.email, owner.email],
            "start": "2027-03-16",
            "end": "2027-03-17",
            "durationMinutes": 60,
        },
    )
    assert "Divorce lawyer" not in json.dumps(free)
    assert free["freeSlots"][0]["start"].startswith("2027-03-16T12:00")


# --- the outside feed -----------------------------------------------------------------------------

FEED = b"""BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//Outside//EN\r
BEGIN:VEVENT\r
UID:standup@outside.example\r
DTSTAMP:20270101T000000Z\r
DTSTART;TZID=Europe/London:20270316T080000\r
DTEND;TZID=Europe/London:20270316T081500\r
RRULE:FREQ=WEEKLY;COUNT=4\r
EXDATE;TZID=Europe/London:20270323T080000\r
SUMMARY:Outside standup\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:standup@outside.example\r
DTSTAMP:20270101T000000Z\r
RECURRENCE-ID;TZID=Europe/London:20270330T080000\r
DTSTART;TZID=Europe/London:20270331T120000\r
DTEND;TZID=Europe/London:20270331T121500\r
SUMMARY:Outside standup (moved)\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:partner-call@outside.example\r
DTSTAMP:20270101T000000Z\r
DTSTART;TZID=America/New_York:20270302T090000\r
DTEND;TZID=America/New_York:20270302T093000\r
RRULE:FREQ=WEEKLY;COUNT=4\r
SUMMARY:Partner call\r
END:VEVENT\r
END:VCALENDAR\r
"""


@pytest.fixture
def feed_url() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/calendar")
            self.send_header("Content-Length", str(len(FEED)))
            self.end_headers()
            self.wfile.write(FEED)

        def log_message(self, *args: Any) -> None:
            pass

    with loopback(Handler) as url:
        yield url + "/team.ics"


def test_a_feed_keeps_its_series_its_cancelled_and_its_moved_occurrence(people, feed_url):
    member = people["member"]
    calendar = _team(member)
    for _time in range(2):  # imported again, the same
        ok(
            member,
            "manageCalendar",
            {"action": "subscribe", "calendarId": calendar, "feed": {"url": feed_url}},
        )
        found = ok(
            member,
            "searchCalendarEvents",
            {"start": "2027-03-15", "end": "2027-04-30", "calendarId": calendar},
        )
        starts = sorted(
            (item["start"][:16], item["title"]) for item in found["items"] if item["title"] != "Partner call"
        )
        assert starts == [
            ("2027-03-16T08:00", "Outside standup"),
            ("2027-03-31T12:00", "Outside standup (moved)"),
            ("2027-04-06T08:00", "Outside standup"),
        ], starts
    # The partner's call repeats at 09:00 in New York, whose clocks change two weeks before London's.
    calls = ok(
        member,
        "searchCalendarEvents",
        {"start": "2027-03-01", "end": "2027-03-31", "query": "Partner", "calendarId": calendar},
    )
    assert [item["start"] for item in calls["items"]] == [
        "2027-03-02T09:00:00-05:00",
        "2027-03-09T09:00:00-05:00",
        "2027-03-16T09:00:00-04:00",
        "2027-03-23T09:00:00-04:00",
    ]
    # Another calendar subscribed to the same feed has its own copies; the first keeps its own.
    mine = ok(
        member, "manageCalendar", {"action": "create", "calendar": {"name": "Mine", "visibility": "private"}}
    )
    mine_id = mine["calendar"]["id"]
    for _time in range(2):
        imported = ok(
            member,
            "manageCalendar",
            {"action": "subscribe", "calendarId": mine_id, "feed": {"url": feed_url}},
        )
        assert imported["feed"]["skipped"] == 0, imported
    for calendar_id in (calendar, mine_id):
        found = ok(
            member,
            "searchCalendarEvents",
            {"start": "2027-03-15", "end": "2027-04-30", "calendarId": calendar_id},
        )
        assert len([item for item in found["items"] if item["title"] != "Partner call"]) == 3, found
    # Whoever subscribed is not busy at the outside team's standups.
    free = ok(
        member, "checkAvailability", {"attendees": [member.email], "start": "2027-03-16", "end": "2027-03-17"}
    )
    assert free["people"][0]["busy"] == []


# --- private calendars stay private ---------------------------------------------------------------


def test_moving_an_event_to_a_shared_calendar_takes_no_private_contact_name_along(people):
    member, viewer = people["member"], people["viewer"]
    contact = ContactFactory(
        actor=member, first_name="Zanzibar", email="zz@example.org", visibility="private"
    )
    mine = ok(
        member, "manageCalendar", {"action": "create", "calendar": {"name": "Mine", "visibility": "private"}}
    )
    event = ok(
        member,
        "createCalendarEvent",
        {
            "title": "Lunch",
            "start": "2027-03-16T12:00",
            "calendarId": mine["calendar"]["id"],
            "attendees": [{"contactId": contact.pk}],
        },
    )
    assert "Zanzibar" in json.dumps(event)
    ok(member, "updateCalendarEvent", {"eventId": event["id"], "changes": {"calendarId": _team(member)}})
    assert "Zanzibar" not in json.dumps(ok(viewer, "checkEventRsvpStatus", {"eventId": event["id"]}))

    # Nor a private calendar made visible to the workspace.
    other = ok(
        member,
        "createCalendarEvent",
        {
            "title": "Lunch 2",
            "start": "2027-03-17T12:00",
            "calendarId": mine["calendar"]["id"],
            "attendees": [{"contactId": contact.pk}],
        },
    )
    ok(
        member,
        "manageCalendar",
        {"action": "update", "calendarId": mine["calendar"]["id"], "calendar": {"visibility": "workspace"}},
    )
    assert "Zanzibar" not in json.dumps(ok(viewer, "checkEventRsvpStatus", {"eventId": other["id"]}))


def test_a_private_event_is_not_found_by_others(people):
    member, viewer, admin = people["member"], people["viewer"], people["admin"]
    mine = ok(
        member, "manageCalendar", {"action": "create", "calendar": {"name": "Mine", "visibility": "private"}}
    )
    event = ok(
        member,
        "createCalendarEvent",
        {
            "title": "Job interview elsewhere",
            "start": "2027-03-16T12:00",
            "calendarId": mine["calendar"]["id"],
        },
    )
    for reader in (viewer,):
        assert (
            ok(
                reader,
                "searchCalendarEvents",
                {"query": "interview", "start": "2027-03-01", "end": "2027-04-01"},
            )["items"]
            == []
        )
        said = refused(reader, "checkEventRsvpStatus", {"eventId": event["id"]})
        assert "interview" not in said.lower()
        said = refused(reader, "searchCalendarEvents", {"calendarId": mine["calendar"]["id"]})
        assert "Mine" not in said
    assert (
        ok(admin, "searchCalendarEvents", {"query": "interview", "start": "2027-03-01", "end": "2027-04-01"})[
            "total"
        ]
        == 1
    )
    # Nobody else's event may be moved into a private calendar by its id either.
    theirs = ok(admin, "createCalendarEvent", {"title": "Board", "start": "2027-03-18T12:00"})
    said = refused(member, "updateCalendarEvent", {"eventId": event["id"], "changes": {"calendarId": 10**6}})
    assert theirs["id"] and said


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments", "field"),
    [
        ("createCalendarEvent", {"title": "Far", "start": "9999-12-31T23:30"}, "start"),
        (
            "createCalendarEvent",
            {"title": "Far", "start": "0001-01-01T00:10", "timeZone": "Asia/Tokyo"},
            "start",
        ),
        ("createCalendarEvent", {"title": "Far", "start": "9999-12-31", "allDay": True}, "start"),
        (
            "createCalendarEvent",
            {"title": "Far", "start": "2027-03-16T10:00", "end": "9999-12-31T23:59:59-12:00"},
            "end",
        ),
        (
            "createCalendarEvent",
            {
                "title": "Far",
                "start": "2027-03-16T10:00",
                "recurrence": "FREQ=YEARLY;UNTIL=99991231",
                "timeZone": "America/Los_Angeles",
            },
            "recurrence",
        ),
        ("searchCalendarEvents", {"start": "9999-12-20"}, "start"),
        ("searchCalendarEvents", {"start": "0001-01-01T00:00+05:00", "end": "0001-01-10"}, "start"),
        ("checkAvailability", {"attendees": ["a@example.org"], "start": "9999-12-30"}, "start"),
        (
            "createCalendarEvent",
            {"title": "Back", "start": "2027-03-16T10:00", "end": "2027-03-16T09:00"},
            "end",
        ),
        ("createCalendarEvent", {"title": "Day", "start": "2027-03-16T10:00", "allDay": True}, "start"),
        (
            "createCalendarEvent",
            {"title": "Day", "start": "2027-03-16", "allDay": True, "durationMinutes": 30},
            "duration",
        ),
        (
            "createCalendarEvent",
            {"title": "Nul", "start": "2027-03-16T10:00", "location": "a\x00b"},
            "location",
        ),
        (
            "createCalendarEvent",
            {"title": "Big", "start": "2027-03-16T10:00", "calendarId": 2**63},
            "calendar",
        ),
        ("searchCalendarEvents", {"calendarId": 2**63}, "calendar"),
        ("manageCalendar", {"action": "update", "calendarId": 2**63, "calendar": {"name": "x"}}, "calendar"),
        (
            "createCalendarEvent",
            {"title": "Type", "start": "2027-03-16T10:00", "durationMinutes": "sixty"},
            "duration",
        ),
        ("createCalendarEvent", {"title": "  ", "start": "2027-03-16T10:00"}, "title"),
        ("createCalendarEvent", {"title": "Empty", "start": ""}, "start"),
    ],
)
def test_bad_input_is_refused_by_its_field(people, name, arguments, field):
    said = refused(people["member"], name, arguments)
    assert field.lower() in said.lower(), said
    assert not Event.objects.filter(title__in=["Far", "Back", "Day", "Nul", "Big", "Type"]).exists()


def test_far_changes_to_an_event_are_refused(people):
    member = people["member"]
    sync = _weekly(member, _team(member))
    for changes in (
        {"start": "9999-12-31T23:30"},
        {"cancelOccurrence": "9999-12-31T23:30"},
        {"end": "9999-12-31T23:59:59-12:00"},
        {"start": "2027-03-16T10:00", "allDay": True},
        {"calendarId": None},
    ):
        said = refused(member, "updateCalendarEvent", {"eventId": sync["id"], "changes": changes})
        assert said.startswith("`") and "None" not in said, said
    assert Event.objects.get(pk=sync["id"]).starts_at.isoformat().startswith("2027-03-16T09:00")
    assert Calendar.objects.count()


def test_an_all_day_series_begun_on_the_day_the_clocks_change_ends_its_days_at_midnight(people):
    member = people["member"]
    # The 28th of March 2027 has 23 hours in London, the 31st of October 25.
    for first, later in (("2027-03-28", "2027-04-04"), ("2027-10-31", "2027-11-07")):
        made = ok(
            member,
            "createCalendarEvent",
            {"title": "Rota", "start": first, "allDay": True, "recurrence": "FREQ=WEEKLY;COUNT=2"},
        )
        found = ok(member, "searchCalendarEvents", {"start": later, "end": f"{later}T23:59"})["items"]
        [occurrence] = [item for item in found if item["eventId"] == made["id"]]
        assert occurrence["start"][:16] == f"{later}T00:00"
        assert occurrence["end"][11:16] == "00:00" and occurrence["end"][:10] > later, occurrence


def test_the_days_asked_for_are_the_days_of_the_zone_of_the_working_hours(people):
    member = people["member"]
    free = ok(
        member,
        "checkAvailability",
        {
            "attendees": [member.email],
            "start": "2027-03-16",
            "end": "2027-03-17",
            "durationMinutes": 60,
            "timeZone": "Pacific/Auckland",
        },
    )
    starts = [slot["start"] for slot in free["freeSlots"]]
    assert starts[0].startswith("2027-03-16T09:00") and all(s.startswith("2027-03-16") for s in starts), (
        starts
    )


def test_a_refused_event_leaves_nothing_half_written(people):
    member = people["member"]
    calendars = Calendar.objects.count()
    said = refused(
        member,
        "createCalendarEvent",
        {
            "title": "Half",
            "start": "2027-03-16T10:00",
            "attendees": [{"email": "fine@example.org"}, {"email": "not an address"}],
        },
    )
    assert "attendees" in said
    assert not Event.objects.filter(title="Half").exists() and Calendar.objects.count() == calendars
    assert not Attendee.objects.filter(email="fine@example.org").exists()
    sync = _weekly(member, _team(member), attendees=[{"email": "fine@example.org"}])
    refused(
        member,
        "updateCalendarEvent",
        {
            "eventId": sync["id"],
            "changes": {"title": "Renamed", "end": "2027-03-16T08:00"},
            "addAttendees": [{"email": "more@example.org"}],
        },
    )
    assert Event.objects.get(pk=sync["id"]).title == "Team sync"
    assert list(Attendee.objects.filter(event_id=sync["id"]).values_list("email", flat=True)) == [
        "fine@example.org"
    ]
    for arguments in ({"eventId": 2**63}, {"eventId": -1}, {"eventId": "7"}):
        refused(member, "checkEventRsvpStatus", arguments)


def test_an_all_day_event_takes_a_date_or_its_midnight(people):
    member = people["member"]
    made = ok(
        member,
        "createCalendarEvent",
        {"title": "Away", "start": "2027-03-16T00:00", "allDay": True, "end": "2027-03-17"},
    )
    assert (made["start"][:16], made["end"][:16]) == ("2027-03-16T00:00", "2027-03-18T00:00")
    said = refused(
        member, "updateCalendarEvent", {"eventId": made["id"], "changes": {"end": "2027-03-18T17:00"}}
    )
    assert said.startswith("`end`") or "end" in said
    assert Event.objects.get(pk=made["id"]).ends_at.isoformat()[:10] == "2027-03-18"


def test_the_occurrence_in_the_hour_the_clocks_skip_is_cancelled_as_search_lists_it(people):
    member = people["member"]
    night = ok(
        member,
        "createCalendarEvent",
        {"title": "Night job", "start": "2027-03-21T01:30", "recurrence": "FREQ=WEEKLY;COUNT=3"},
    )
    listed = _starts(member, night["id"], "2027-03-20", "2027-04-10")
    assert len(listed) == 3
    ok(member, "updateCalendarEvent", {"eventId": night["id"], "changes": {"cancelOccurrence": listed[1]}})
    assert _starts(member, night["id"], "2027-03-20", "2027-04-10") == [listed[0], listed[2]]


def test_a_series_exported_and_imported_keeps_its_cancelled_occurrences(people):
    import csv
    import io

    from apps.platform.tests.test_transfer_tools import _commit, _validate

    member = people["member"]
    sync = _weekly(member, _team(member), title="Roundtrip sync")
    ok(
        member,
        "updateCalendarEvent",
        {"eventId": sync["id"], "changes": {"cancelOccurrence": "2027-03-30T09:00"}},
    )
    exported = ok(member, "exportDataCsv", {"entityType": "calendar_event", "query": "Roundtrip"})["csvText"]
    [row] = list(csv.DictReader(io.StringIO(exported)))
    assert row["cancelledOccurrences"] == "2027-03-30T09:00:00+01:00"

    other = ok(member, "manageCalendar", {"action": "create", "calendar": {"name": "Copy"}})["calendar"]
    row["calendarName"] = "Copy"
    for made_here in ("id", "organizerEmail", "createdAt"):  # what the import does not make
        del row[made_here]
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(row))
    writer.writeheader()
    writer.writerow(row)
    plan = _validate(member, text.getvalue(), kind="calendar_event")
    assert plan["toImport"] == 1, plan
    [copy_id] = _commit(member, plan["token"])["createdIds"]
    assert Event.objects.get(pk=copy_id).calendar_id == other["id"]
    assert len(_starts(member, copy_id)) == 5


def test_an_all_day_event_given_another_zone_keeps_its_days(people):
    member = people["member"]
    away = ok(
        member,
        "createCalendarEvent",
        {"title": "Away", "start": "2027-03-16", "end": "2027-03-17", "allDay": True},
    )
    moved = ok(
        member, "updateCalendarEvent", {"eventId": away["id"], "changes": {"timeZone": "America/New_York"}}
    )
    assert (moved["event"]["start"], moved["event"]["end"]) == (
        "2027-03-16T00:00:00-04:00",
        "2027-03-18T00:00:00-04:00",
    )


def _spans(user: Any, event_id: int, start: str, end: str) -> list[tuple[str, str]]:
    found = ok(user, "searchCalendarEvents", {"start": start, "end": end, "limit": 100})["items"]
    return [(item["start"][:19], item["end"][:19]) for item in found if item["eventId"] == event_id]


def test_a_night_shift_over_the_change_to_winter_time_ends_at_six_every_week(people):
    member = people["member"]
    # London's clocks go back at 02:00 on 31 October 2027: that night lasts nine hours.
    night = ok(
        member,
        "createCalendarEvent",
        {"title": "Night shift", "start": "2027-10-30T22:00", "end": "2027-10-31T06:00"},
    )
    weekly = {
        "title": "Night cover",
        "start": "2027-10-30T22:00",
        "end": "2027-10-31T06:00",
        "recurrence": "FREQ=WEEKLY;COUNT=2",
    }
    cover = ok(member, "createCalendarEvent", weekly)
    assert _spans(member, night["id"], "2027-10-29", "2027-11-02") == [
        ("2027-10-30T22:00:00", "2027-10-31T06:00:00")
    ]
    assert _spans(member, cover["id"], "2027-10-29", "2027-11-09") == [
        ("2027-10-30T22:00:00", "2027-10-31T06:00:00"),
        ("2027-11-06T22:00:00", "2027-11-07T06:00:00"),
    ]
    # Eight hours given as minutes are eight hours on the clock of the world: 05:00 that night.
    shift = ok(
        member,
        "createCalendarEvent",
        {"title": "Eight hours", "start": "2027-10-30T22:00", "durationMinutes": 480},
    )
    assert _spans(member, shift["id"], "2027-10-29", "2027-11-02") == [
        ("2027-10-30T22:00:00", "2027-10-31T05:00:00")
    ]
