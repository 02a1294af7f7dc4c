"""Quick-setup's configurations, pasted into the official MCP Python SDK, connect to the workspace.

Quick-setup is called over real HTTP; each configuration's URL and headers are handed to the SDK
(`mcp` 2.x, Streamable HTTP) as they are: the client connects, sees the workspace's brand name
and lists the tools of the person the key belongs to.
"""

import asyncio

import httpx2
import pytest
from django_tenants.utils import schema_context
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

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

    info, version, tools = asyncio.run(connect(server["url"], server["headers"]))
    assert info is not None and info.name == "Acme Workspace"
    assert version == "2025-06-18"
    names = [tool.name for tool in tools.tools]
    assert "listContacts" in names and "describeTool" in names
