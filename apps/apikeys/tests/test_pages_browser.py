"""The API-key and agent-connection screens in a real browser (Debian's Chromium through
Playwright), against the live server."""

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from django_tenants.utils import schema_context

from apps.apikeys.authentication import authenticate_token_and_key
from apps.apikeys.errors import KeyRevoked
from apps.apikeys.models import ApiKey
from apps.catalogue import profiles

pytestmark = pytest.mark.live

SCREENSHOTS = os.environ.get("ATRIUM_SCREENSHOTS")  # a folder: save what the pages look like


def sign_in(page, server, email: str, host: str = "127.0.0.1") -> None:
    page.goto(f"{server.url(host)}/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("atrium-demo")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/settings/")


def snapshot(page, name: str) -> None:
    if SCREENSHOTS:
        page.screenshot(path=os.path.join(SCREENSHOTS, f"{name}.png"), full_page=True)


@contextmanager
def in_acme() -> Iterator[None]:
    """Database work inside a browser test. While Playwright's event loop runs in this thread,
    Django keeps this code's connection apart from the test's usual one: close it when done, or
    it outlives the test database."""
    try:
        with schema_context("acme"):
            yield
    finally:
        connection.close()


def new_token(email: str) -> str:
    from apps.accounts.models import User
    from apps.accounts.services import access_token_create

    with in_acme():
        return access_token_create(user=User.objects.get(email=email), name="browser check")[1]


def test_a_person_creates_a_key_sees_it_once_copies_it_and_revokes_it(page, live_http, committed):
    sign_in(page, live_http, "member@acme.example")
    page.get_by_role("link", name="API keys").click()
    page.get_by_label("Label").fill("Browser key")
    page.get_by_label("Budget (USD)").fill("5")
    page.get_by_label("Budget period").select_option("daily")
    page.get_by_role("button", name="Create key").click()

    key = page.get_by_test_id("new-key").inner_text()
    secret = page.get_by_test_id("new-secret").inner_text()
    assert key.startswith("atr_") and secret.startswith("atw_")
    assert "shown only once" in page.get_by_test_id("created-key").inner_text()
    page.get_by_role("button", name="Copy the API key").click()
    assert page.evaluate("navigator.clipboard.readText()") == key
    page.get_by_role("button", name="Copy the signing secret").click()
    assert page.evaluate("navigator.clipboard.readText()") == secret
    snapshot(page, "api-keys-created")
    # The form's answer was a redirect: a reload shows the page again, makes no second key, and
    # the secrets are gone.
    assert page.url == f"{live_http.url()}/settings/api-keys/"
    page.reload()
    assert page.locator("tr", has_text="Browser key").count() == 1
    assert key not in page.content() and secret not in page.content()

    # The key works with one of the person's tokens...
    token = new_token("member@acme.example")
    with in_acme():
        assert (
            authenticate_token_and_key(authorization=f"Bearer {token}", api_key=key).key.label
            == "Browser key"
        )

    # ...is never shown again...
    page.goto(f"{live_http.url()}/settings/api-keys/")
    assert key not in page.content() and secret not in page.content()
    row = page.locator("tr", has_text="Browser key")
    assert f"atr_…{key[-4:]}" in row.inner_text()
    assert "$5.00 per day" in row.inner_text()

    # ...and once revoked (after a confirmation) it is refused.
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Revoke").click()
    page.wait_for_selector("text=revoked.")
    # Out of the way of the active keys, under its own tab.
    assert page.locator("tr", has_text="Browser key").count() == 0
    page.get_by_test_id("tab-revoked").click()
    assert page.locator("tr", has_text="Browser key").locator(".badge").inner_text() == "revoked"
    with in_acme(), pytest.raises(KeyRevoked):
        authenticate_token_and_key(authorization=f"Bearer {token}", api_key=key)


def test_a_refused_form_brings_its_error_into_view_with_the_field_focused(page, live_http, committed):
    page.set_viewport_size({"width": 390, "height": 640})
    sign_in(page, live_http, "viewer@acme.example")
    page.goto(f"{live_http.url()}/settings/api-keys/")
    page.get_by_label("Label").fill("Refused key")
    page.get_by_label("Budget (USD)").fill("-5")
    page.get_by_role("button", name="Create key").click()

    budget = page.get_by_label("Budget (USD)")
    assert budget.get_attribute("aria-invalid") == "true"
    assert "cannot be negative" in page.get_by_role("alert").first.inner_text()
    assert budget.evaluate("field => field === document.activeElement")
    top, bottom = budget.evaluate(
        "field => [field.getBoundingClientRect().top, field.getBoundingClientRect().bottom]"
    )
    assert top >= 0 and bottom <= 640


def test_dismissing_the_confirmation_keeps_the_key(page, live_http, committed):
    sign_in(page, live_http, "viewer@acme.example")
    page.get_by_role("link", name="API keys").click()
    page.get_by_label("Label").fill("Kept key")
    page.get_by_role("button", name="Create key").click()
    page.goto(f"{live_http.url()}/settings/api-keys/")

    page.once("dialog", lambda dialog: dialog.dismiss())
    page.locator("tr", has_text="Kept key").get_by_role("button", name="Revoke").click()

    page.wait_for_timeout(300)
    assert page.locator("tr", has_text="Kept key").locator(".badge").inner_text() == "active"


def test_a_person_edits_the_budget_and_webhook_and_rolls_the_secret(page, live_http, committed):
    sign_in(page, live_http, "admin@acme.example")
    page.get_by_role("link", name="API keys").click()
    page.get_by_label("Label").fill("Edited key")
    page.get_by_role("button", name="Create key").click()
    old_secret = page.get_by_test_id("new-secret").inner_text()
    page.get_by_role("link", name="Edited key").click()

    page.get_by_label("Webhook URL").fill("https://10.0.0.7/hook")
    page.get_by_role("button", name="Save").click()
    assert "private" in page.get_by_role("alert").first.inner_text()

    page.get_by_label("Webhook URL").fill("http://127.0.0.1:9/hook")
    page.get_by_label("Budget (USD)").fill("12.50")
    page.get_by_label("Budget period").select_option("monthly")
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=saved.")
    facts = page.locator("dl.facts").inner_text()
    assert "http://127.0.0.1:9/hook" in facts and "$12.50 per month" in facts

    page.get_by_label("Keep the old secret valid for").select_option("1")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Roll secret").click()
    new_secret = page.get_by_test_id("rolled-secret").inner_text()
    assert new_secret.startswith("atw_") and new_secret != old_secret
    assert "X-Signature-Previous" in page.content()
    snapshot(page, "api-key-detail")
    page.reload()  # shown once: a reload neither shows it again nor rolls again
    assert new_secret not in page.content() and page.get_by_test_id("rolled-secret").count() == 0


def test_on_a_phone_a_person_renames_a_key_and_reads_its_usage_chart(page, live_http, committed):
    refused: list[str] = []
    page.on(
        "console",
        lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None,
    )
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, live_http, "viewer@acme.example")
    page.goto(f"{live_http.url()}/settings/api-keys/")
    page.get_by_label("Label").fill("Phone key")
    page.get_by_role("button", name="Create key").click()
    page.get_by_role("link", name="Phone key").click()

    page.get_by_label("Rename to").fill("Pocket key")
    page.get_by_role("button", name="Rename").click()

    page.wait_for_selector("text=Key renamed “Pocket key”.")
    assert page.locator("h1").inner_text().startswith("Pocket key")
    chart = page.get_by_test_id("usage-chart").locator("svg")
    # Drawn to the width of its column, smaller than its 600 units (the column itself is the
    # layout's: on a phone its tables may still widen it).
    width, column = chart.evaluate(
        "svg => [svg.getBoundingClientRect().width, svg.closest('main').clientWidth]"
    )
    assert 0 < width <= column and width < 600
    assert chart.locator("rect.bar").count() == 60
    # Coloured by the stylesheet, not by attributes in the page: the policy refuses nothing.
    fill = chart.locator("line.axis").first.evaluate("line => getComputedStyle(line).stroke")
    assert fill not in ("", "none")
    assert page.get_by_role("img", name="Use of this key over the last 30 days").count() == 1
    assert refused == []
    snapshot(page, "api-key-usage-phone")


def test_a_person_copies_a_ready_configuration_for_an_editor(page, live_http, committed):
    sign_in(page, live_http, "member@acme.example")
    page.get_by_role("link", name="Agent connection").click()
    mcp_url = f"{live_http.url()}/api/mcp"
    assert page.get_by_test_id("mcp-url").inner_text() == mcp_url
    assert "need only the MCP URL" in page.content()
    page.get_by_role("button", name="Copy the MCP URL").click()
    assert page.evaluate("navigator.clipboard.readText()") == mcp_url

    page.get_by_label("Client").select_option("editor")
    page.get_by_role("button", name="Create configuration").click()
    page.get_by_role("button", name="Copy the configuration").click()
    copied = json.loads(page.evaluate("navigator.clipboard.readText()"))
    snapshot(page, "agent-connection")

    server = copied["mcp"]["servers"]["Acme Workspace"]
    assert server["type"] == "http" and server["url"] == mcp_url
    with in_acme():
        credential = authenticate_token_and_key(
            authorization=server["headers"]["Authorization"], api_key=server["headers"]["X-Api-Key"]
        )
    assert credential.user.email == "member@acme.example"
    assert "settings as JSON" in page.get_by_test_id("configuration").locator("ol").inner_text()
    assert page.get_by_label("Client").input_value() == "editor"
    # A reload mints no second token and key, and shows the configuration no more.
    with in_acme():
        keys = ApiKey.objects.filter(user__email="member@acme.example").count()
    page.reload()
    assert page.get_by_test_id("configuration").count() == 0
    with in_acme():
        assert ApiKey.objects.filter(user__email="member@acme.example").count() == keys

    # A client with a command line gets it to copy; Cursor gets the profile that suits it.
    page.get_by_label("Client").select_option("claude-code")
    page.get_by_role("button", name="Create configuration").click()
    page.get_by_role("button", name="Copy the command").click()
    assert page.evaluate("navigator.clipboard.readText()").startswith("claude mcp add --transport http ")
    page.get_by_label("Client").select_option("cursor")
    page.get_by_role("button", name="Create configuration").click()
    essentials = profiles.get("essentials")
    assert essentials is not None
    assert f"tool profile: {essentials.choice}" in page.get_by_test_id("configuration").inner_text()
    copied = json.loads(page.get_by_test_id("config").inner_text())
    assert copied["mcpServers"]["Acme Workspace"]["url"] == f"{mcp_url}?profile=essentials"
    snapshot(page, "agent-connection-cursor")
