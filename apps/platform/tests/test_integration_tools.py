"""Integrations through the real dispatcher and the workspace's callback page, against an OAuth 2.0
server on loopback (apps/platform/tests/servers.py): the authorization URL with PKCE, the callback
completing it once for its person alone before it expires, tokens kept encrypted, refreshed when
expired, revoked (RFC 7009) and deleted on disconnecting; a provider with no client id says so."""

import json
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from apps.catalogue import dispatch
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import confirmed, context_for, ok, refused, structured
from apps.core import encryption
from apps.platform import connections
from apps.platform.errors import IntegrationRefused
from apps.platform.models import IntegrationConnection, IntegrationGrant

from .servers import OAuthServer

CLIENT_ID, CLIENT_SECRET = "atrium-test-client", "client-secret-42"


@pytest.fixture
def oauth(settings):
    server = OAuthServer(client_id=CLIENT_ID, client_secret=CLIENT_SECRET).start()
    settings.ATRIUM_INTEGRATIONS = {
        "google": {
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "authorize_url": f"{server.url}/authorize",
            "token_url": f"{server.url}/token",
            "revoke_url": f"{server.url}/revoke",
        }
    }
    yield server
    server.stop()


def _connect(user, provider="google"):
    ctx = context_for(user, capabilities={"elicitation": {}}, elicit=confirmed)
    return structured(dispatch.call_tool(ctx, "connectIntegration", {"provider": provider}))


def _back(client, redirect):
    """The browser arriving back at the workspace's callback page."""
    parts = urlsplit(redirect)
    return client.get(f"{parts.path}?{parts.query}")


def test_integrations_are_found_by_tag_and_say_whether_they_can_be_connected(people, oauth):
    accounting = ok(people["viewer"], "findIntegrationsByTag", {"tag": "Accounting"})["integrations"]
    everything = ok(people["viewer"], "findIntegrationsByTag")["integrations"]

    assert [entry["key"] for entry in accounting] == ["xero", "quickbooks"]
    assert all(entry["available"] is False and entry["connected"] is False for entry in accounting)
    google = next(entry for entry in everything if entry["key"] == "google")
    assert google["available"] is True and "calendar" in google["tags"]


def test_a_provider_without_a_client_id_says_so_plainly_and_nothing_is_kept(people):
    ctx = context_for(people["member"], capabilities={"elicitation": {}}, elicit=confirmed)
    result = dispatch.call_tool(ctx, "connectIntegration", {"provider": "xero"})

    assert result["isError"] and "no OAuth client id" in result["content"][0]["text"]
    assert "is not an integration here" in refused(
        people["member"],
        "connectIntegration",
        {"provider": "myspace"},
        capabilities={"elicitation": {}},
        elicit=confirmed,
    )
    assert IntegrationGrant.objects.count() == 0


def test_connecting_through_the_url_keeps_the_tokens_encrypted(people, oauth, acme_client):
    member = people["member"]
    started = _connect(member)
    query = {name: values[0] for name, values in parse_qs(urlsplit(started["url"]).query).items()}
    assert started["url"].startswith(f"{oauth.url}/authorize?")
    assert query["client_id"] == CLIENT_ID and query["code_challenge_method"] == "S256"
    assert query["redirect_uri"].endswith("/settings/integrations/callback/")
    assert query["access_type"] == "offline" and "calendar" in query["scope"]

    acme_client.force_login(member)
    answer = _back(acme_client, oauth.authorize(started["url"]))

    assert answer.status_code == 302
    connection = IntegrationConnection.objects.get(user=member, provider="google")
    (access,) = oauth.access_tokens
    (refresh,) = oauth.refresh_tokens
    assert (
        encryption.decrypt(connection.access_token_encrypted) == access != connection.access_token_encrypted
    )
    assert encryption.decrypt(connection.refresh_token_encrypted) == refresh
    assert connection.scopes == ["calendar", "email"] and connection.expires_at > timezone.now()
    listed = ok(member, "listConnectedIntegrations")["connections"]
    assert [(entry["provider"], entry["status"]) for entry in listed] == [("google", "ok")]
    assert access not in json.dumps(listed) and refresh not in json.dumps(listed)
    found = ok(member, "findIntegrationsByTag", {"tag": "calendar"})["integrations"]
    assert next(entry for entry in found if entry["key"] == "google")["connected"] is True


def test_the_link_works_once_for_its_person_before_it_expires(people, oauth, acme_client, client):
    started = _connect(people["member"])
    redirect = oauth.authorize(started["url"])

    acme_client.force_login(people["admin"])
    someone_else = _back(acme_client, redirect)
    assert someone_else.status_code == 400 and b"Start again with connectIntegration" in someone_else.content
    assert IntegrationConnection.objects.count() == 0

    second = _connect(people["member"])
    acme_client.force_login(people["member"])
    assert _back(acme_client, oauth.authorize(second["url"])).status_code == 302
    again = _back(acme_client, oauth.authorize(second["url"]))
    assert again.status_code == 400

    third = _connect(people["member"])
    IntegrationGrant.objects.filter(used_at__isnull=True).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert _back(acme_client, oauth.authorize(third["url"])).status_code == 400
    assert IntegrationConnection.objects.count() == 1


def test_a_refused_authorization_is_shown_and_keeps_nothing(people, oauth, acme_client):
    started = _connect(people["member"])
    state = parse_qs(urlsplit(started["url"]).query)["state"][0]
    acme_client.force_login(people["member"])

    answer = acme_client.get(f"/settings/integrations/callback/?error=access_denied&state={state}")

    assert answer.status_code == 400 and b"access_denied" in answer.content
    assert IntegrationConnection.objects.count() == 0


def test_an_expired_token_is_refreshed_and_a_refused_refresh_is_reported(people, oauth, acme_client):
    member = people["member"]
    acme_client.force_login(member)
    _back(acme_client, oauth.authorize(_connect(member)["url"]))
    connection = IntegrationConnection.objects.get(user=member)
    (first,) = oauth.access_tokens
    IntegrationConnection.objects.filter(pk=connection.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    assert ok(member, "listConnectedIntegrations")["connections"][0]["status"] == "expired"

    connection.refresh_from_db()
    token = connections.access_token(connection)

    assert token != first and token in oauth.access_tokens
    connection.refresh_from_db()
    assert connection.refreshed_at is not None and connection.expires_at > timezone.now()

    oauth.refresh_tokens.clear()
    IntegrationConnection.objects.filter(pk=connection.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    connection.refresh_from_db()
    with pytest.raises(IntegrationRefused, match="invalid_grant"):
        connections.access_token(connection)
    (listed,) = ok(member, "listConnectedIntegrations")["connections"]
    assert listed["status"] == "failing" and "invalid_grant" in listed["error"]


def test_disconnecting_revokes_at_the_provider_and_deletes(people, oauth, acme_client):
    member = people["member"]
    acme_client.force_login(member)
    _back(acme_client, oauth.authorize(_connect(member)["url"]))
    (refresh,) = oauth.refresh_tokens
    ctx = context_for(member, capabilities={"elicitation": {}}, elicit=confirmed)

    answer = structured(dispatch.call_tool(ctx, "disconnectIntegration", {"provider": "google"}))

    assert answer == {"provider": "google", "disconnected": True, "revoked": True}
    assert oauth.revoked == [refresh] and IntegrationConnection.objects.count() == 0
    again = dispatch.call_tool(ctx, "disconnectIntegration", {"provider": "google"})
    assert again["isError"] and "You have not connected" in again["content"][0]["text"]


def test_a_viewer_finds_integrations_but_connects_none(people):
    for name in ("connectIntegration", "disconnectIntegration", "listConnectedIntegrations"):
        with pytest.raises(ToolNotFound):
            dispatch.call_tool(context_for(people["viewer"]), name, {"provider": "google"})


def test_grants_expired_for_a_day_are_forgotten_by_the_nightly_sweep(people, oauth):
    from apps.platform import tasks

    _connect(people["member"])
    _connect(people["member"])
    old, recent = IntegrationGrant.objects.order_by("id")
    IntegrationGrant.objects.filter(pk=old.pk).update(expires_at=timezone.now() - timedelta(days=2))

    assert tasks.forget_old_integration_grants() == 0

    assert list(IntegrationGrant.objects.values_list("pk", flat=True)) == [recent.pk]


def test_a_persons_export_holds_their_connections_without_the_tokens(people, oauth, acme, acme_client):
    from apps.core import privacy

    member = people["member"]
    acme_client.force_login(member)
    _back(acme_client, oauth.authorize(_connect(member)["url"]))
    (access,) = oauth.access_tokens
    subject = privacy.Subject(email=member.email, user=member, workspace=acme)

    exported = {
        handler.label: handler.export(subject)
        for handler in privacy.handlers()
        if handler.label.startswith("platform.integration")
    }

    (connection,) = exported["platform.integrationconnection"]
    assert connection["provider"] == "google" and len(exported["platform.integrationgrant"]) == 1
    text = json.dumps(exported, default=str)
    assert access not in text and "token_encrypted" not in text and "verifier_encrypted" not in text
