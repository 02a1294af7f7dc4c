"""The OAuth scheme of the MCP door (`apps.oauth.credentials`), asked through the one credential
check every door uses. Tokens are made the way the toolkit stores them (checksum only)."""

import secrets
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model, set_token_value

from apps.core import credentials
from apps.core.credentials import CredentialRequest
from apps.core.errors import Unauthenticated
from apps.oauth import credentials as oauth_credentials
from apps.oauth import errors
from apps.oauth.models import Connection

BASE = "http://127.0.0.1:8000"


def ask(token: str | None = None, *, base_url: str = BASE, authorization: str | None = None):
    headers = {}
    if authorization is not None:
        headers["authorization"] = authorization
    elif token is not None:
        headers["authorization"] = f"Bearer {token}"
    return credentials.authenticate(CredentialRequest(headers=headers, base_url=base_url, door="mcp"))


@pytest.fixture
def client_app(acme):
    return get_application_model().objects.create(
        name="Editor",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9/cb",
        registration_source="dcr",
    )


@pytest.fixture
def make_token(client_app, people):
    def make(
        *, user="member", scope="mcp", resource=(f"{BASE}/api/mcp",), expires_in=3600, application=client_app
    ):
        raw = secrets.token_urlsafe(24)
        token = get_access_token_model()(
            user=people[user] if isinstance(user, str) else user,
            application=application,
            scope=scope,
            resource=list(resource),
            expires=timezone.now() + timedelta(seconds=expires_in),
        )
        set_token_value(token, raw)
        token.save()
        return token, raw

    return make


def test_a_good_token_is_the_person_with_the_tokens_mcp_scopes(make_token):
    token, raw = make_token(user="viewer", scope="mcp:read offline_access")

    principal = ask(raw)

    assert principal.user.email == "viewer@acme.example"
    assert principal.scheme == "oauth"
    assert principal.scopes == frozenset({"mcp:read"})
    assert principal.credential == f"oauth:{token.pk}"
    assert principal.client == "Editor"
    assert principal.api_key_id is None


@pytest.mark.parametrize("authorization", [None, "", "Basic dXNlcjpwYXNz", "Bearer ", "Token abc"])
def test_a_request_without_a_bearer_token_is_not_this_schemes(acme, authorization):
    assert (
        oauth_credentials.oauth_bearer(
            CredentialRequest(
                headers={} if authorization is None else {"authorization": authorization},
                base_url=BASE,
                door="mcp",
            )
        )
        is None
    )


def test_a_personal_access_token_is_left_to_its_own_scheme(acme):
    request = CredentialRequest(
        headers={"authorization": "Bearer atp_abcdefghijklmnopqrstuvwxyz0123456789"},
        base_url=BASE,
        door="mcp",
    )

    assert oauth_credentials.oauth_bearer(request) is None


@pytest.mark.parametrize(
    ("case", "error"),
    [
        ("unknown", errors.UnknownOAuthToken),
        ("expired", errors.ExpiredOAuthToken),
        ("no resource", errors.OAuthTokenForAnotherResource),
        ("another resource", errors.OAuthTokenForAnotherResource),
        ("another origin", errors.OAuthTokenForAnotherResource),
        ("no mcp scope", errors.OAuthTokenWithoutMcpScope),
        ("registration token", errors.OAuthTokenForAnotherResource),
        ("inactive person", errors.OAuthTokenWithoutPerson),
    ],
)
def test_a_bad_token_is_refused_with_the_invalid_token_challenge(make_token, people, case, error):
    raw = "unknown-token-value"
    if case == "expired":
        _token, raw = make_token(expires_in=-1)
    elif case == "no resource":
        _token, raw = make_token(resource=())
    elif case == "another resource":
        _token, raw = make_token(resource=("https://other.example/api/mcp",))
    elif case == "another origin":
        _token, raw = make_token(resource=("http://localhost:8000/api/mcp",))
    elif case == "no mcp scope":
        _token, raw = make_token(scope="offline_access")
    elif case == "registration token":
        # What dynamic registration hands out to manage the client: no person, no resource.
        _token, raw = make_token(user=None, scope="oauth2_provider:registration", resource=())
    elif case == "inactive person":
        _token, raw = make_token()
        type(people["member"]).objects.filter(pk=people["member"].pk).update(is_active=False)

    with pytest.raises(error) as refused:
        ask(raw)

    assert isinstance(refused.value, Unauthenticated)
    assert refused.value.http_status == 401
    assert refused.value.code == "UNAUTHENTICATED"
    challenge = refused.value.headers["WWW-Authenticate"]
    assert challenge.startswith('Bearer error="invalid_token", error_description="')
    assert challenge.endswith(f'resource_metadata="{BASE}/.well-known/oauth-protected-resource"')


def test_a_token_of_one_workspace_is_unknown_in_another(make_token, globex):
    _token, raw = make_token()
    connection.set_tenant(globex)

    with pytest.raises(errors.UnknownOAuthToken):
        ask(raw, base_url="http://127.0.0.2:8000")


def test_using_a_token_marks_its_connection_used(make_token, people, client_app):
    _token, raw = make_token()
    entry = Connection.objects.create(user=people["member"], application=client_app, scope="mcp")
    oauth_credentials._touched.clear()

    ask(raw)

    entry.refresh_from_db()
    assert entry.last_used_at is not None
    assert timezone.now() - entry.last_used_at < timedelta(seconds=5)


def test_the_scheme_is_registered_before_personal_access_tokens():
    names = credentials.registered()

    assert "apps.oauth.credentials.oauth_bearer" in names
    assert names.index("apps.oauth.credentials.oauth_bearer") == 0
