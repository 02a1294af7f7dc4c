"""Every form of the settings pages that creates something answers with a redirect
(post/redirect/get): in a real browser, each is submitted, the page reloaded, and what it created
exists exactly once; a secret it made is shown once, and gone on the next load."""

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection
from django_tenants.utils import schema_context

pytestmark = pytest.mark.live


def sign_in(page, server, email: str) -> None:
    page.goto(f"{server.url('127.0.0.1')}/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("atrium-demo")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/settings/")


@contextmanager
def in_acme() -> Iterator[None]:
    """Database work inside a browser test (Playwright's event loop runs in this thread: the
    connection is closed when done, or it outlives the test database)."""
    try:
        with schema_context("acme"):
            yield
    finally:
        connection.close()


def count(model: Any, **filters: Any) -> int:
    with in_acme():
        return model.objects.filter(**filters).count()


def unique(prefix: str) -> str:
    return f"{prefix} {uuid.uuid4().hex[:8]}"


def submitted_then_reloaded(page, server, path: str) -> None:
    """After a form's submission: the browser was sent on to `path` with a GET (a reload does not
    post again), and is reloaded there."""
    assert page.url == f"{server.url()}{path}"
    page.reload()
    assert page.url == f"{server.url()}{path}"


def test_an_access_token_is_made_once_and_shown_once(page, live_http, committed):
    from apps.accounts.models import PersonalAccessToken

    name = unique("Reloaded token")
    sign_in(page, live_http, "member@acme.example")
    page.goto(f"{live_http.url()}/settings/tokens/")
    page.get_by_label("Name").fill(name)
    page.get_by_role("button", name="Create token").click()
    raw = page.get_by_test_id("new-token").inner_text()
    assert raw.startswith("atp_")

    submitted_then_reloaded(page, live_http, "/settings/tokens/")

    assert count(PersonalAccessToken, name=name) == 1
    assert page.locator("tr", has_text=name).count() == 1
    assert raw not in page.content() and page.get_by_test_id("new-token").count() == 0


def test_a_person_is_added_once(page, live_http, committed):
    from apps.accounts.models import User

    email = f"{uuid.uuid4().hex[:10]}@reload.example"
    sign_in(page, live_http, "owner@acme.example")
    page.goto(f"{live_http.url()}/settings/people/")
    form = page.locator("form.stack")
    form.get_by_label("Email").fill(email)
    form.get_by_label("Role").select_option(label="Viewer")
    form.get_by_label("Initial password").fill(f"Reload-{uuid.uuid4().hex}")
    form.get_by_role("button", name="Add").click()
    page.wait_for_selector(f"text={email} added.")

    submitted_then_reloaded(page, live_http, "/settings/people/")

    assert count(User, email=email) == 1
    assert page.locator("tr", has_text=email).count() == 1


def test_a_role_is_created_once(page, live_http, committed):
    from apps.accounts.models import Role

    name = unique("Reload role")
    sign_in(page, live_http, "owner@acme.example")
    page.goto(f"{live_http.url()}/settings/roles/")
    form = page.locator("form.stack")
    form.get_by_role("textbox", name="Name", exact=True).fill(name)
    form.get_by_role("button", name="Create role").click()
    page.wait_for_selector(f"text={name}")

    submitted_then_reloaded(page, live_http, "/settings/roles/")

    assert count(Role, name=name) == 1
    assert page.locator("tr", has_text=name).count() == 1


def test_an_api_key_is_made_once_and_its_secrets_shown_once(page, live_http, committed):
    from apps.apikeys.models import ApiKey

    label = unique("Reload key")
    sign_in(page, live_http, "member@acme.example")
    page.goto(f"{live_http.url()}/settings/api-keys/")
    page.get_by_label("Label").fill(label)
    page.get_by_role("button", name="Create key").click()
    key = page.get_by_test_id("new-key").inner_text()
    secret = page.get_by_test_id("new-secret").inner_text()

    submitted_then_reloaded(page, live_http, "/settings/api-keys/")

    assert count(ApiKey, label=label) == 1
    assert page.locator("tr", has_text=label).count() == 1
    assert key not in page.content() and secret not in page.content()


def test_a_rolled_signing_secret_is_rolled_once_and_shown_once(page, live_http, committed):
    from apps.apikeys.models import ApiKey

    label = unique("Rolled key")
    sign_in(page, live_http, "member@acme.example")
    page.goto(f"{live_http.url()}/settings/api-keys/")
    page.get_by_label("Label").fill(label)
    page.get_by_role("button", name="Create key").click()
    page.get_by_role("link", name=label).click()
    with in_acme():
        key = ApiKey.objects.get(label=label)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Roll secret").click()
    secret = page.get_by_test_id("rolled-secret").inner_text()
    with in_acme():
        rolled_at = ApiKey.objects.get(pk=key.pk).signing_secret_rolled_at
    assert secret.startswith("atw_") and rolled_at is not None

    submitted_then_reloaded(page, live_http, f"/settings/api-keys/{key.pk}/")

    with in_acme():
        assert ApiKey.objects.get(pk=key.pk).signing_secret_rolled_at == rolled_at  # not rolled again
    assert secret not in page.content() and page.get_by_test_id("rolled-secret").count() == 0


def test_an_agent_connection_makes_one_token_and_key_and_shows_them_once(page, live_http, committed):
    from apps.accounts.models import PersonalAccessToken
    from apps.apikeys.models import ApiKey

    email = "viewer@acme.example"
    keys, tokens = count(ApiKey, user__email=email), count(PersonalAccessToken, user__email=email)
    sign_in(page, live_http, email)
    page.goto(f"{live_http.url()}/settings/agent-connection/")
    page.get_by_label("Client").select_option("editor")
    page.get_by_role("button", name="Create configuration").click()
    configuration = page.get_by_test_id("config").inner_text()
    assert "atr_" in configuration and "atp_" in configuration

    submitted_then_reloaded(page, live_http, "/settings/agent-connection/")

    assert count(ApiKey, user__email=email) == keys + 1
    assert count(PersonalAccessToken, user__email=email) == tokens + 1
    assert page.get_by_test_id("configuration").count() == 0 and configuration not in page.content()
