"""The token endpoint over real HTTP: PKCE, single-use codes, rotating refresh tokens with replay
detection, `offline_access`, the resource every token is bound to, and revocation. Whether a
token opens the MCP door is asked of the door's own credential check (`at_mcp`)."""

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.utils import timezone
from django_tenants.utils import schema_context
from oauth2_provider.models import get_access_token_model, get_grant_model, get_refresh_token_model

from apps.core.errors import Unauthenticated
from apps.oauth.tests.oauth_client import OAuthClient

pytestmark = pytest.mark.live


def refused_at_mcp(at_mcp, token: str, base_url: str, schema_name: str = "acme") -> str:
    with pytest.raises(Unauthenticated) as refused:
        at_mcp(token, base_url, schema_name)
    return str(refused.value.message)


@pytest.mark.parametrize("kind", ["public", "confidential"])
def test_a_client_exchanges_its_code_for_a_one_hour_token_bound_to_the_mcp_endpoint(
    kind, public_client, confidential_client, acme_url, at_mcp
):
    client = public_client if kind == "public" else confidential_client
    redirect, verifier = client.authorize(scope="mcp")

    response = client.exchange(redirect.params["code"], verifier)

    assert response.status_code == 200
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 3600
    assert body["scope"] == "mcp"
    assert "refresh_token" not in body  # no offline_access asked
    assert response.headers["cache-control"] == "no-store"
    principal = at_mcp(body["access_token"], acme_url)
    assert principal.user.email == "member@acme.example"
    assert principal.scheme == "oauth"
    assert principal.scopes == frozenset({"mcp"})
    assert principal.client == client.registration["client_name"]
    with schema_context("acme"):
        token = get_access_token_model().objects.get(pk=int(principal.credential.removeprefix("oauth:")))
        assert token.resource == [f"{acme_url}/api/mcp"]
        assert token.token == ""  # only the checksum is stored
        assert token.expires - token.created == pytest.approx(timedelta(hours=1), abs=timedelta(seconds=5))


def test_a_confidential_client_must_authenticate(confidential_client):
    redirect, verifier = confidential_client.authorize()
    confidential_client.client_secret = "wrong"

    response = confidential_client.exchange(redirect.params["code"], verifier)

    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"


@pytest.mark.parametrize("verifier", ["wrong-" * 10, None])
def test_a_wrong_or_missing_verifier_gets_no_token(public_client, verifier):
    redirect, _right = public_client.authorize()

    response = public_client.exchange(redirect.params["code"], verifier)

    assert response.status_code == 400
    assert response.json()["error"] in ("invalid_grant", "invalid_request")
    assert "access_token" not in response.json()


def test_a_code_is_single_use_and_its_replay_revokes_what_it_issued(public_client, acme_url, at_mcp):
    redirect, verifier = public_client.authorize(scope="mcp offline_access")
    first = public_client.exchange(redirect.params["code"], verifier).json()
    assert at_mcp(first["access_token"], acme_url).user.email == "member@acme.example"

    replay = public_client.exchange(redirect.params["code"], verifier)

    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert (
        refused_at_mcp(at_mcp, first["access_token"], acme_url)
        == "The access token is unknown or has been revoked."
    )
    assert public_client.refresh(first["refresh_token"]).json()["error"] == "invalid_grant"


def test_a_code_expires_after_a_minute(public_client, committed):
    redirect, verifier = public_client.authorize()
    with schema_context("acme"):
        assert get_grant_model().objects.get(
            code=redirect.params["code"]
        ).expires <= timezone.now() + timedelta(seconds=60)
        get_grant_model().objects.filter(code=redirect.params["code"]).update(
            expires=timezone.now() - timedelta(seconds=1)
        )

    response = public_client.exchange(redirect.params["code"], verifier)

    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"


def test_a_code_is_bound_to_its_client_and_redirect_uri(public_client, acme_url):
    redirect, verifier = public_client.authorize()
    other = OAuthClient.register(acme_url)

    by_other_client = other.exchange(redirect.params["code"], verifier)
    other_redirect = public_client.exchange(
        redirect.params["code"], verifier, redirect_uri="http://127.0.0.1:9/other"
    )

    assert by_other_client.json()["error"] == "invalid_grant"
    assert other_redirect.status_code == 400 and "access_token" not in other_redirect.json()


def test_refresh_tokens_rotate_and_a_replayed_one_revokes_the_whole_family(public_client, acme_url, at_mcp):
    first = public_client.obtain(scope="mcp offline_access")
    assert "refresh_token" in first

    second = public_client.refresh(first["refresh_token"])
    assert second.status_code == 200
    second = second.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert second["access_token"] != first["access_token"]
    assert second["scope"] == "mcp offline_access"
    assert at_mcp(second["access_token"], acme_url).user.email == "member@acme.example"
    refused_at_mcp(at_mcp, first["access_token"], acme_url)  # rotated away

    third = public_client.refresh(second["refresh_token"]).json()
    replay = public_client.refresh(first["refresh_token"])

    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    # The replay revoked everything of the family, the latest generation included.
    refused_at_mcp(at_mcp, third["access_token"], acme_url)
    assert public_client.refresh(third["refresh_token"]).json()["error"] == "invalid_grant"


def test_two_uses_of_one_code_or_refresh_token_at_the_same_moment_are_a_replay(
    public_client, acme_url, at_mcp
):
    redirect, verifier = public_client.authorize(scope="mcp offline_access")
    with ThreadPoolExecutor(2) as pool:
        exchanges = list(
            pool.map(lambda _: public_client.exchange(redirect.params["code"], verifier), range(2))
        )
    assert sorted(answer.status_code for answer in exchanges) == [200, 400]
    issued = next(answer.json() for answer in exchanges if answer.status_code == 200)
    refused_at_mcp(at_mcp, issued["access_token"], acme_url)  # the replay revoked it

    fresh = public_client.obtain(scope="mcp offline_access")
    with ThreadPoolExecutor(2) as pool:
        refreshes = list(pool.map(lambda _: public_client.refresh(fresh["refresh_token"]), range(2)))
    assert sorted(answer.status_code for answer in refreshes) == [200, 400]
    rotated = next(answer.json() for answer in refreshes if answer.status_code == 200)
    refused_at_mcp(at_mcp, rotated["access_token"], acme_url)
    assert public_client.refresh(rotated["refresh_token"]).json()["error"] == "invalid_grant"


def test_a_refresh_keeps_the_resource_binding_and_can_narrow_but_not_widen_scopes(
    public_client, acme_url, at_mcp
):
    first = public_client.obtain(scope="mcp:read offline_access")

    widened = public_client.refresh(first["refresh_token"], scope="mcp mcp:read offline_access")
    narrowed = public_client.refresh(first["refresh_token"], scope="mcp:read")

    assert widened.status_code == 400 and widened.json()["error"] == "invalid_scope"
    assert narrowed.status_code == 200
    assert narrowed.json()["scope"] == "mcp:read"
    assert "refresh_token" in narrowed.json()  # a refresh always rotates
    assert at_mcp(narrowed.json()["access_token"], acme_url).scopes == frozenset({"mcp:read"})


@pytest.mark.parametrize(
    ("scope", "has_refresh_token"),
    [
        ("mcp", False),
        ("mcp:read mcp:write", False),
        ("mcp offline_access", True),
        ("mcp:write offline_access", True),
    ],
)
def test_a_refresh_token_comes_only_with_offline_access(public_client, scope, has_refresh_token):
    body = public_client.obtain(scope=scope)

    assert ("refresh_token" in body) is has_refresh_token
    assert set(body["scope"].split()) == set(scope.split())


def test_without_a_scope_the_default_is_mcp_and_no_refresh_token(public_client):
    redirect, verifier = public_client.authorize(scope=None)  # type: ignore[arg-type]

    body = public_client.exchange(redirect.params["code"], verifier).json()

    assert body["scope"] == "mcp"
    assert "refresh_token" not in body


@pytest.mark.parametrize("resource", ["same", "absent", "trailing slash"])
def test_the_token_request_may_name_the_mcp_endpoint_or_leave_it_out(
    public_client, acme_url, at_mcp, resource
):
    redirect, verifier = public_client.authorize(resource=f"{acme_url}/api/mcp")
    extra = {
        "same": {"resource": f"{acme_url}/api/mcp"},
        "absent": {},
        "trailing slash": {"resource": f"{acme_url}/api/mcp/"},
    }

    response = public_client.exchange(redirect.params["code"], verifier, **extra[resource])

    assert response.status_code == 200
    assert at_mcp(response.json()["access_token"], acme_url) is not None


@pytest.mark.parametrize("step", ["token", "refresh"])
def test_any_other_resource_is_invalid_target(public_client, step):
    if step == "token":
        redirect, verifier = public_client.authorize()
        response = public_client.exchange(
            redirect.params["code"], verifier, resource="https://other.example/api"
        )
    else:
        first = public_client.obtain(scope="mcp offline_access")
        response = public_client.refresh(first["refresh_token"], resource="https://other.example/api")

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_target"


def test_a_code_obtained_at_one_origin_cannot_be_exchanged_at_another(public_client, live_http):
    # localhost and 127.0.0.1 both reach Acme, but each origin is its own issuer and resource.
    redirect, verifier = public_client.authorize()
    elsewhere = OAuthClient(
        live_http.url("localhost"),
        public_client.client_id,
        None,
        public_client.redirect_uri,
        public_client.registration,
    )

    response = elsewhere.exchange(redirect.params["code"], verifier)

    assert response.status_code == 400 and response.json()["error"] == "invalid_target"


def test_a_person_who_was_deactivated_gets_no_new_tokens(public_client, acme_url, at_mcp):
    from apps.accounts.models import User

    first = public_client.obtain(email="admin@acme.example", scope="mcp offline_access")
    redirect, verifier = public_client.authorize(email="admin@acme.example")
    with schema_context("acme"):
        User.objects.filter(email="admin@acme.example").update(is_active=False)
    try:
        exchange = public_client.exchange(redirect.params["code"], verifier)
        refresh = public_client.refresh(first["refresh_token"])
        message = refused_at_mcp(at_mcp, first["access_token"], acme_url)
    finally:
        with schema_context("acme"):
            User.objects.filter(email="admin@acme.example").update(is_active=True)

    assert exchange.status_code == 400 and exchange.json()["error"] == "invalid_grant"
    assert refresh.status_code == 400 and refresh.json()["error"] == "invalid_grant"
    assert message == "The access token does not stand for an active person of this workspace."


@pytest.mark.parametrize("grant_type", ["password", "client_credentials", "implicit"])
def test_no_other_grant_type_exists(confidential_client, grant_type):
    response = confidential_client.token(
        grant_type=grant_type, username="member@acme.example", password="atrium-demo"
    )

    assert response.status_code == 400
    assert response.json()["error"] == "unsupported_grant_type"


@pytest.mark.parametrize("which", ["access_token", "refresh_token"])
def test_revoking_either_token_ends_both_at_once(public_client, acme_url, at_mcp, which, committed):
    body = public_client.obtain(scope="mcp offline_access")

    response = public_client.revoke(body[which])

    assert response.status_code == 200
    refused_at_mcp(at_mcp, body["access_token"], acme_url)
    assert public_client.refresh(body["refresh_token"]).json()["error"] == "invalid_grant"


def test_a_client_cannot_revoke_another_clients_token(public_client, acme_url, at_mcp):
    body = public_client.obtain(scope="mcp")
    other = OAuthClient.register(acme_url)

    assert other.revoke(body["access_token"]).status_code == 200  # RFC 7009: no disclosure
    assert at_mcp(body["access_token"], acme_url) is not None


def test_tokens_and_refresh_tokens_are_stored_only_as_checksums(public_client, committed):
    body = public_client.obtain(scope="mcp offline_access")

    with schema_context("acme"):
        stored = [
            *get_access_token_model().objects.values_list("token", flat=True),
            *get_refresh_token_model().objects.values_list("token", flat=True),
        ]
    assert body["access_token"] not in stored and body["refresh_token"] not in stored
    assert set(stored) == {""}
