import pytest
from django_tenants.utils import schema_context

from apps.core import credentials
from apps.core.credentials import CredentialRequest
from apps.oauth.tests.oauth_client import OAuthClient


@pytest.fixture
def acme_url(live_http) -> str:  # type: ignore[no-untyped-def]
    return live_http.url("127.0.0.1")


@pytest.fixture
def globex_url(live_http) -> str:  # type: ignore[no-untyped-def]
    return live_http.url("127.0.0.2")


@pytest.fixture
def public_client(acme_url) -> OAuthClient:  # type: ignore[no-untyped-def]
    return OAuthClient.register(acme_url, public=True, name="Public test client")


@pytest.fixture
def confidential_client(acme_url) -> OAuthClient:  # type: ignore[no-untyped-def]
    return OAuthClient.register(acme_url, public=False, name="Confidential test client")


@pytest.fixture
def at_mcp(committed):  # type: ignore[no-untyped-def]
    """Presents a bearer token to the MCP door's credential check (apps.core.credentials), in a
    workspace as reached at an origin: what /api/mcp does with every request."""

    def present(token: str, base_url: str, schema_name: str = "acme"):  # type: ignore[no-untyped-def]
        with schema_context(schema_name):
            return credentials.authenticate(
                CredentialRequest(headers={"authorization": f"Bearer {token}"}, base_url=base_url, door="mcp")
            )

    return present
