"""Settings → Integrations: every member sees which provider each area uses (never a secret),
administrators save the workspace's own credentials (encrypted; refused when bad, nothing saved)
and test each provider with one request against the areas' loopback servers; the next tool call
uses what was saved."""

import socket
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import override_settings
from django.urls import reverse

from apps.catalogue.dispatch import MemorySession
from apps.catalogue.testing import call, structured, text_of
from apps.dialer.tests.servers import Twilio, twilio
from apps.integrations import services
from apps.integrations.models import ProviderSetting
from apps.meetings.tests.servers import Zoom, zoom
from apps.travel.tests.servers import duffel
from apps.travelsearch.tests.servers import AFFILIATE, TOKEN, demand
from apps.travelsearch.tests.test_travelsearch import STAY
from apps.web.tests.servers import Engine, brave, searxng

pytestmark = pytest.mark.django_db

PAGE = "integrations:integrations"
BOOKING_TOKEN = "ATRIUM_TRAVELSEARCH_BOOKING_TOKEN"
AREAS = ("Web browser", "Browser tab", "Flights and stays", "Travel search", "Dialer", "Video meetings")


def _said(response: Any) -> str:
    return " ".join(str(message) for message in get_messages(response.wsgi_request))


def _test(client: Any, area: str, provider: str) -> str:
    response = client.post(reverse("integrations:test"), {"area": area, "provider": provider})
    assert response.status_code == 302
    return _said(response)


def _save(client: Any, name: str, value: str) -> Any:
    return client.post(reverse("integrations:save"), {"name": name, "value": value})


def _closed_port() -> int:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        return int(free.getsockname()[1])


@pytest.fixture
def admin_client(people, acme_client):
    acme_client.force_login(people["admin"])
    return acme_client


def test_a_member_sees_each_area_and_its_state_but_no_secret_and_cannot_change_or_test(people, acme_client):
    with demand():
        acme_client.force_login(people["member"])
        # Not in a member's menu (as Social accounts' page): the areas' own pages lead to it.
        assert reverse(PAGE) in acme_client.get(reverse("travelsearch:travelsearch")).content.decode()
        shown = acme_client.get(reverse(PAGE)).content.decode()
        for title in AREAS:
            assert title in shown
        assert "Set up: booking.com" in shown and "…eron" in shown
        assert TOKEN not in shown and "Test connection" not in shown and 'name="value"' not in shown
        assert _save(acme_client, BOOKING_TOKEN, "another-token-123456").status_code == 403
        response = acme_client.post(
            reverse("integrations:test"), {"area": "travelsearch", "provider": "booking"}
        )
        assert response.status_code == 403
    assert not ProviderSetting.objects.exists()


def test_an_admin_tests_the_demand_api_ok_refused_unreachable_and_timed_out(admin_client):
    with demand() as served:
        page = admin_client.get(reverse(PAGE)).content.decode()
        assert "Test connection: Booking.com Demand API" in page and TOKEN not in page
        said = _test(admin_client, "travelsearch", "booking")
        assert "ok (" in said and served.paths() == ["/common/locations/countries"]

        _save(admin_client, BOOKING_TOKEN, "a-rejected-token-9876")
        said = _test(admin_client, "travelsearch", "booking")
        assert "refused: the token was rejected (401)" in said and "a-rejected-token" not in said
        assert "…9876" in admin_client.get(reverse(PAGE)).content.decode()
        admin_client.post(reverse("integrations:save"), {"name": BOOKING_TOKEN, "reset": "1"})

        served.hang = 1.5
        assert "timed out" in _test(admin_client, "travelsearch", "booking")
        served.hang = 0

    with demand(), override_settings(ATRIUM_TRAVELSEARCH_BOOKING_URL=f"http://127.0.0.1:{_closed_port()}"):
        assert "could not connect" in _test(admin_client, "travelsearch", "booking")
    with override_settings(ATRIUM_TRAVELSEARCH_BOOKING_TOKEN=""):
        assert "not configured" in _test(admin_client, "travelsearch", "booking")


def test_every_other_provider_is_tested_against_its_loopback_server(settings):
    with searxng(Engine([])) as engine:
        assert services.provider_test(area="web", provider="searxng").ok
        assert engine.queries[-1]["q"] == ["test"]
    with brave(Engine([])):
        assert services.provider_test(area="web", provider="brave").ok
        settings.ATRIUM_WEB_BRAVE_KEY = "not-the-key"
        assert "(401)" in services.provider_test(area="web", provider="brave").words
    with duffel() as served:
        assert services.provider_test(area="travel", provider="duffel").ok
        assert served.asked[-1][:2] == ("GET", "/air/airlines")
    with twilio(Twilio()):
        assert services.provider_test(area="dialer", provider="twilio").ok
    with zoom(Zoom()) as served:
        assert services.provider_test(area="meetings", provider="zoom").ok and served.tokens == 1
    settings.ATRIUM_MEETINGS_JITSI_DOMAIN = "meet.example.org"
    settings.ATRIUM_MEETINGS_JITSI_APP_ID, settings.ATRIUM_MEETINGS_JITSI_APP_SECRET = "atrium", "s" * 40
    assert services.provider_test(area="meetings", provider="jitsi").ok
    settings.ATRIUM_MEETINGS_JITSI_APP_SECRET = "short"
    assert "shorter than 32" in services.provider_test(area="meetings", provider="jitsi").words


def test_a_saved_token_is_what_the_next_tool_call_uses_and_reset_gives_the_servers_back(people, admin_client):
    member, session = people["member"], MemorySession()
    with demand() as served, override_settings(ATRIUM_TRAVELSEARCH_BOOKING_TOKEN=""):
        structured(call(member, "getProviderSummary", {}, session=session))
        answer = call(member, "searchProviderProperties", STAY, session=session)
        assert answer["isError"] and "is not configured" in text_of(answer)
        assert "Settings → Integrations" in text_of(answer)

        assert _save(admin_client, BOOKING_TOKEN, TOKEN).status_code == 302
        assert TOKEN not in ProviderSetting.objects.get(name=BOOKING_TOKEN).sealed
        found = structured(call(member, "searchProviderProperties", STAY, session=session))
        assert found["results"]
        assert served.asked[-1][2]["Authorization"] == f"Bearer {TOKEN}"
        assert served.asked[-1][2]["X-Affiliate-Id"] == AFFILIATE

        admin_client.post(reverse("integrations:save"), {"name": BOOKING_TOKEN, "reset": "1"})
        assert call(member, "searchProviderProperties", STAY, session=session)["isError"]
    assert not ProviderSetting.objects.exists()


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        (BOOKING_TOKEN, "   ", "a value is needed"),
        (BOOKING_TOKEN, "two words", "spaces"),
        ("ATRIUM_TRAVELSEARCH_BOOKING_URL", "ftp://demand.example.org", "http(s) address"),
        ("ATRIUM_WEB_SEARXNG_URL", "http://127.0.0.1:8888", "loopback"),
        ("ATRIUM_WEB_SEARXNG_URL", "https://10.0.0.5/", "private"),
        ("ATRIUM_WEB_SEARXNG_URL", "http://metadata.google.internal/", "private host name"),
        ("ATRIUM_WEB_SEARCH_PROVIDER", "bing", "searxng, brave"),
    ],
)
def test_bad_values_are_refused_with_the_reason_and_nothing_is_saved(
    admin_client, settings, name, value, problem
):
    settings.WEBHOOKS_ALLOW_LOOPBACK = False
    said = _said(_save(admin_client, name, value))
    assert "INTEGRATION" not in said and name in said and problem in said and "Nothing was saved" in said
    assert not ProviderSetting.objects.exists()


def test_a_setting_the_page_does_not_offer_is_not_found(admin_client):
    # The server's own paths (the browser's executable) are never a workspace's to change.
    assert _save(admin_client, "ATRIUM_BROWSER_CHROMIUM", "/bin/sh").status_code == 404
    assert not ProviderSetting.objects.exists()
