"""A person changes their password on the settings page and signs in with the new one, in a real
browser (Debian's Chromium through Playwright) against the live server."""

import secrets
from collections.abc import Iterator

import pytest
from django.db import connection
from django_tenants.utils import schema_context

pytestmark = pytest.mark.live

OLD = "first-lantern-harbour-7"
NEW = "second-quiet-meadow-42"


@pytest.fixture
def person(committed) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """A member of Acme, committed so that the server's process sees them; removed afterwards."""
    from apps.accounts.models import Role, User

    email = f"browser-{secrets.token_hex(4)}@acme.example"
    try:
        with schema_context("acme"):
            User.objects.create_user(email=email, password=OLD, role=Role.objects.get(key="member"))
        yield email
    finally:
        with schema_context("acme"):
            User.objects.filter(email=email).delete()
        connection.close()


def sign_in(page, server, email: str, password: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url()}/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("button", name="Sign in").click()


def test_a_person_changes_their_password_and_signs_in_with_the_new_one(page, live_http, person):
    sign_in(page, live_http, person, OLD)
    page.wait_for_url("**/settings/")

    page.get_by_role("link", name="Change password").click()
    page.wait_for_url("**/settings/password/")
    # A mistake first: the page says what is wrong, and nothing changes.
    page.get_by_label("Current password").fill("not-the-password")
    page.get_by_label("New password", exact=True).fill(NEW)
    page.get_by_label("New password again").fill(NEW)
    page.get_by_role("button", name="Change password").click()
    assert "Your old password was entered incorrectly" in page.get_by_role("alert").first.inner_text()

    page.get_by_label("Current password").fill(OLD)
    page.get_by_label("New password", exact=True).fill(NEW)
    page.get_by_label("New password again").fill(NEW)
    page.get_by_role("button", name="Change password").click()
    page.wait_for_url("**/settings/password/")
    assert page.get_by_role("status").inner_text() == "Your password has been changed."
    # Still signed in here.
    page.goto(f"{live_http.url()}/settings/")
    assert page.locator(".who").inner_text().startswith(person)

    page.get_by_role("button", name="Sign out").click()
    sign_in(page, live_http, person, OLD)
    assert page.get_by_role("alert").inner_text() == "The email or password is not right."
    sign_in(page, live_http, person, NEW)
    page.wait_for_url("**/settings/")
    assert page.locator(".who").inner_text().startswith(person)
