"""The "Connected apps" settings page, and disconnecting an app over real HTTP."""

import httpx
import pytest
from django_tenants.utils import schema_context

from apps.core.errors import Unauthenticated
from apps.oauth.models import Connection
from apps.oauth.tests.oauth_client import sign_in


@pytest.mark.live
def test_an_app_that_obtained_a_token_is_listed_with_its_scopes_and_can_be_disconnected(
    public_client, acme_url, at_mcp
):
    body = public_client.obtain(email="admin@acme.example", scope="mcp:read offline_access")
    at_mcp(body["access_token"], acme_url)

    with httpx.Client(base_url=acme_url, follow_redirects=False, timeout=10) as person:
        sign_in(person, "admin@acme.example")
        page = person.get("/settings/connected-apps/")
        with schema_context("acme"):
            entry = Connection.objects.get(application__client_id=public_client.client_id)
        disconnected = person.post(
            f"/settings/connected-apps/{entry.pk}/disconnect/",
            data={"csrfmiddlewaretoken": person.cookies["atrium_csrf"]},
        )
        after = person.get("/settings/connected-apps/")

    assert page.status_code == 200
    assert "Public test client" in page.text
    assert "Read your workspace&#x27;s data (read-only tools)" in page.text
    assert "Stay connected while you are away" in page.text
    assert disconnected.status_code == 302
    assert "Public test client is disconnected; its access ended now." in after.text
    # Only this connection went (the person may have others that other modules' tests made).
    assert f"/settings/connected-apps/{entry.pk}/disconnect/" not in after.text
    with pytest.raises(Unauthenticated):
        at_mcp(body["access_token"], acme_url)
    assert public_client.refresh(body["refresh_token"]).json()["error"] == "invalid_grant"
    # Connecting again works, and lists it again.
    again = public_client.obtain(email="admin@acme.example", scope="mcp")
    assert at_mcp(again["access_token"], acme_url).user.email == "admin@acme.example"


@pytest.mark.live
def test_nobody_can_disconnect_someone_elses_app(public_client, acme_url, at_mcp, committed):
    body = public_client.obtain(email="member@acme.example", scope="mcp")
    with schema_context("acme"):
        entry = Connection.objects.get(
            application__client_id=public_client.client_id, user__email="member@acme.example"
        )

    with httpx.Client(base_url=acme_url, follow_redirects=False, timeout=10) as owner:
        sign_in(owner, "owner@acme.example")
        listed = owner.get("/settings/connected-apps/")
        attempt = owner.post(
            f"/settings/connected-apps/{entry.pk}/disconnect/",
            data={"csrfmiddlewaretoken": owner.cookies["atrium_csrf"]},
        )

    assert "Public test client" not in listed.text
    assert attempt.status_code == 404
    assert at_mcp(body["access_token"], acme_url) is not None


def test_the_page_is_in_the_settings_navigation_and_needs_a_person(acme_client, acme):
    from apps.accounts.models import Role, User

    assert acme_client.get("/settings/connected-apps/").status_code == 302
    # Someone who never connected an app (the demo people may have, in other modules' tests).
    newcomer = User.objects.create_user(
        email="connected-apps-new@acme.example", role=Role.objects.get(key="viewer")
    )

    acme_client.force_login(newcomer)
    page = acme_client.get("/settings/connected-apps/")

    assert page.status_code == 200
    assert '<a href="/settings/connected-apps/" aria-current="page">Connected apps</a>' in page.text
    assert "No apps are connected." in page.text


def test_disconnecting_takes_a_post(acme_client, people):
    acme_client.force_login(people["viewer"])

    assert acme_client.get("/settings/connected-apps/1/disconnect/").status_code == 405
