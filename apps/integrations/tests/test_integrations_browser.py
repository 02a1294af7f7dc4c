"""Settings → Integrations in a real browser (Debian's Chromium through Playwright), against the
live server, at laptop and phone width with axe-core: an administrator gives the workspace's own
Booking.com Demand API credentials pointing at a loopback Demand API, is refused a bad address,
tests the connection, and never sees the token again. In Globex, so that what it commits touches
none of the other tests (they run in Acme)."""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from django_tenants.utils import schema_context

from apps.travelsearch.tests.servers import AFFILIATE, TOKEN, Demand, serving
from tests.test_browser_layout import LAPTOP, PHONE, problems, sign_in

pytestmark = pytest.mark.live

URL = "ATRIUM_TRAVELSEARCH_BOOKING_URL"


@contextmanager
def in_globex() -> Iterator[None]:
    try:
        with schema_context("globex"):
            yield
    finally:
        connection.close()


def _save(page, name: str, value: str) -> None:  # type: ignore[no-untyped-def]
    row = page.locator(f"#setting-{name}")
    row.locator("input[name=value]").fill(value)
    with page.expect_navigation():
        row.get_by_role("button", name="Save").click()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_an_administrator_sets_and_tests_the_travel_search_credentials(page, live_http, committed, viewport):
    from apps.integrations.models import ProviderSetting

    server = live_http.url("127.0.0.2")
    with serving(Demand()) as demand:
        try:
            page.set_viewport_size(viewport)
            sign_in(page, server, "owner@globex.example")
            page.goto(f"{server}/settings/integrations/")
            for title in ("Web browser", "Browser tab", "Flights and stays", "Dialer", "Video meetings"):
                assert title in page.inner_text("main")
            assert problems(page) == []

            _save(page, URL, "ftp://demand.example.org")
            assert "http(s) address" in page.get_by_role("status").inner_text()
            assert problems(page) == []

            _save(page, URL, demand.url)
            _save(page, "ATRIUM_TRAVELSEARCH_BOOKING_AFFILIATE_ID", AFFILIATE)
            # A secret's field is found by its label, as a person (or a screen reader) finds it.
            page.get_by_test_id("integration-travelsearch").get_by_label("New value of API token").fill(TOKEN)
            with page.expect_navigation():
                page.locator("#setting-ATRIUM_TRAVELSEARCH_BOOKING_TOKEN").get_by_role(
                    "button", name="Save"
                ).click()
            section = page.get_by_test_id("integration-travelsearch")
            assert "Set up: booking.com" in section.inner_text() and "…eron" in section.inner_text()
            assert TOKEN not in page.content()

            with page.expect_navigation():
                section.get_by_role("button", name="Test connection: Booking.com Demand API").click()
            assert "ok (" in page.get_by_role("status").inner_text()
            assert demand.paths() == ["/common/locations/countries"]
            assert problems(page) == []
        finally:
            with in_globex():
                ProviderSetting.objects.all().delete()
