"""Deactivating a person ends their connections to outside services as it ends their sessions and
tokens: the connections and unfinished grants are deleted at once, and each token is revoked at
the provider (RFC 7009, against an OAuth server on loopback) once the change commits; by the
tool and by the People page alike, never by someone who may not deactivate."""

from urllib.parse import urlsplit

import pytest

from apps.catalogue import dispatch
from apps.catalogue.testing import confirmed, context_for, ok, refused, structured
from apps.platform.models import IntegrationConnection, IntegrationGrant

from .servers import OAuthServer

pytestmark = pytest.mark.django_db

CLIENT_ID, CLIENT_SECRET = "atrium-test-client", "client-secret-42"
CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


@pytest.fixture
def oauth(settings):  # type: ignore[no-untyped-def]
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


def connected(user, oauth, client) -> str:  # type: ignore[no-untyped-def]
    """`user` connects Google through the callback page; returns the refresh token the provider gave."""
    before = set(oauth.refresh_tokens)
    ctx = context_for(user, capabilities={"elicitation": {}}, elicit=confirmed)
    started = structured(dispatch.call_tool(ctx, "connectIntegration", {"provider": "google"}))
    parts = urlsplit(oauth.authorize(started["url"]))
    client.force_login(user)
    assert client.get(f"{parts.path}?{parts.query}").status_code == 302
    client.logout()
    (refresh,) = oauth.refresh_tokens - before
    return refresh


def test_deactivating_by_the_tool_revokes_and_deletes_their_connections(
    people, oauth, acme_client, django_capture_on_commit_callbacks
):
    member = people["member"]
    refresh = connected(member, oauth, acme_client)
    ok(member, "connectIntegration", {"provider": "google"}, **CONFIRM)  # a grant left unfinished
    assert IntegrationGrant.objects.filter(user=member, used_at__isnull=True).exists()
    kept = connected(people["admin"], oauth, acme_client)

    with django_capture_on_commit_callbacks(execute=True):
        answer = ok(people["admin"], "deactivateWorkspaceUser", {"userId": member.pk}, **CONFIRM)

    assert answer["active"] is False
    assert not IntegrationConnection.objects.filter(user=member).exists()
    assert not IntegrationGrant.objects.filter(user=member).exists()
    assert oauth.revoked == [refresh]
    # Someone else's connection stays.
    assert IntegrationConnection.objects.filter(user=people["admin"]).exists() and kept not in oauth.revoked


def test_deactivating_on_the_people_page_ends_them_too_and_a_provider_down_changes_nothing(
    people, oauth, acme_client, django_capture_on_commit_callbacks
):
    member = people["member"]
    connected(member, oauth, acme_client)
    oauth.stop()  # the provider no longer answers: the connection still goes

    acme_client.force_login(people["admin"])
    with django_capture_on_commit_callbacks(execute=True):
        answer = acme_client.post(f"/settings/people/{member.pk}/", {"action": "deactivate"})

    assert answer.status_code == 302
    member.refresh_from_db()
    assert not member.is_active and not IntegrationConnection.objects.filter(user=member).exists()


def test_who_may_not_deactivate_leaves_the_connections(people, oauth, acme_client):
    member = people["member"]
    connected(member, oauth, acme_client)

    assert "yourself" in refused(
        people["admin"], "deactivateWorkspaceUser", {"userId": people["admin"].pk}, **CONFIRM
    )
    acme_client.force_login(people["viewer"])
    acme_client.post(f"/settings/people/{member.pk}/", {"action": "deactivate"})

    member.refresh_from_db()
    assert member.is_active and IntegrationConnection.objects.filter(user=member).count() == 1
    assert oauth.revoked == []
