import pytest

from apps.oauth.tests.oauth_client import OAuthClient, present_to_mcp


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
    """`present_to_mcp`, with database access that sees what the live server wrote."""
    return present_to_mcp
