"""A person's time zone: chosen on the profile page, active on every page they see signed in
(apps.core.times.TimeZoneMiddleware), written in the one format, and part of their data export."""

import io
import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.utils import timezone

from apps.accounts import services
from apps.accounts.models import PersonalAccessToken
from apps.apikeys.models import ApiKey
from apps.apikeys.services import api_key_create
from apps.core.errors import ValidationFailed
from apps.core.times import TimeZoneMiddleware
from apps.datarights.personal_data import personal_data_export

pytestmark = pytest.mark.django_db

WHEN = datetime(2026, 11, 25, 12, 39, tzinfo=UTC)
TIME = re.compile(r'<time datetime="([^"]+)">([^<]+)</time>')


@pytest.fixture
def member(people):  # type: ignore[no-untyped-def]
    return people["member"]


@pytest.fixture
def member_client(member) -> Client:  # type: ignore[no-untyped-def]
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(member)
    return client


def set_zone(client: Client, zone: str):  # type: ignore[no-untyped-def]
    return client.post("/settings/", {"time_zone": zone})


def test_the_profile_offers_the_time_zones_with_the_workspaces_first(member_client):
    body = member_client.get("/settings/").content.decode()

    assert re.search(r"<label[^>]*>Time zone</label>", body)
    assert '<option value="" selected>The workspace&#x27;s (UTC)</option>' in body
    assert '<option value="Europe/Paris">Europe/Paris</option>' in body


def test_a_person_chooses_a_time_zone_on_the_profile(member_client, member):
    answer = set_zone(member_client, "Europe/Paris")

    assert answer.status_code == 302 and answer["Location"] == "/settings/"
    page = member_client.get("/settings/").content.decode()
    assert "Time zone saved." in page
    assert '<option value="Europe/Paris" selected>Europe/Paris</option>' in page
    member.refresh_from_db()
    assert member.time_zone == "Europe/Paris"
    # Back to the workspace's.
    set_zone(member_client, "")
    member.refresh_from_db()
    assert member.time_zone == ""


@pytest.mark.parametrize("zone", ["Mars/Olympus", "europe/paris", "CET+1", "x" * 300])
def test_a_zone_that_is_not_one_is_refused_on_the_form(member_client, member, zone):
    answer = set_zone(member_client, zone)

    assert answer.status_code == 200
    assert "is not a time zone name such as Europe/Paris" in answer.content.decode()
    member.refresh_from_db()
    assert member.time_zone == ""


def test_the_service_and_the_model_refuse_an_unknown_zone_too(member):
    with pytest.raises(ValidationFailed) as refused:
        services.user_set_time_zone(user=member, time_zone="Atlantis/Capital")
    assert "time_zone" in refused.value.details
    member.time_zone = "Atlantis/Capital"
    with pytest.raises(ValidationError):
        member.full_clean()


def shown_times(body: str) -> list[tuple[str, str]]:
    return TIME.findall(body)


def test_the_tokens_page_shows_times_in_the_persons_zone(member_client, member):
    token, _ = services.access_token_create(user=member, name="zoned")
    PersonalAccessToken.objects.filter(pk=token.pk).update(
        created_at=WHEN, expires_at=WHEN + timedelta(days=90), last_used_at=WHEN
    )
    services.user_set_time_zone(user=member, time_zone="Europe/Paris")

    body = member_client.get("/settings/tokens/").content.decode()

    row = re.search(r"<tr[ >](?:(?!</tr>).)*zoned.*?</tr>", body, re.S)
    assert row is not None
    assert shown_times(row.group(0)) == [
        ("2026-11-25T12:39:00Z", "2026-11-25 13:39 CET"),
        ("2027-02-23T12:39:00Z", "2027-02-23 13:39 CET"),
        ("2026-11-25T12:39:00Z", "2026-11-25 13:39 CET"),
    ]


def test_without_a_zone_of_their_own_a_person_sees_the_workspaces(member_client, member, acme):
    acme.time_zone = "America/New_York"
    acme.save()
    key = api_key_create(user=member, label="zoned key").key
    ApiKey.objects.filter(pk=key.pk).update(created_at=WHEN, last_used_at=WHEN)

    listing = member_client.get("/settings/api-keys/").content.decode()
    detail = member_client.get(f"/settings/api-keys/{key.pk}/").content.decode()

    assert ("2026-11-25T12:39:00Z", "2026-11-25 07:39 EST") in shown_times(listing)
    assert ("2026-11-25T12:39:00Z", "2026-11-25 07:39 EST") in shown_times(detail)
    services.user_set_time_zone(user=member, time_zone="Asia/Tokyo")
    detail = member_client.get(f"/settings/api-keys/{key.pk}/").content.decode()
    assert ("2026-11-25T12:39:00Z", "2026-11-25 21:39 JST") in shown_times(detail)


def test_every_time_on_the_pages_is_in_the_one_format(member_client, member):
    services.user_set_time_zone(user=member, time_zone="Europe/Paris")
    services.access_token_create(user=member, name="format")
    key = api_key_create(user=member, label="format key").key
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=WHEN)

    for path in ["/settings/tokens/", "/settings/api-keys/", f"/settings/api-keys/{key.pk}/"]:
        body = member_client.get(path).content.decode()
        found = shown_times(body)
        assert found, path
        for machine, text in found:
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|\d{4}-\d\d-\d\d", machine), (path, machine)
            assert re.fullmatch(r"\d{4}-\d\d-\d\d( \d\d:\d\d CES?T)?", text), (path, text)
        # No time written another way.
        assert not re.search(r"\b[A-Z][a-z]{2}\. \d{1,2}, \d{4}|\d [ap]\.m\.", body), path


def zone_seen(path: str, user, workspace) -> str:  # type: ignore[no-untyped-def]
    """The zone active while the view of `path` runs, behind TimeZoneMiddleware."""
    seen = []
    request = RequestFactory().get(path)
    request.tenant = workspace
    request.user = user

    def view(request):  # type: ignore[no-untyped-def]
        seen.append(timezone.get_current_timezone_name())
        return HttpResponse()

    TimeZoneMiddleware(view)(request)
    return seen[0]


def test_the_zone_is_the_persons_then_the_workspaces_and_only_for_pages(acme, member):
    acme.time_zone = "America/New_York"
    services.user_set_time_zone(user=member, time_zone="Asia/Tokyo")

    assert zone_seen("/settings/", member, acme) == "Asia/Tokyo"
    assert zone_seen("/accounts/sign-in/", AnonymousUser(), acme) == "America/New_York"
    services.user_set_time_zone(user=member, time_zone="")
    assert zone_seen("/settings/", member, acme) == "America/New_York"
    # Programs read UTC, whoever is signed in.
    assert zone_seen("/api/api-keys", member, acme) == "UTC"
    # After the request, the server's own zone again.
    assert timezone.get_current_timezone_name() == "UTC"


def test_the_json_apis_stay_in_utc_for_a_signed_in_person(member_client, member):
    services.user_set_time_zone(user=member, time_zone="Europe/Paris")
    key = api_key_create(user=member, label="api key").key
    ApiKey.objects.filter(pk=key.pk).update(created_at=WHEN)

    answer = member_client.get(f"/api/api-keys/{key.pk}")

    assert answer.status_code == 200
    assert answer.json()["created_at"] == "2026-11-25T12:39:00Z"


def test_the_time_zone_is_in_the_persons_data_export(acme, member):
    services.user_set_time_zone(user=member, time_zone="Europe/Lisbon")

    out = io.BytesIO()
    personal_data_export(workspace=acme, email=member.email, out=out, performed_by="test")

    content = out.getvalue()

    [user] = json.loads(content)["records"]["accounts.user"]
    assert user["time_zone"] == "Europe/Lisbon"
