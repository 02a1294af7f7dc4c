"""End to end: the official MCP clients against the live server with the real credential schemes
(a personal access token + X-Api-Key, and an OAuth access token obtained through the real
authorization flow), the real catalogue and Contacts. Each client sees the workspace's brand,
lists exactly the tools the person's role (and the token's scope) allows, and calls Contacts
tools."""

import json
import secrets
import subprocess

import httpx2
import pytest
from django.conf import settings
from django_tenants.utils import schema_context

from apps.core.testing import ROOT, mcp_session, node_bin
from apps.mcp.testing import pat_and_key

pytestmark = pytest.mark.live

NODE_DIR = ROOT / "tests" / "node"


def expected_tools(email: str, scopes: set[str], schema_name: str = "acme") -> list[str]:
    """What the catalogue says this person may use with these scopes (the same registry the
    server loads: both run config.settings.test)."""
    from apps.accounts.models import User
    from apps.catalogue.dispatch import list_tools
    from apps.core.credentials import Principal

    with schema_context(schema_name):
        user = User.objects.select_related("role").get(email=email)
        principal = Principal(user=user, scheme="e2e", scopes=frozenset(scopes), credential="e2e")
        return [tool["name"] for tool in list_tools(principal=principal)]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_python_sdk_with_a_personal_access_token_and_api_key(live_http, committed, mode):
    headers = pat_and_key("member@acme.example")
    email = f"e2e-{secrets.token_hex(4)}@example.com"

    async def work(client):  # type: ignore[no-untyped-def]
        created = await client.call_tool(
            "createContact", {"contact": {"firstName": "Grace", "lastName": "Hopper", "email": email}}
        )
        contact_id = created.structured_content["contact"]["id"]
        fetched = await client.call_tool("getContact", {"contactId": contact_id})
        missing = await client.call_tool("getContact", {"contactId": "seven"})
        return fetched, missing

    info, tools, (fetched, missing) = mcp_session(f"{live_http.url()}/api/mcp", headers, work, mode=mode)

    assert (info.name, info.title) == ("Acme Workspace", "Acme Workspace")
    assert tools == expected_tools("member@acme.example", {"mcp"})
    assert "getContact" in tools and "createContact" in tools
    assert fetched.structured_content["email"] == email
    assert missing.is_error and "contactId" in missing.content[0].text


def test_python_sdk_with_an_oauth_token_of_read_scope_sees_only_read_tools(live_http, committed):
    from apps.oauth.tests.oauth_client import OAuthClient

    client = OAuthClient.register(live_http.url(), public=True, name="e2e MCP client")
    token = client.obtain(email="member@acme.example", scope="mcp:read")["access_token"]

    async def work(client):  # type: ignore[no-untyped-def]
        return await client.call_tool("searchContacts", {"query": "nobody-here"})

    info, tools, searched = mcp_session(
        f"{live_http.url()}/api/mcp", {"Authorization": f"Bearer {token}"}, work
    )

    assert info.name == "Acme Workspace"
    assert tools == expected_tools("member@acme.example", {"mcp:read"})
    assert "searchContacts" in tools and "createContact" not in tools
    assert searched.is_error is False


def test_a_viewer_lists_exactly_what_a_viewer_may_use_in_globex(live_http, committed):
    headers = pat_and_key("viewer@globex.example", "globex")

    async def work(client):  # type: ignore[no-untyped-def]
        return await client.call_tool("listContacts", {})

    info, tools, listed = mcp_session(f"{live_http.url('127.0.0.2')}/api/mcp", headers, work, mode="legacy")

    assert info.name == "Globex Hub"
    assert tools == expected_tools("viewer@globex.example", {"mcp"}, "globex")
    assert "createContact" not in tools
    assert listed.is_error is False


def run_ts_client(url: str, headers: dict[str, str], tool: str) -> dict:
    completed = subprocess.run(
        ["node", "mcp-client.mjs", url, json.dumps(headers), tool, ""],
        cwd=NODE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_typescript_sdk_with_a_personal_access_token_and_api_key(live_http, committed):
    outcome = run_ts_client(f"{live_http.url()}/api/mcp", pat_and_key("admin@acme.example"), "listContacts")

    assert outcome["server"]["name"] == "Acme Workspace"
    assert outcome["protocolVersion"] == "2025-11-25"
    assert outcome["tools"] == expected_tools("admin@acme.example", {"mcp"})
    assert outcome["call"]["isError"] is False and "items" in outcome["call"]["structuredContent"]


def test_typescript_sdk_with_an_oauth_token(live_http, committed):
    from apps.oauth.tests.oauth_client import OAuthClient

    client = OAuthClient.register(live_http.url(), public=True, name="e2e TS client")
    token = client.obtain(email="viewer@acme.example", scope="mcp")["access_token"]
    outcome = run_ts_client(
        f"{live_http.url()}/api/mcp", {"Authorization": f"Bearer {token}"}, "listContacts"
    )

    assert outcome["server"]["name"] == "Acme Workspace"
    assert outcome["tools"] == expected_tools("viewer@acme.example", {"mcp"})
    assert outcome["call"]["isError"] is False


def test_inspector_cli_lists_and_calls_with_a_token_and_key(live_http, committed):
    headers = pat_and_key("member@acme.example")
    url = f"{live_http.url()}/api/mcp"
    flags = [arg for name, value in headers.items() for arg in ("--header", f"{name}: {value}")]

    def inspector(*args: str) -> dict:
        completed = subprocess.run(
            [node_bin("mcp-inspector"), "--cli", url, "--transport", "http", *flags, *args],
            cwd=NODE_DIR,
            capture_output=True,
            text=True,
            timeout=90,
        )
        assert completed.returncode == 0, (completed.stdout + completed.stderr)[-3000:]
        return json.loads(completed.stdout)

    listed = inspector("--method", "tools/list")
    called = inspector("--method", "tools/call", "--tool-name", "listContacts")

    # The member may use more tools than one page holds: the Inspector follows nextCursor.
    expected = expected_tools("member@acme.example", {"mcp"})
    assert len(expected) > settings.MCP_TOOLS_PAGE_SIZE
    assert [tool["name"] for tool in listed["tools"]] == expected
    assert called["isError"] is False


def test_the_real_schemes_errors_reach_the_client_as_spec_says(live_http, committed):
    url = f"{live_http.url()}/api/mcp"
    headers = pat_and_key("member@acme.example")
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    accept = {"Accept": "application/json, text/event-stream"}

    no_key = httpx2.post(url, json=body, headers={**accept, "Authorization": headers["Authorization"]})
    wrong_key = httpx2.post(url, json=body, headers={**accept, **headers, "X-Api-Key": "atr_not-a-key"})
    bad_token = httpx2.post(url, json=body, headers={**accept, "Authorization": "Bearer not-a-token"})

    assert no_key.status_code == 401 and no_key.json()["error"]["code"] == "INVALID_API_KEY"
    assert "resource_metadata=" in no_key.headers["www-authenticate"]
    assert wrong_key.status_code == 401 and wrong_key.json()["error"]["code"] == "INVALID_API_KEY"
    assert bad_token.status_code == 401
    assert 'error="invalid_token"' in bad_token.headers["www-authenticate"]
