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


def test_saving_the_page_keeps_a_credential_the_saver_cannot_see(people, acme_client, loopback):
    from apps.accounts.models import Role, User

    key = item(people["admin"], name="Weather master key", value="sk-admin-only")
    registered = server(people["admin"], name="weather", title="Weather", url=loopback.url, credential=key)
    # An operator who runs the gateway but keeps no secrets: the key is not among what they see.
    role = Role.objects.create(
        key="gateway",
        name="Gateway",
        permissions=["mcpgateway.view", "mcpgateway.use", "mcpgateway.admin", "vaults.view"],
    )
    operator = User.objects.create_user(email="ops@acme.example", password=None, role=role)
    acme_client.force_login(operator)
    page = acme_client.get(f"/settings/mcp-servers/{registered.pk}/").content.decode()
    assert "Weather master key" not in page
    form = {
        "name": "weather",
        "title": "Weather service",
        "url": loopback.url,
        "credential": "",
        "keep_credential": "on",
        "auth_header": "Authorization",
        "auth_scheme": "Bearer",
        "visibility": "workspace",
        "enabled": "on",
    }
    assert acme_client.post(f"/settings/mcp-servers/{registered.pk}/", form).status_code == 302
    registered.refresh_from_db()
    assert (registered.title, registered.credential_id) == ("Weather service", key.pk)


def test_a_server_whose_credential_was_deleted_is_not_called_without_it(people, loopback):
    admin, member = people["admin"], people["member"]
    key = item(admin, "workspace", name="Weather key", value="sk-weather")
    server(admin, name="weather", url=loopback.url, credential=key)
    VaultItem.objects.filter(pk=key.pk).update(deleted_at=timezone.now())

    answer = refused(member, "mcpDiscoverTools", {"server": "weather", "refresh": True})

    assert "credential" in answer and loopback.headers == []


def test_a_time_to_live_past_any_calendar_keeps_the_list_a_day():
    from apps.mcpgateway.services import tools_expire_at

    now = timezone.now()
    assert tools_expire_at(now, 10**30) == now + timedelta(days=1)
    assert tools_expire_at(now, -5) == now
    assert tools_expire_at(now, 60_000) == now + timedelta(minutes=1)
