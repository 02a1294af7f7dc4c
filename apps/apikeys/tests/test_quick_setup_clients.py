"""Quick-setup's configurations, pasted into the official MCP Python SDK, connect to the workspace.

Quick-setup is called over real HTTP; each configuration's URL and headers are handed to the SDK
(`mcp` 2.x, Streamable HTTP) as they are. While this checkout has no MCP endpoint (`/api/mcp`
answers 404), the test proves what it can without one: the configuration's shape, and that its
credentials pass the MCP endpoint's own credential check (apps.core.credentials).
"""

import asyncio

import httpx2
import pytest
from django.db import connection
from django_tenants.utils import schema_context
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

from apps.core import credentials
from apps.core.credentials import CredentialRequest

pytestmark = pytest.mark.live

CLIENTS = ["generic", "desktop-assistant", "editor", "command-line"]


def server_entry(config: dict, name: str) -> dict:
    """Where each kind of client keeps the server: mcpServers, or an editor's mcp.servers."""
    if "mcpServers" in config:
        assert set(config) == {"mcpServers"}
        return config["mcpServers"][name]
    assert set(config) == {"mcp"} and set(config["mcp"]) == {"servers"}
    server = config["mcp"]["servers"][name]
    assert server["type"] == "http"
    return server


def mcp_endpoint_answers(live_http) -> bool:
    response = live_http.client().post("/api/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    return not (response.status_code == 404 and response.json().get("error", {}).get("code") == "NOT_FOUND")


@pytest.fixture(scope="module")
def access_token(live_http, django_db_blocker) -> str:
    from apps.accounts.models import User
    from apps.accounts.services import access_token_create

    with django_db_blocker.unblock(), schema_context("acme"):
        _token, raw = access_token_create(user=User.objects.get(email="member@acme.example"), name="setup")
    return raw


async def connect(url: str, headers: dict[str, str]):  # type: ignore[no-untyped-def]
    http = httpx2.AsyncClient(headers=headers, timeout=30)
    async with Client(streamable_http_client(url, http_client=http)) as client:
        tools = await client.list_tools()
        return client.server_info, client.protocol_version, tools


@pytest.mark.parametrize("kind", CLIENTS)
def test_each_configuration_connects_with_the_official_sdk(live_http, access_token, committed, kind):
    response = live_http.client().post(
        "/api/mcp/quick-setup", json={"client": kind}, headers={"Authorization": f"Bearer {access_token}"}
    )
    assert response.status_code == 201, response.text
    body = response.json()
    server = server_entry(body["config"], "Acme Workspace")
    assert server["url"] == f"{live_http.url()}/api/mcp"
    assert set(server["headers"]) == {"Authorization", "X-Api-Key"}

    if mcp_endpoint_answers(live_http):
        info, version, tools = asyncio.run(connect(server["url"], server["headers"]))
        assert info is not None and info.name == "Acme Workspace"
        assert version == "2025-06-18"
        assert isinstance(tools.tools, list)
    else:
        # No MCP endpoint in this checkout yet: the credentials go through the check it will use.
        try:
            with schema_context("acme"):
                principal = credentials.authenticate(
                    CredentialRequest(
                        headers={name.lower(): value for name, value in server["headers"].items()},
                        base_url=live_http.url(),
                        door="mcp",
                    )
                )
        finally:
            connection.set_schema_to_public()
        assert principal is not None
        assert principal.user.email == "member@acme.example"
        assert principal.scheme == "access_token"
        assert principal.api_key_id == body["api_key_id"]
