"""Real HTTP on loopback, through uvicorn and the ASGI stack: the two demo hosts."""

import pytest
from django_tenants.utils import schema_context

pytestmark = pytest.mark.live


def test_each_loopback_address_serves_its_own_workspace(live_http):
    acme = live_http.client("127.0.0.1").get("/")
    globex = live_http.client("127.0.0.2").get("/")

    assert "<h1>Acme Workspace</h1>" in acme.text
    assert "<h1>Globex Hub</h1>" in globex.text
    assert live_http.client().get("/readyz").json()["status"] == "ok"


def test_a_token_works_on_its_workspace_and_nowhere_else(live_http, committed):
    from apps.accounts.models import User
    from apps.accounts.services import access_token_create

    with schema_context("acme"):
        _token, raw = access_token_create(user=User.objects.get(email="member@acme.example"), name="live")
    headers = {"Authorization": f"Bearer {raw}"}

    home = live_http.client("127.0.0.1").get("/api/me", headers=headers)
    away = live_http.client("127.0.0.2").get("/api/me", headers=headers)

    assert home.status_code == 200 and home.json()["email"] == "member@acme.example"
    assert away.status_code == 401
    assert away.json() == {
        "error": {"code": "UNAUTHENTICATED", "message": "Access token missing or invalid."}
    }


def test_signing_in_over_real_http(live_http):
    with live_http.client("127.0.0.2", follow_redirects=False) as client:
        client.get("/accounts/sign-in/")
        response = client.post(
            "/accounts/sign-in/",
            data={
                "username": "viewer@globex.example",
                "password": "atrium-demo",
                "csrfmiddlewaretoken": client.cookies["atrium_csrf"],
            },
            headers={"Referer": f"{live_http.url('127.0.0.2')}/accounts/sign-in/"},
        )
        assert response.status_code == 302
        assert "viewer@globex.example" in client.get("/settings/").text


def test_a_404_page_does_not_sign_the_person_out(live_http):
    """Django renders a resolver 404 in another thread under ASGI; the page must still read the
    session from the workspace's schema, or the session cookie is deleted."""
    with live_http.client("127.0.0.1", follow_redirects=False) as client:
        client.get("/accounts/sign-in/")
        client.post(
            "/accounts/sign-in/",
            data={
                "username": "admin@acme.example",
                "password": "atrium-demo",
                "csrfmiddlewaretoken": client.cookies["atrium_csrf"],
            },
        )
        missing = client.get("/settings/no-such-page/")

        assert missing.status_code == 404
        assert "atrium_session" not in missing.headers.get("set-cookie", "")
        assert client.get("/settings/").status_code == 200
