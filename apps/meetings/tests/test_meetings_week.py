"""What a week of scheduling and holding video meetings found: a Zoom answer of the wrong shape kept
a meeting with no room, a colleague made a moderator was handed the host's own start link (Zoom's
host secret), putting a meeting on an event with a room wiped that room from the event, and a
Jitsi domain given as an address made join links that go nowhere; a start time without an offset
was a server error, and Zoom showed every meeting in UTC, not in its maker's time zone."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from apps.calendars.tests.factories import EventFactory
from apps.catalogue.testing import ok, refused
from apps.meetings.models import Meeting
from apps.meetings.tests.factories import JITSI
from apps.meetings.tests.servers import Zoom, zoom


def _tomorrow() -> str:
    return (timezone.now() + timedelta(days=1)).replace(microsecond=0).isoformat()


@pytest.mark.parametrize(
    "answer",
    [
        {"join_url": "https://us06web.zoom.us/j/1", "start_url": "https://us06web.zoom.us/s/1"},
        {"id": {"meeting": 1}, "join_url": "https://us06web.zoom.us/j/1"},
        {"id": 85000000001, "join_url": "https://us06web.zoom.us/j/1", "password": {"code": "x"}},
    ],
)
def test_a_zoom_answer_of_the_wrong_shape_is_the_providers_error(people, answer):
    with zoom(Zoom(answer=answer)):
        said = refused(people["member"], "createProviderMeeting", {"title": "Sync", "startsAt": _tomorrow()})
    assert "not the expected JSON" in said and not Meeting.objects.exists()


def test_only_the_maker_gets_zooms_host_link(people):
    member = people["member"]
    with zoom(Zoom()):
        made = ok(
            member,
            "createProviderMeeting",
            {
                "title": "Quarter review",
                "startsAt": _tomorrow(),
                "participants": [{"email": "chair@harbour.example", "moderator": True}],
            },
        )
    links = {link["email"]: link["joinUrl"] for link in made["participants"]}
    assert "zak=" in made["hostUrl"] and links[member.email] == made["hostUrl"]
    assert links["chair@harbour.example"] == made["joinUrl"] and "zak=" not in made["joinUrl"]


def test_a_meeting_on_an_event_keeps_the_events_room(people):
    owner = people["owner"]
    event = EventFactory(
        organizer=owner, title="Board", start=_tomorrow()[:16], location="Room 4B, Quay House"
    )
    with override_settings(**JITSI):
        made = ok(owner, "createProviderMeeting", {"eventId": event.pk})
    event.refresh_from_db()
    assert event.location == "Room 4B, Quay House" and made["joinUrl"] in event.description
    # A meeting made again for it: the description names the new address.
    with override_settings(**JITSI):
        again = ok(owner, "createProviderMeeting", {"eventId": event.pk})
    event.refresh_from_db()
    assert event.location == "Room 4B, Quay House" and again["joinUrl"] in event.description


@pytest.mark.parametrize(
    "domain", ["https://meet.kestrel.example", "meet.kestrel.example/rooms", "meet kestrel"]
)
def test_a_jitsi_domain_given_as_an_address_is_not_configured(people, domain):
    with override_settings(**{**JITSI, "ATRIUM_MEETINGS_JITSI_DOMAIN": domain}):
        said = refused(people["member"], "createProviderMeeting", {"title": "Sync", "startsAt": _tomorrow()})
    assert "ATRIUM_MEETINGS_JITSI_DOMAIN" in said and not Meeting.objects.exists()


def test_a_time_without_an_offset_is_read_and_far_times_refused(people):
    member = people["member"]
    with override_settings(**JITSI):
        made = ok(member, "createProviderMeeting", {"title": "Local", "startsAt": "2027-03-01T09:00:00"})
        assert made["startsAt"].startswith("2027-03-01")
        for far in ("9999-12-31T23:00:00Z", "2999-12-31T23:30:00-12:00"):
            said = refused(
                member, "createProviderMeeting", {"title": "Far", "startsAt": far, "durationMinutes": 1440}
            )
            assert "startsAt" in said
    assert Meeting.objects.count() == 1


def test_zoom_shows_the_meeting_in_the_makers_time_zone(people):
    member = people["member"]
    member.time_zone = "Europe/Berlin"
    member.save(update_fields=["time_zone"])
    with zoom(Zoom()) as served:
        ok(member, "createProviderMeeting", {"title": "Berlin sync", "startsAt": "2027-03-01T09:00:00"})
    (sent,) = served.meetings
    # Zoom reads start_time ending in Z as UTC and shows the meeting in `timezone`.
    assert (sent["start_time"], sent["timezone"]) == ("2027-03-01T08:00:00Z", "Europe/Berlin")
