"""Quick-setup's configurations, read the way each client's documentation says it reads them,
connect to the workspace with the official MCP Python SDK.

Quick-setup is called over real HTTP; each configuration (or command line) is read as its client
would (Claude Code's .mcp.json and `claude mcp add`, Claude Desktop's mcp-remote bridge, Cursor's
mcp.json, VS Code's .vscode/mcp.json with its prompted inputs and `code --add-mcp`, Windsurf's
serverUrl, an OpenAI Responses API tool, the neutral kinds), and the URL and headers it gives are
handed to the SDK (`mcp` 2.x, Streamable HTTP): the client connects, sees the workspace's brand
name and lists the tools of the person the key belongs to, within the profile preselected for it.
"""

import asyncio
import json
import re
import shlex

import httpx2
import pytest
from django_tenants.utils import schema_context
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

from apps.apikeys import clients
from apps.catalogue import profiles

pytestmark = pytest.mark.live

NAME = "Acme Workspace"
SLUG = "acme-workspace"


def _mcp_servers(body: dict, *, key: str = NAME, typed: bool = False) -> tuple[str, dict]:
    config = body["config"]
    assert set(config) == {"mcpServers"}
    server = config["mcpServers"][key]
    assert ("type" in server) is typed and server.get("type", "http") == "http"
    return server["url"], server["headers"]


def _editor(body: dict) -> tuple[str, dict]:
    config = body["config"]
    assert set(config) == {"mcp"} and set(config["mcp"]) == {"servers"}
    server = config["mcp"]["servers"][NAME]
    assert server["type"] == "http"
    return server["url"], server["headers"]


def _claude_code_command(body: dict) -> tuple[str, dict]:
    """`claude mcp add --transport http <name> <url> --header "Name: value"…`, as a shell splits it."""
    argv = shlex.split(body["command"])
    assert argv[:6] == ["claude", "mcp", "add", "--transport", "http", SLUG]
    url, rest = argv[6], argv[7:]
    assert rest[0::2] == ["--header"] * (len(rest) // 2)
    headers = dict(value.split(": ", 1) for value in rest[1::2])
    return url, headers


def _claude_desktop(body: dict) -> tuple[str, dict]:
    """The mcp-remote bridge: `npx -y mcp-remote <url> --header Name:${VAR}…` with VAR in env,
    read the way its README says (the variable substituted, then split at the first colon)."""
    server = body["config"]["mcpServers"][NAME]
    assert server["command"] == "npx" and server["args"][:2] == ["-y", "mcp-remote"]
    url, rest = server["args"][2], server["args"][3:]
    assert rest[0::2] == ["--header"] * (len(rest) // 2)
    headers = {}
    for value in rest[1::2]:
        name, _colon, template = value.partition(":")
        assert re.fullmatch(r"\$\{[A-Z_]+\}", template), "secrets stay in env, not in the arguments"
        headers[name] = server["env"][template[2:-1]]
    return url, headers


def _vscode(body: dict) -> tuple[str, dict]:
    """.vscode/mcp.json: servers with type http; ${input:id} replaced by what the person pastes
    when asked (the token and key of this answer)."""
    config = body["config"]
    assert set(config) == {"inputs", "servers"}
    assert all(entry["type"] == "promptString" and entry["password"] for entry in config["inputs"])
    pasted = {"atrium-access-token": body["access_token"], "atrium-api-key": body["api_key"]}
    assert {entry["id"] for entry in config["inputs"]} == set(pasted)
    server = config["servers"][NAME]
    assert server["type"] == "http"
    assert body["access_token"] not in json.dumps(config) and body["api_key"] not in json.dumps(config)

    def resolve(value: str) -> str:
        return re.sub(r"\$\{input:([^}]+)\}", lambda match: pasted[match.group(1)], value)

    return server["url"], {name: resolve(value) for name, value in server["headers"].items()}


def _vscode_command(body: dict) -> tuple[str, dict]:
    argv = shlex.split(body["command"])
    assert argv[:2] == ["code", "--add-mcp"] and len(argv) == 3
    entry = json.loads(argv[2])
    assert entry["name"] == NAME and entry["type"] == "http"
    return entry["url"], entry["headers"]


def _windsurf(body: dict) -> tuple[str, dict]:
    server = body["config"]["mcpServers"][NAME]
    assert "url" not in server, "Windsurf reads serverUrl"
    return server["serverUrl"], server["headers"]


def _openai(body: dict) -> tuple[str, dict]:
    tool = body["config"]
    assert tool["type"] == "mcp" and re.fullmatch(r"[a-z0-9_]+", tool["server_label"])
    return tool["server_url"], tool["headers"]


# How each client reads its configuration (its documentation, apps.apikeys.clients), and the
# profile quick-setup preselects for it.
READERS = {
    "claude-code": (lambda body: _mcp_servers(body, key=SLUG, typed=True), ""),
    "claude-code command": (_claude_code_command, ""),
    "claude-desktop": (_claude_desktop, ""),
    "cursor": (_mcp_servers, "essentials"),
    "vscode": (_vscode, "essentials"),
    "vscode command": (_vscode_command, "essentials"),
    "windsurf": (_windsurf, "essentials"),
    "openai": (_openai, "essentials"),
    "command-line": (lambda body: _mcp_servers(body, typed=True), ""),
    "desktop-assistant": (_mcp_servers, ""),
    "editor": (_editor, ""),
    "generic": (_mcp_servers, ""),
}


def test_every_client_has_a_reader():
    assert {name.split()[0] for name in READERS} == set(clients.CLIENTS)


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
        # Every page of the list (a page holds MCP_TOOLS_PAGE_SIZE tools), as a client reads it.
        page = await client.list_tools()
        tools = list(page.tools)
        while page.next_cursor:
            page = await client.list_tools(cursor=page.next_cursor)
            tools.extend(page.tools)
        return client.server_info, client.protocol_version, tools


@pytest.mark.parametrize("reader", sorted(READERS))
def test_each_configuration_connects_with_the_official_sdk(live_http, access_token, committed, reader):
    read, profile = READERS[reader]
    response = live_http.client().post(
        "/api/mcp/quick-setup",
        json={"client": reader.split()[0]},
        headers={"Authorization": f"Bearer {access_token}"},
    )
    assert response.status_code == 201, response.text
    body = response.json()
    url, headers = read(body)
    assert url == body["mcp_url"] == f"{live_http.url()}/api/mcp" + (f"?profile={profile}" if profile else "")
    assert body["profile"] == (profile or None)
    assert headers == {"Authorization": f"Bearer {body['access_token']}", "X-Api-Key": body["api_key"]}

    info, version, tools = asyncio.run(connect(url, headers))
    assert info is not None and info.name == NAME
    assert version == "2026-07-28"  # the newest the SDK offers and the endpoint speaks (stateless)
    names = {tool.name for tool in tools}
    assert {"searchTools", "describeTool", "callTool"} <= names
    if profile:
        assert names <= profiles.tool_names(profile)
    else:
        assert "listContacts" in names
