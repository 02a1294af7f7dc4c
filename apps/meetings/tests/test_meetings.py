"""createProviderMeeting through call_tool: Jitsi rooms with signed per-person links, Zoom through a
loopback server speaking its API, the calendar event the meeting is attached to, the clear errors
(not configured, over already, an event one may not change, a provider refusing), refusals, and
the settings page showing each person their own meetings."""

from datetime import timedelta

import jwt
import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from apps.calendars.tests.factories import CalendarFactory, EventFactory
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, ok, person_with, person_without, refused
from apps.meetings.models import Meeting, Participant
from apps.meetings.tests.factories import JITSI, meeting
from apps.meetings.tests.servers import Zoom, zoom

SECRET = JITSI["ATRIUM_MEETINGS_JITSI_APP_SECRET"]


def _tomorrow() -> str:
    return (timezone.now() + timedelta(days=1)).replace(microsecond=0).isoformat()


@pytest.fixture
def jitsi():
    with override_settings(**JITSI):
        yield


def test_a_jitsi_meeting_gives_each_person_a_signed_link_of_their_own(people, jitsi):
    member = people["member"]
    made = ok(
        member,
        "createProviderMeeting",
        {
            "title": "Quay works review",
            "startsAt": _tomorrow(),
            "durationMinutes": 45,
            "participants": [{"email": "Ana@Harbour.example", "name": "Ana"}, {"email": member.email}],
        },
    )

    room = made["room"]
    assert len(room) == 32 and room.isalnum() and room.islower()  # 160 random bits, base32
    assert made["provider"] == "jitsi" and made["joinUrl"] == f"https://meet.kestrel.example/{room}"
    links = {link["email"]: link for link in made["participants"]}
    assert set(links) == {member.email, "ana@harbour.example"}  # the maker once, as moderator
    for email, link in links.items():
        token = link["joinUrl"].split("?jwt=", 1)[1]
        claims = jwt.decode(token, SECRET, algorithms=["HS256"], audience="jitsi")
        assert (claims["iss"], claims["sub"], claims["room"]) == ("atrium", "meet.kestrel.example", room)
        assert claims["context"]["user"]["email"] == email
        assert claims["moderator"] is (email == member.email) and link["moderator"] is claims["moderator"]
        ends = timezone.datetime.fromisoformat(made["endsAt"])
        assert claims["exp"] == int((ends + timedelta(hours=2)).timestamp())
    assert made["hostUrl"] == links[member.email]["joinUrl"]
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(
            links["ana@harbour.example"]["joinUrl"].split("?jwt=")[1],
            "a-guessed-secret-long-enough-for-hs256-keys",
            algorithms=["HS256"],
            audience="jitsi",
        )

    kept = Meeting.objects.get(pk=made["id"])
    assert (kept.title, kept.room, kept.created_by) == ("Quay works review", room, member)
    assert (kept.ends_at - kept.starts_at) == timedelta(minutes=45)
    assert sorted(Participant.objects.filter(meeting=kept).values_list("email", "moderator")) == [
        ("ana@harbour.example", False),
        (member.email, True),
    ]
    other = ok(member, "createProviderMeeting", {"title": "Again", "startsAt": _tomorrow()})
    assert other["room"] != room


def test_without_tokens_the_room_name_is_the_secret_and_it_is_said(people):
    with override_settings(
        **{**JITSI, "ATRIUM_MEETINGS_JITSI_APP_ID": "", "ATRIUM_MEETINGS_JITSI_APP_SECRET": ""}
    ):
        made = ok(people["member"], "createProviderMeeting", {"title": "Stand-up", "startsAt": _tomorrow()})
    assert "?jwt=" not in made["participants"][0]["joinUrl"] and made["participants"][0]["expiresAt"] is None
    assert "unguessable name" in made["warnings"][0]


def test_a_meeting_on_a_calendar_event_takes_its_times_and_guests_and_is_written_on_it(people, jitsi):
    owner = people["owner"]
    event = EventFactory(
        organizer=owner,
        title="Supplier review",
        start=_tomorrow()[:16],
        attendees=[{"email": "buyer@supplier.example", "name": "Bo"}],
    )
    made = ok(owner, "createProviderMeeting", {"eventId": event.pk})

    event.refresh_from_db()
    assert made["title"] == "Supplier review" and made["eventId"] == event.pk
    starts, ends = (timezone.datetime.fromisoformat(made[name]) for name in ("startsAt", "endsAt"))
    assert (starts, ends) == (event.starts_at, event.ends_at)
    assert {link["email"] for link in made["participants"]} == {owner.email, "buyer@supplier.example"}
    assert event.location == made["joinUrl"] and made["joinUrl"] in event.description
    assert event.sequence == 1  # the guests' calendars take the change
    assert Meeting.objects.get(pk=made["id"]).event_id == event.pk


def test_an_event_the_caller_may_not_change_is_not_found_and_nothing_is_made(people, jitsi):
    calendar = CalendarFactory(owner=people["owner"], visibility="private", name="Board")
    event = EventFactory(organizer=people["owner"], calendar=calendar, title="Secret merger talk")
    message = refused(people["member"], "createProviderMeeting", {"eventId": event.pk})
    assert "not found" in message.lower() and "Secret merger" not in message
    assert not Meeting.objects.exists()
    event.refresh_from_db()
    assert event.location == "" and event.sequence == 0


def test_bad_input_is_a_clear_error_writing_nothing(people, jitsi):
    member = people["member"]
    past = (timezone.now() - timedelta(days=1)).isoformat()
    assert "over already" in refused(member, "createProviderMeeting", {"title": "Late", "startsAt": past})
    assert "startsAt" in refused(member, "createProviderMeeting", {"title": "No time"})
    assert "title" in refused(member, "createProviderMeeting", {"title": "  ", "startsAt": _tomorrow()})
    bad = {"title": "X", "startsAt": _tomorrow(), "participants": [{"email": "not-an-address"}]}
    assert "participants[0].email" in refused(member, "createProviderMeeting", bad)
    assert "durationMinutes" in refused(
        member, "createProviderMeeting", {"title": "X", "startsAt": _tomorrow(), "durationMinutes": 2}
    )
    assert not Meeting.objects.exists() and not Participant.objects.exists()


def test_without_a_provider_the_error_says_what_an_administrator_sets(people):
    with override_settings(ATRIUM_MEETINGS_PROVIDER="jitsi", ATRIUM_MEETINGS_JITSI_DOMAIN=""):
        message = refused(people["member"], "createProviderMeeting", {"title": "X", "startsAt": _tomorrow()})
    assert "createProviderMeeting is not configured" in message and "ATRIUM_MEETINGS_JITSI_DOMAIN" in message
    with override_settings(ATRIUM_MEETINGS_PROVIDER="zoom", ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID=""):
        assert "ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID" in refused(
            people["member"], "createProviderMeeting", {"title": "X", "startsAt": _tomorrow()}
        )
    assert not Meeting.objects.exists()


def test_zoom_makes_the_meeting_through_its_rest_api_with_one_token(people):
    member = people["member"]
    with zoom(Zoom()) as served:
        first = ok(
            member,
            "createProviderMeeting",
            {
                "title": "Zoom sync",
                "startsAt": _tomorrow(),
                "participants": [{"email": "ana@harbour.example"}],
            },
        )
        ok(member, "createProviderMeeting", {"title": "Zoom again", "startsAt": _tomorrow()})
    assert served.tokens == 1 and len(served.meetings) == 2
    sent = served.meetings[0]
    assert (sent["topic"], sent["type"], sent["duration"], sent["timezone"]) == ("Zoom sync", 2, 60, "UTC")
    assert sent["settings"]["waiting_room"] is True
    assert sent["settings"]["meeting_invitees"] == [{"email": "ana@harbour.example"}]
    assert first["provider"] == "zoom" and first["joinUrl"].startswith("https://us06web.zoom.us/j/")
    assert "zak=host-secret" in first["hostUrl"] and first["passcode"] == "k3str3l"
    kept = Meeting.objects.get(pk=first["id"])
    assert "host-secret" not in kept.join_url and kept.room == str(85000000001)


def test_a_kept_zoom_token_serves_only_the_credential_that_earned_it(people):
    # A workspace may give its own Zoom credentials (Settings → Integrations): another that names
    # the same account and client ids (not secret) without the client secret gets no kept token.
    member = people["member"]
    with zoom(Zoom()) as served:
        ok(member, "createProviderMeeting", {"title": "Ours", "startsAt": _tomorrow()})
        with override_settings(ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET="not-the-secret"):
            assert "refused the service's credentials" in refused(
                member, "createProviderMeeting", {"title": "Theirs", "startsAt": _tomorrow()}
            )
    assert served.tokens == 1 and [sent["topic"] for sent in served.meetings] == ["Ours"]


def test_zoom_refusing_is_a_clear_error_and_nothing_is_kept(people):
    with zoom(Zoom(status=400)):
        message = refused(people["member"], "createProviderMeeting", {"title": "X", "startsAt": _tomorrow()})
    assert "made no meeting" in message and "HTTP 400" in message
    with zoom(Zoom()), override_settings(ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET="wrong"):
        assert "refused the service's credentials" in refused(
            people["member"], "createProviderMeeting", {"title": "X", "startsAt": _tomorrow()}
        )
    assert not Meeting.objects.exists()


def test_the_tool_is_refused_without_meetings_edit(acme, people, jitsi):
    arguments = {"title": "X", "startsAt": _tomorrow()}
    with pytest.raises(ToolNotFound):
        call(people["viewer"], "createProviderMeeting", arguments)
    with pytest.raises(ToolNotFound):
        call(
            person_without("meetings.edit", email="no-meetings@acme.example"),
            "createProviderMeeting",
            arguments,
        )


def test_the_page_shows_a_person_their_own_meetings_and_the_admin_every_one(people, acme_client):
    meeting(people["member"], title="Member quay sync")
    meeting(people["owner"], title="Owner merger call")
    reader = person_with({"meetings.view"}, email="reader@acme.example")

    acme_client.force_login(reader)
    assert "merger" not in acme_client.get(reverse("meetings:meetings")).content.decode()
    acme_client.force_login(people["member"])
    shown = acme_client.get(reverse("meetings:meetings")).content.decode()
    assert "Member quay sync" in shown and "Owner merger call" not in shown
    acme_client.force_login(people["owner"])
    shown = acme_client.get(reverse("meetings:meetings")).content.decode()
    assert "Member quay sync" in shown and "Owner merger call" in shown and "?jwt=" not in shown
