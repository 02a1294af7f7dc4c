"""Dynamic client registration (RFC 7591) over real HTTP: what is accepted, each reason for a
refusal, and the per-address rate limit."""

import logging
import os
import random

import httpx
import pytest
from django_tenants.utils import schema_context
from oauth2_provider.models import get_application_model

from apps.core.errors import Unauthenticated
from apps.core.testing import database_url, start_web
from apps.oauth.registration import MAX_REDIRECT_URIS, MAX_URI_LENGTH

pytestmark = pytest.mark.live


def register(base_url: str, metadata: dict, **kwargs) -> httpx.Response:
    return httpx.post(f"{base_url}/oauth/register", json=metadata, timeout=10, **kwargs)


def metadata(**overrides):
    return {
        "client_name": "Registration test",
        "redirect_uris": ["http://127.0.0.1:33418/callback"],
        **overrides,
    }


def test_a_public_client_registers_anonymously_and_gets_no_secret(acme_url, committed):
    response = register(acme_url, metadata(token_endpoint_auth_method="none", scope="mcp offline_access"))

    assert response.status_code == 201
    body = response.json()
    assert body["token_endpoint_auth_method"] == "none"
    assert "client_secret" not in body
    assert body["redirect_uris"] == ["http://127.0.0.1:33418/callback"]
    assert body["grant_types"] == ["authorization_code", "refresh_token"]
    assert body["response_types"] == ["code"]
    assert body["scope"] == "mcp offline_access"
    assert isinstance(body["client_id_issued_at"], int)
    assert body["registration_client_uri"] == f"{acme_url}/oauth/register/{body['client_id']}"
    assert response.headers["cache-control"] == "no-store"
    with schema_context("acme"):
        client = get_application_model().objects.get(client_id=body["client_id"])
        assert client.client_type == "public"
        assert client.name == "Registration test"
        assert client.user is None


@pytest.mark.django_db
def test_a_registration_is_logged_by_its_client_id_not_by_the_address_it_came_from(acme_client, caplog):
    with caplog.at_level(logging.INFO):
        response = acme_client.post(
            "/oauth/register",
            data=metadata(token_endpoint_auth_method="none"),
            content_type="application/json",
            REMOTE_ADDR="203.0.113.9",
        )

    assert response.status_code == 201
    assert f"OAuth client {response.json()['client_id']} registered" in caplog.text
    assert "203.0.113.9" not in caplog.text


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_a_confidential_client_gets_its_secret_once_and_it_is_stored_hashed(acme_url, committed, method):
    response = register(acme_url, metadata(token_endpoint_auth_method=method))

    assert response.status_code == 201
    body = response.json()
    assert body["token_endpoint_auth_method"] == method
    assert len(body["client_secret"]) >= 64
    assert body["client_secret_expires_at"] == 0
    with schema_context("acme"):
        stored = get_application_model().objects.get(client_id=body["client_id"])
        assert stored.client_type == "confidential"
        assert body["client_secret"] not in stored.client_secret


def test_the_registration_of_a_client_can_be_read_and_deleted_with_its_registration_token(
    acme_url, committed
):
    body = register(acme_url, metadata(token_endpoint_auth_method="none")).json()
    headers = {"Authorization": f"Bearer {body['registration_access_token']}"}

    read = httpx.get(body["registration_client_uri"], headers=headers)
    anonymous = httpx.get(body["registration_client_uri"])
    deleted = httpx.delete(body["registration_client_uri"], headers=headers)

    assert read.status_code == 200 and read.json()["client_id"] == body["client_id"]
    assert anonymous.status_code == 401
    assert deleted.status_code == 204
    with schema_context("acme"):
        assert not get_application_model().objects.filter(client_id=body["client_id"]).exists()


def test_the_registration_token_does_not_open_the_mcp_endpoint(acme_url, at_mcp):
    body = register(acme_url, metadata(token_endpoint_auth_method="none")).json()

    with pytest.raises(Unauthenticated) as refused:
        at_mcp(body["registration_access_token"], acme_url)

    assert refused.value.headers["WWW-Authenticate"].startswith('Bearer error="invalid_token"')


def test_an_update_through_the_management_endpoint_follows_the_same_rules(acme_url):
    body = register(acme_url, metadata(token_endpoint_auth_method="none")).json()
    headers = {"Authorization": f"Bearer {body['registration_access_token']}"}

    refused = httpx.put(
        body["registration_client_uri"],
        json=metadata(token_endpoint_auth_method="none", redirect_uris=["http://app.example/cb"]),
        headers=headers,
    )
    accepted = httpx.put(
        body["registration_client_uri"],
        json=metadata(token_endpoint_auth_method="none", redirect_uris=["https://app.example/cb"]),
        headers=headers,
    )

    assert refused.status_code == 400 and refused.json()["error"] == "invalid_redirect_uri"
    assert accepted.status_code == 200
    assert accepted.json()["redirect_uris"] == ["https://app.example/cb"]


@pytest.mark.parametrize(
    "uri",
    [
        "https://app.example/oauth/callback",
        "https://app.example:8443/cb?tenant=acme",
        "http://127.0.0.1/callback",
        "http://127.0.0.1:51234/callback",
        "http://[::1]:8080/cb",
        "http://localhost:3000/oauth/callback",
        "cursor://anysphere.cursor-retrieval/oauth/user-atrium/callback",
        "vscode://vscode.github-authentication/did-authenticate",
        "claude:/oauth/callback",
    ],
)
def test_these_redirect_uris_are_accepted(acme_url, uri):
    response = register(acme_url, metadata(redirect_uris=[uri]))

    assert response.status_code == 201, response.text
    assert response.json()["redirect_uris"] == [uri]


@pytest.mark.parametrize(
    ("uri", "reason"),
    [
        ("http://app.example/callback", "http is only allowed on 127.0.0.1, [::1] or localhost"),
        ("http://192.168.1.5:8080/callback", "http is only allowed on 127.0.0.1, [::1] or localhost"),
        ("http://127.0.0.1.evil.example/cb", "http is only allowed on 127.0.0.1, [::1] or localhost"),
        ("javascript:alert(1)", "the scheme javascript is not allowed"),
        ("myapp://callback", "the scheme myapp is not allowed"),
        ("https://app.example/cb#fragment", "must not contain a fragment"),
        ("https://user:pass@app.example/cb", "must not contain user information"),
        ("https:///no-host", "needs a host"),
        ("https://app.example/a b", "must not contain spaces"),
        ("/relative/callback", "the scheme (none) is not allowed"),
        ("https://app.example:99999/cb", "is not a valid URI"),
    ],
)
def test_these_redirect_uris_are_refused_with_the_reason(acme_url, uri, reason):
    response = register(acme_url, metadata(redirect_uris=[uri]))

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_redirect_uri"
    assert reason in response.json()["error_description"]


@pytest.mark.parametrize(
    ("overrides", "error", "reason"),
    [
        ({"redirect_uris": []}, "invalid_redirect_uri", "redirect_uris must be a non-empty array"),
        ({"redirect_uris": "https://app.example/cb"}, "invalid_redirect_uri", "must be a non-empty array"),
        ({"redirect_uris": [42]}, "invalid_redirect_uri", "must be a non-empty string"),
        (
            {"redirect_uris": [f"https://app.example/cb{n}" for n in range(MAX_REDIRECT_URIS + 1)]},
            "invalid_redirect_uri",
            f"At most {MAX_REDIRECT_URIS} redirect URIs",
        ),
        (
            {"redirect_uris": ["https://app.example/" + "a" * MAX_URI_LENGTH]},
            "invalid_redirect_uri",
            f"longer than {MAX_URI_LENGTH} characters",
        ),
        ({"grant_types": ["implicit"]}, "invalid_client_metadata", "grant_types implicit not supported"),
        (
            {"grant_types": ["authorization_code", "password"]},
            "invalid_client_metadata",
            "grant_types password not supported",
        ),
        (
            {"grant_types": ["client_credentials"]},
            "invalid_client_metadata",
            "grant_types client_credentials not supported",
        ),
        ({"grant_types": ["refresh_token"]}, "invalid_client_metadata", "must include authorization_code"),
        ({"response_types": ["token"]}, "invalid_client_metadata", "response_types token not supported"),
        (
            {"token_endpoint_auth_method": "private_key_jwt"},
            "invalid_client_metadata",
            "token_endpoint_auth_method must be one of",
        ),
        ({"scope": "mcp admin"}, "invalid_client_metadata", "scope must be a space-separated list"),
        ({"client_name": "x" * 101}, "invalid_client_metadata", "at most 100 characters"),
        ({"client_name": "Evil\nApp"}, "invalid_client_metadata", "control characters"),
    ],
)
def test_metadata_outside_what_is_offered_is_refused_with_the_reason(acme_url, overrides, error, reason):
    response = register(acme_url, metadata(**overrides))

    assert response.status_code == 400
    assert response.json()["error"] == error
    assert reason in response.json()["error_description"]


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'"a string"', b"\xff\xfe"])
def test_a_body_that_is_not_a_json_object_is_refused(acme_url, body):
    response = httpx.post(
        f"{acme_url}/oauth/register", content=body, headers={"Content-Type": "application/json"}
    )

    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_client_metadata",
        "error_description": "The body must be a JSON object (application/json).",
    }


@pytest.mark.parametrize(
    ("body", "where"),
    [
        (b'{"client_name": "\\ud800", "redirect_uris": ["https://app.example/cb"]}', "client_name"),
        (b'{"redirect_uris": ["https://app.example/\\udc00"]}', "redirect_uris[0]"),
        (b'{"client_name": "a\\u0000", "redirect_uris": ["https://app.example/cb"]}', "client_name"),
        (b'{"client_name": "x", "logo_uri": 1e400, "redirect_uris": ["https://app.example/cb"]}', "logo_uri"),
        (b'{"client_name": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nested deeper than 64 levels"),
    ],
)
def test_json_no_store_can_keep_is_invalid_client_metadata_naming_the_place(acme_url, committed, body, where):
    with schema_context("acme"):
        before = get_application_model().objects.count()

    response = httpx.post(
        f"{acme_url}/oauth/register", content=body, headers={"Content-Type": "application/json"}
    )

    assert response.status_code == 400
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error"] == "invalid_client_metadata"
    assert where in response.json()["error_description"]
    with schema_context("acme"):
        assert get_application_model().objects.count() == before


def test_an_oversized_registration_is_refused(acme_url):
    response = register(acme_url, metadata(software_statement="x" * 20_000))

    assert response.status_code == 413
    assert response.json()["error"] == "invalid_client_metadata"


def test_a_refused_registration_leaves_nothing_behind(acme_url, committed):
    with schema_context("acme"):
        before = get_application_model().objects.count()

    register(acme_url, metadata(redirect_uris=["http://app.example/cb"]))
    register(acme_url, metadata(grant_types=["implicit"]))

    with schema_context("acme"):
        assert get_application_model().objects.count() == before


def from_address(address: str, base_url: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), base_url=base_url, timeout=10)


def test_registrations_are_rate_limited_per_client_address(django_db_setup, django_db_blocker):
    """A server of its own with a limit of 3 an hour; each test run registers from an address of
    its own (all of 127.0.0.0/8 is loopback), since the count lives in Redis across runs."""
    with django_db_blocker.unblock():
        url = database_url()
    server = start_web(
        {
            **os.environ,
            "DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "ATRIUM_OAUTH_REGISTRATIONS_PER_HOUR": "3",
        }
    )
    mine, another = random.sample(range(1, 250), 2)
    subnet = f"127.{random.randint(10, 250)}.{random.randint(0, 250)}"  # noqa: S311
    try:
        with from_address(f"{subnet}.{mine}", server.url()) as client:
            answers = [client.post("/oauth/register", json=metadata()) for _ in range(4)]
        with from_address(f"{subnet}.{another}", server.url()) as client:
            other = client.post("/oauth/register", json=metadata())
    finally:
        server.stop()

    assert [answer.status_code for answer in answers] == [201, 201, 201, 429]
    assert answers[3].json()["error"] == "too_many_requests"
    assert 0 < int(answers[3].headers["retry-after"]) <= 3600
    assert other.status_code == 201  # another address is not held back
