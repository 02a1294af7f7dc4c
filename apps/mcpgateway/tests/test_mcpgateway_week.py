"""What a week of connecting outside MCP servers found: a member using a server whose credential
had expired was told the name of the administrator's private vault item; and a hostile server
whose tool descriptions carry NUL bytes crashed the discovery (a text column keeps none)."""

import threading
import time
from datetime import timedelta

import pytest
import uvicorn
from django.utils import timezone
from mcp.server.mcpserver import MCPServer

from apps.catalogue.testing import ok, refused
from apps.core.testing import free_port
from apps.mcpgateway.tests.factories import server
from apps.mcpgateway.tests.servers import shared
from apps.vaults.models import VaultItem
from apps.vaults.tests.factories import item


@pytest.fixture
def loopback():
    state = shared()
    state.headers.clear()
    return state


def test_a_members_failure_never_names_the_administrators_private_credential(people, loopback):
    admin, member = people["admin"], people["member"]
    key = item(admin, name="Admin weather master key", value="sk-admin-only")
    server(admin, name="weather", url=loopback.url, credential=key)
    VaultItem.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(days=1))

    answer = refused(member, "mcpDiscoverTools", {"server": "weather", "refresh": True})

    assert "Admin weather master key" not in answer and f"item {key.pk}" not in answer
    assert "weather" in answer and "credential" in answer
    assert "Admin weather master key" in refused(
        admin, "mcpDiscoverTools", {"server": "weather", "refresh": True}
    )


@pytest.fixture
def hostile():
    mcp = MCPServer("Hostile\x00 server")

    @mcp.tool(name="gauge", description="Reads\x00 the gauge")
    def gauge(station: str) -> str:
        return f"gauge {station}"

    app = mcp.streamable_http_app(stateless_http=True, json_response=True)
    port = free_port()
    running = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=running.run, daemon=True).start()
    deadline = time.monotonic() + 10
    while not running.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/mcp"
    running.should_exit = True


def test_a_hostile_servers_nul_bytes_are_dropped_not_a_crash(people, hostile):
    member = people["member"]
    server(people["admin"], name="hostile", url=hostile)

    found = ok(member, "mcpDiscoverTools", {"server": "hostile"})

    assert [each["name"] for each in found["tools"]] == ["hostile__gauge"]
    assert found["tools"][0]["description"] == "Reads the gauge"
    assert "\x00" not in str(found)
