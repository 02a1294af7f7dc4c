"""Discovery over real HTTP: RFC 9728 and RFC 8414 metadata, and CORS for browser clients."""

import httpx
import pytest

pytestmark = pytest.mark.live


def test_protected_resource_metadata_names_the_mcp_endpoint_and_its_own_origin(acme_url):
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/api/mcp"):
        response = httpx.get(f"{acme_url}{path}")

        assert response.status_code == 200
        assert response.json() == {
            "resource": f"{acme_url}/api/mcp",
            "authorization_servers": [acme_url],
            "scopes_supported": ["mcp", "mcp:read", "mcp:write"],
            "bearer_methods_supported": ["header"],
            "resource_name": "Acme Workspace",
        }


def test_protected_resource_metadata_exists_only_for_the_mcp_path(acme_url):
    response = httpx.get(f"{acme_url}/.well-known/oauth-protected-resource/api/other")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_each_workspace_is_its_own_authorization_server(acme_url, globex_url):
    acme = httpx.get(f"{acme_url}/.well-known/oauth-authorization-server").json()
    globex = httpx.get(f"{globex_url}/.well-known/oauth-authorization-server").json()

    assert acme["issuer"] == acme_url
    assert globex["issuer"] == globex_url
    assert httpx.get(f"{globex_url}/.well-known/oauth-protected-resource").json()[
        "authorization_servers"
    ] == [globex_url]


def test_authorization_server_metadata_says_exactly_what_is_offered(acme_url):
    response = httpx.get(f"{acme_url}/.well-known/oauth-authorization-server")

    assert response.status_code == 200
    assert response.json() == {
        "issuer": acme_url,
        "authorization_endpoint": f"{acme_url}/oauth/authorize",
        "token_endpoint": f"{acme_url}/oauth/token",
        "registration_endpoint": f"{acme_url}/oauth/register",
        "revocation_endpoint": f"{acme_url}/oauth/revoke",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "scopes_supported": ["mcp", "mcp:read", "mcp:write", "offline_access"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        "revocation_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        "authorization_response_iss_parameter_supported": True,
        "client_id_metadata_document_supported": True,
    }


def test_the_issuer_is_the_origin_the_client_used(live_http):
    # Acme answers on localhost too: each origin is its own issuer, compared as a string.
    url = live_http.url("localhost")
    assert httpx.get(f"{url}/.well-known/oauth-authorization-server").json()["issuer"] == url


@pytest.mark.parametrize(
    "path", ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server/api/mcp"]
)
def test_there_is_no_openid_discovery_or_path_issuer_only_a_clean_404(acme_url, path):
    response = httpx.get(f"{acme_url}{path}")

    assert response.status_code == 404
    assert response.json() == {"error": {"code": "NOT_FOUND", "message": "No such endpoint."}}


@pytest.mark.parametrize(
    "path",
    [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/api/mcp",
        "/.well-known/oauth-authorization-server",
    ],
)
def test_discovery_documents_are_readable_from_any_origin(acme_url, path):
    origin = "https://inspector.example"

    response = httpx.get(
        f"{acme_url}{path}", headers={"Origin": origin, "MCP-Protocol-Version": "2025-06-18"}
    )
    preflight = httpx.options(
        f"{acme_url}{path}",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "mcp-protocol-version",
        },
    )

    assert response.headers["access-control-allow-origin"] == "*"
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert "mcp-protocol-version" in preflight.headers["access-control-allow-headers"]


@pytest.mark.parametrize("path", ["/oauth/token", "/oauth/register", "/oauth/revoke"])
def test_token_registration_and_revocation_accept_cross_origin_posts(acme_url, path):
    preflight = httpx.options(
        f"{acme_url}{path}",
        headers={
            "Origin": "https://inspector.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, authorization",
        },
    )

    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert "POST" in preflight.headers["access-control-allow-methods"]


@pytest.mark.parametrize("path", ["/oauth/authorize", "/settings/connected-apps/", "/accounts/sign-in/"])
def test_pages_get_no_cors_headers(acme_url, path):
    response = httpx.get(f"{acme_url}{path}", headers={"Origin": "https://inspector.example"})

    assert "access-control-allow-origin" not in response.headers
