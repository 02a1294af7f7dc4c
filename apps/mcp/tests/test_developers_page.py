"""Settings → Developers: the MCP endpoint, OAuth endpoints and discovery documents at the
workspace's own absolute URLs, with values read from the code that enforces them."""

import pytest
from django.conf import settings
from django.test import Client
from django.utils.html import escape

from apps.catalogue import profiles
from apps.mcp.protocol import PROTOCOL_VERSION, SUPPORTED_VERSIONS

pytestmark = pytest.mark.django_db


def developers_page(client: Client, person) -> str:  # type: ignore[no-untyped-def]
    client.force_login(person)
    answer = client.get("/settings/developers/")
    assert answer.status_code == 200
    return answer.content.decode()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_it_shows_the_workspace_s_own_urls_at_the_host_it_is_read_at(people, host):
    text = developers_page(Client(HTTP_HOST=host), people["viewer"])

    base = f"http://{host}"
    for path in (
        "/api/mcp",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/api/mcp",
        "/.well-known/oauth-authorization-server",
        "/.well-known/mcp.json",
        "/oauth/authorize",
        "/oauth/token",
        "/oauth/register",
        "/oauth/revoke",
    ):
        assert f"{base}{path}</code>" in text, path
    assert f'resource_metadata="{base}/.well-known/oauth-protected-resource"' in text


def test_it_says_the_versions_headers_scopes_profiles_and_pkce_the_code_enforces(people, acme_client):
    text = developers_page(acme_client, people["member"])

    assert PROTOCOL_VERSION in text and all(version in text for version in SUPPORTED_VERSIONS)
    for header in ("Accept", "Mcp-Session-Id", "MCP-Protocol-Version", "WWW-Authenticate"):
        assert f"<code>{header}" in text, header
    for status in ("401", "403", "404", "406"):
        assert f"<td>{status}" in text, status
    for scope in settings.OAUTH2_PROVIDER["SCOPES"]:
        assert f"<code>{scope}</code>" in text, scope
    for profile in profiles.PROFILES:
        # By what people do first, as the consent page offers them, then the title.
        assert f"<td>{escape(profile.job)}<br><small" in text, profile.key
        assert f"<code>profile:{profile.key}</code>" in text
        assert f"http://127.0.0.1/api/mcp?profile={profile.key}" in text
    assert "<code>code_challenge_method=S256</code>" in text
    assert f"{settings.OAUTH2_PROVIDER['ACCESS_TOKEN_EXPIRE_SECONDS']} seconds" in text
    assert 'href="/api/docs/"' in text


def test_it_is_in_the_settings_navigation_and_needs_a_sign_in(people, acme_client):
    assert acme_client.get("/settings/developers/").status_code == 302

    acme_client.force_login(people["viewer"])
    home = acme_client.get("/settings/").content.decode()

    assert 'href="/settings/developers/"' in home
