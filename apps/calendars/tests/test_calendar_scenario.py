"""What an agent really does with calendars, end to end: the summary first, a weekly meeting
with two attendees, their availability, the invitation e-mailed with its .ics, an answer through
the invitation's link, and the meeting among a contact's upcoming events."""

import re
from datetime import datetime, timedelta
from email import message_from_bytes

import icalendar
from django.core import mail
from django.utils import timezone

from apps.calendars.models import Attendee, Invitation
from apps.catalogue.dispatch import MemorySession
from apps.catalogue.testing import call, confirmed, structured
from apps.contacts.tests.factories import ContactFactory


def test_a_weekly_meeting_from_summary_to_answer(acme, people, acme_client):
    acme.time_zone = "Europe/Madrid"
    acme.save(update_fields=["time_zone"])
    agent = people["member"]
    session = MemorySession()

    def tool(name, arguments):
        return structured(
            call(agent, name, arguments, session=session, capabilities={"elicitation": {}}, elicit=confirmed)
        )

    summary = tool("getCalendarSummary", {})
    zone = summary["workspaceTimeZone"]
    client = ContactFactory(actor=agent, first_name="Ada", last_name="Lovelace", email="ada@engines.example")

    day = (timezone.now() + timedelta(days=3)).date()
    while day.weekday() >= 5:
        day += timedelta(days=1)
    free = tool(
        "checkAvailability",
        {
            "attendees": ["viewer@acme.example", "ada@engines.example"],
            "start": str(day),
            "end": str(day + timedelta(days=1)),
            "durationMinutes": 60,
        },
    )
    slot = free["freeSlots"][0]
    assert slot["start"][11:16] == "09:00"

    meeting = tool(
        "createCalendarEvent",
        {
            "title": "Engine design review",
            "start": slot["start"],
            "durationMinutes": 60,
            "recurrence": "FREQ=WEEKLY;COUNT=6",
            "location": "Room 1",
            "attendees": [{"email": "viewer@acme.example"}, {"contactId": client.pk}],
        },
    )
    assert meeting["timeZone"] == zone

    sent = tool("sendCalendarInvite", {"eventId": meeting["id"], "message": "Bring the drawings."})
    assert sorted(item["email"] for item in sent["sent"]) == ["ada@engines.example", "viewer@acme.example"]
    assert len(mail.outbox) == 2

    message = next(m for m in mail.outbox if m.to == ["ada@engines.example"])
    assert message.reply_to == ["member@acme.example"]
    assert "Bring the drawings." in message.body
    parsed = message_from_bytes(message.message().as_bytes())
    [part] = [p for p in parsed.walk() if p.get_content_type() == "text/calendar"]
    assert part.get_param("method") == "REQUEST"
    assert part.get_filename() == "invite.ics"
    ical = icalendar.Calendar.from_ical(part.get_payload(decode=True))
    assert str(ical["METHOD"]) == "REQUEST"
    [vevent] = ical.walk("VEVENT")
    assert str(vevent["UID"]) == sent["uid"]
    assert str(vevent["SUMMARY"]) == "Engine design review"
    assert vevent["RRULE"].to_ical() == b"FREQ=WEEKLY;COUNT=6"
    assert vevent["DTSTART"].dt == datetime.fromisoformat(slot["start"])
    assert zone == "Europe/Madrid"
    assert str(vevent["DTSTART"].params["TZID"]) == zone
    assert [str(tz["TZID"]) for tz in ical.walk("VTIMEZONE")] == [zone]
    attendees = {str(a).removeprefix("mailto:"): a.params for a in vevent["ATTENDEE"]}
    assert attendees["ada@engines.example"]["PARTSTAT"] == "NEEDS-ACTION"
    assert attendees["ada@engines.example"]["CN"] == "Ada Lovelace"
    assert str(vevent["ORGANIZER"]) == "mailto:member@acme.example"

    # Ada answers through the link in her e-mail: the page shows the event, the form answers.
    link = re.search(r"http://localhost(/calendars/rsvp/\S+)\?answer=accepted", message.body).group(1)
    page = acme_client.get(link + "?answer=accepted")
    assert page.status_code == 200 and b"Engine design review" in page.content
    assert Attendee.objects.get(email="ada@engines.example").response == "needs_action"
    acme_client.post(link, {"answer": "accepted", "comment": "Looking forward"})

    status = tool("checkEventRsvpStatus", {"eventId": meeting["id"]})
    assert (status["accepted"], status["needsAction"]) == (1, 1)
    assert Invitation.objects.filter(event_id=meeting["id"]).count() == 2

    upcoming = structured(
        call(agent, "getContactUpcomingEvents", {"contactId": client.pk, "days": 60}, session=session)
    )
    assert [event["title"] for event in upcoming["events"]][:2] == ["Engine design review"] * 2
    assert all(event["area"] == "calendars" for event in upcoming["events"])
    assert len(upcoming["events"]) == 6 or upcoming["events"][-1]["startsAt"] > str(day + timedelta(days=30))


def test_a_link_that_was_tampered_with_or_of_another_workspace_answers_nothing(
    people, acme_client, globex_client
):
    from apps.calendars import invitations
    from apps.calendars.tests.factories import EventFactory

    event = EventFactory(organizer=people["member"], attendees=[{"email": "guest@example.org"}])
    token = invitations.rsvp_token(event.attendees.get())

    assert acme_client.get(f"/calendars/rsvp/{token}x").status_code == 404
    assert globex_client.get(f"/calendars/rsvp/{token}").status_code == 404
    assert acme_client.post(f"/calendars/rsvp/{token}", {"answer": "maybe-later"}).status_code == 404
    assert event.attendees.get().response == "needs_action"


def test_the_settings_page_shows_calendars_events_and_invitations(people, acme_client):
    from apps.calendars.invitations import send
    from apps.calendars.tests.factories import EventFactory

    event = EventFactory(
        organizer=people["member"], title="Visible on the page", attendees=[{"email": "guest@example.org"}]
    )
    send(actor=people["member"], event=event, attendees=list(event.attendees.all()))
    acme_client.force_login(people["viewer"])

    listing = acme_client.get("/settings/calendars/")
    detail = acme_client.get(f"/settings/calendars/events/{event.pk}/")

    assert listing.status_code == 200 and b"Visible on the page" in listing.content
    assert detail.status_code == 200 and b"guest@example.org" in detail.content
    assert b"Invitation: Visible on the page" in detail.content


def test_the_event_page_is_not_found_for_an_event_one_may_not_see(people, acme_client):
    from apps.calendars.tests.factories import CalendarFactory, EventFactory

    private = CalendarFactory(owner=people["owner"], visibility="private")
    hidden = EventFactory(organizer=people["owner"], calendar=private, title="Secret appraisal")
    invited = EventFactory(
        organizer=people["owner"],
        calendar=private,
        title="Open review",
        attendees=[{"email": "member@acme.example"}],
    )
    archived = CalendarFactory(owner=people["member"])
    gone = EventFactory(organizer=people["member"], calendar=archived)
    archived.trash(people["member"])
    acme_client.force_login(people["member"])

    def status(event_id):
        return acme_client.get(f"/settings/calendars/events/{event_id}/").status_code

    assert status(hidden.pk) == 404
    assert status(gone.pk) == 404
    assert status(999999) == 404
    assert status(invited.pk) == 200
    listing = acme_client.get("/settings/calendars/").content
    assert b"Open review" in listing and b"Secret appraisal" not in listing


def test_people_without_calendars_do_not_get_the_page(acme, acme_client):
    from apps.catalogue.testing import person_without

    person = person_without("calendars.view", email="nocal@acme.example")
    acme_client.force_login(person)

    assert acme_client.get("/settings/calendars/").status_code == 403
