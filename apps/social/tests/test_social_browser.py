"""The Social accounts settings page in a real browser (Debian's Chromium through Playwright),
against the live server, at laptop and phone width with axe-core: an administrator connects a
Mastodon account served on loopback, sees it, and disconnects it. In Globex, so that what it
commits touches none of the other tests (they run in Acme)."""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from django_tenants.utils import schema_context

from apps.social.tests import servers
from tests.test_browser_layout import LAPTOP, PHONE, problems, sign_in

pytestmark = pytest.mark.live


@contextmanager
def in_globex() -> Iterator[None]:
    try:
        with schema_context("globex"):
            yield
    finally:
        connection.close()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_an_administrator_connects_and_disconnects_a_mastodon_account(page, live_http, committed, viewport):
    from apps.social.models import SocialAccount

    server = live_http.url("127.0.0.2")
    with servers.mastodon() as mastodon:
        try:
            page.set_viewport_size(viewport)
            sign_in(page, server, "owner@globex.example")
            page.goto(f"{server}/settings/social/")
            assert "No social account is connected" in page.inner_text("main")
            assert problems(page) == []

            page.get_by_label("Network").select_option("mastodon")
            page.get_by_label("Server").fill(mastodon.url)
            page.get_by_label("Access token or app password").fill("wrong-token")
            page.get_by_role("button", name="Connect").click()
            assert "HTTP 401" in page.inner_text("main")
            assert problems(page) == []

            page.get_by_label("Access token or app password").fill(servers.MASTODON_TOKEN)
            page.get_by_role("button", name="Connect").click()
            page.wait_for_url("**/settings/social/")
            accounts = page.get_by_test_id("accounts")
            assert "@acme@127.0.0.1" in accounts.inner_text()
            assert servers.MASTODON_TOKEN not in page.content()
            assert "is connected" in page.get_by_role("status").inner_text()
            assert problems(page) == []

            page.once("dialog", lambda dialog: dialog.accept())
            accounts.get_by_role("button", name="Disconnect").click()
            page.wait_for_url("**/settings/social/")
            assert "No social account is connected" in page.inner_text("main")
            with in_globex():
                assert not SocialAccount.objects.filter(disconnected_at__isnull=True).exists()
        finally:
            with in_globex():
                SocialAccount.objects.all().delete()
