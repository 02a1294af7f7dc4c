import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_tenants.utils import schema_context

from apps.accounts.models import PersonalAccessToken
from apps.accounts.services import access_token_create, access_token_revoke
from apps.core import secrets
from apps.core.errors import Forbidden

pytestmark = pytest.mark.django_db


def me(client, token):
    return client.get("/api/me", HTTP_AUTHORIZATION=f"Bearer {token}")


def test_a_token_identifies_its_person_on_the_json_api(acme_client, people):
    _token, raw = access_token_create(user=people["viewer"], name="script")

    response = me(acme_client, raw)

    assert response.status_code == 200
    assert response.json()["email"] == "viewer@acme.example"
    assert response.json()["role"] == {"key": "viewer", "name": "Viewer"}
    assert response.json()["workspace"] == {"name": "Acme", "brand_name": "Acme Workspace"}


def test_tokens_have_the_fixed_prefix_a_checksum_and_are_stored_only_as_a_digest(people):
    token, raw = access_token_create(user=people["viewer"], name="script")

    assert raw.startswith("atp_") and secrets.is_well_formed(raw, "atp")
    stored = PersonalAccessToken.objects.filter(pk=token.pk).values().get()
    assert raw not in {str(value) for value in stored.values()}
    assert stored["digest"] == secrets.digest(raw)
    assert stored["last_four"] == raw[-4:]
    assert token.expires_at - token.created_at == pytest.approx(timedelta(days=90), abs=timedelta(seconds=5))


def test_an_acme_token_is_refused_at_globex(globex_client, people):
    _token, raw = access_token_create(user=people["owner"], name="script")

    response = me(globex_client, raw)

    assert response.status_code == 401
    assert response.json() == {
        "error": {"code": "UNAUTHENTICATED", "message": "Access token missing or invalid."}
    }


def test_an_expired_token_is_refused(acme_client, people):
    token, raw = access_token_create(user=people["owner"], name="old")
    PersonalAccessToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))

    response = me(acme_client, raw)

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHENTICATED"
    assert "expired" in response.json()["error"]["message"]


def test_a_revoked_token_is_refused_at_once(acme_client, people):
    token, raw = access_token_create(user=people["owner"], name="soon gone")
    assert me(acme_client, raw).status_code == 200

    access_token_revoke(actor=people["owner"], token=token)

    response = me(acme_client, raw)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHENTICATED"


def test_nobody_revokes_someone_elses_token(people):
    token, _raw = access_token_create(user=people["member"], name="mine")

    with pytest.raises(Forbidden):
        access_token_revoke(actor=people["owner"], token=token)


@pytest.mark.parametrize(
    "header",
    ["Bearer atp_123", "Bearer " + "atp_" + "a" * 36, "Token abc", "Bearer", "Basic dXNlcjpwYXNz"],
)
def test_malformed_credentials_get_401_in_the_error_format(acme_client, header):
    response = acme_client.get("/api/me", HTTP_AUTHORIZATION=header)

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHENTICATED"
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_deactivated_persons_tokens_stop_working(acme_client, people):
    from apps.accounts.services import user_set_active

    _token, raw = access_token_create(user=people["member"], name="script")

    user_set_active(actor=people["owner"], user=people["member"], active=False)

    assert me(acme_client, raw).status_code == 401


def test_use_is_recorded(acme_client, people):
    token, raw = access_token_create(user=people["member"], name="script")

    me(acme_client, raw)

    token.refresh_from_db()
    assert token.last_used_at is not None


def test_use_is_written_again_only_once_the_last_written_is_five_minutes_old(acme_client, people):
    token, raw = access_token_create(user=people["member"], name="script")
    me(acme_client, raw)
    token.refresh_from_db()
    first = token.last_used_at
    assert first is not None

    PersonalAccessToken.objects.filter(pk=token.pk).update(last_used_at=first - timedelta(minutes=4))
    me(acme_client, raw)
    token.refresh_from_db()
    assert token.last_used_at == first - timedelta(minutes=4)  # not written: used within 5 minutes

    PersonalAccessToken.objects.filter(pk=token.pk).update(last_used_at=first - timedelta(minutes=6))
    me(acme_client, raw)
    token.refresh_from_db()
    assert token.last_used_at > first - timedelta(seconds=1)


def test_the_command_prints_the_token_alone(capsys):
    call_command("create_access_token", "--workspace", "acme", "--email", "admin@acme.example")

    out = capsys.readouterr().out
    assert re.fullmatch(r"atp_[0-9A-Za-z]{36}\n", out)
    with schema_context("acme"):
        assert PersonalAccessToken.objects.filter(digest=secrets.digest(out.strip())).exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workspace", "nowhere", "--email", "a@b.c"], "No workspace"),
        (["--workspace", "public", "--email", "operator@atrium.example"], "No workspace"),
        (["--workspace", "acme", "--email", "ghost@acme.example"], "No active person"),
    ],
)
def test_the_command_refuses_unknown_workspaces_and_people(args, message):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match=message):
        call_command("create_access_token", *args)


def test_the_settings_page_shows_a_new_token_once_and_revokes_it(acme_client, people):
    acme_client.force_login(people["member"])

    posted = acme_client.post("/settings/tokens/", {"name": "Claude Desktop"})

    # Post/redirect/get: the page the form redirects to shows the token, once.
    assert posted.status_code == 302 and posted["Location"] == "/settings/tokens/"
    created = acme_client.get("/settings/tokens/")
    body = created.content.decode()
    raw = re.search(r'data-testid="new-token">(atp_[0-9A-Za-z]+)<', body).group(1)
    assert "shown only once" in body
    assert created["Cache-Control"] == "no-store"
    assert PersonalAccessToken.objects.filter(user=people["member"], name="Claude Desktop").count() == 1
    assert me(acme_client, raw).status_code == 200
    listing = acme_client.get("/settings/tokens/").content.decode()
    assert raw not in listing and f"atp_…{raw[-4:]}" in listing

    token = PersonalAccessToken.objects.get(name="Claude Desktop")
    acme_client.post(f"/settings/tokens/{token.pk}/revoke/")

    assert me(acme_client, raw).status_code == 401


def test_a_token_needs_a_name(acme_client, people):
    acme_client.force_login(people["member"])

    response = acme_client.post("/settings/tokens/", {"name": ""})

    assert "This field is required." in response.content.decode()
    assert not PersonalAccessToken.objects.filter(user=people["member"]).exists()


def test_nobody_revokes_someone_elses_token_through_the_page(acme_client, people):
    token, _raw = access_token_create(user=people["member"], name="mine")
    acme_client.force_login(people["owner"])

    response = acme_client.post(f"/settings/tokens/{token.pk}/revoke/")

    assert response.status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None
