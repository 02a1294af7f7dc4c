"""The MCP Gateway as a workspace lives it: an administrator registers an outside server on
Settings → Connected MCP servers with a key from the vault, a member finds its tools, calls one
(confirmed: the server is not trusted) and reads the answer labelled as outside data, the overview
counts it; a viewer reads the page without its controls; a server for administrators only stays
theirs; removed, its tools answer no more."""

import json

from apps.catalogue.testing import confirmed, ok, refused
from apps.mcpgateway.models import ExternalServer
from apps.mcpgateway.tests.servers import shared
from apps.vaults.tests.factories import item

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
SECRET = "sk-weather-stretch-0123456789"


def test_an_outside_server_registered_used_and_removed(people, acme_client):
    admin, member, viewer = people["admin"], people["member"], people["viewer"]
    loopback = shared()
    loopback.headers.clear()
    key = item(admin, "workspace", name="Weather key", value=SECRET)

    acme_client.force_login(admin)
    form = {
        "name": "weather",
        "title": "Weather",
        "url": loopback.url,
        "credential": key.pk,
        "auth_header": "Authorization",
        "auth_scheme": "Bearer",
        "visibility": "workspace",
        "enabled": "on",
    }
    assert acme_client.post("/settings/mcp-servers/add/", form).status_code == 302
    registered = ExternalServer.objects.get(name="weather")
    assert "Weather" in acme_client.get("/settings/mcp-servers/").content.decode()

    listed = ok(member, "mcpListServers")["items"]
    assert [row["name"] for row in listed] == ["weather"]
    tools = {tool["name"] for tool in ok(member, "mcpDiscoverTools", {"server": "weather"})["tools"]}
    assert "weather__forecast" in tools
    asked = refused(member, "mcpCallTool", {"tool": "weather__forecast", "arguments": {"city": "Oslo"}})
    assert "confirm" in asked.lower()
    answer = ok(member, "mcpCallTool", {"tool": "weather__forecast", "arguments": {"city": "Oslo"}}, **ELICIT)
    assert answer["isError"] is False and answer["provenance"]["trust"] == "untrusted"
    assert "Oslo" in json.dumps(answer["content"]) and SECRET not in json.dumps(answer)
    assert {headers.get("authorization") for headers in loopback.headers} == {f"Bearer {SECRET}"}
    overview = ok(member, "getMcpGatewayOverview")
    assert overview["servers"] == 1 and "forecast" in [row["target"] for row in overview["recentCalls"]]

    # A viewer reads the page, without the administrator's controls.
    acme_client.force_login(viewer)
    page = acme_client.get("/settings/mcp-servers/").content.decode()
    assert "Weather" in page and "Register the server" not in page and "Remove" not in page
    assert acme_client.post(f"/settings/mcp-servers/{registered.pk}/delete/").status_code in (403, 404)

    # A server for the administrators' role only: nobody else lists it or reads its name.
    acme_client.force_login(admin)
    internal = {
        **form,
        "name": "finance",
        "title": "Finance tools",
        "visibility": "private",
        "roles": [admin.role.pk],
    }
    assert acme_client.post("/settings/mcp-servers/add/", internal).status_code == 302
    assert "finance" not in [row["name"] for row in ok(member, "mcpListServers")["items"]]
    assert "Finance" not in refused(member, "mcpDiscoverTools", {"server": "finance"})

    # Removed, its tools answer no more.
    assert acme_client.post(f"/settings/mcp-servers/{registered.pk}/delete/").status_code == 302
    gone = refused(
        member, "mcpCallTool", {"tool": "weather__forecast", "arguments": {"city": "Oslo"}}, **ELICIT
    )
    assert "not a tool" in gone and "mcpListServers" in gone
    assert [row["name"] for row in ok(member, "mcpListServers")["items"]] == []
