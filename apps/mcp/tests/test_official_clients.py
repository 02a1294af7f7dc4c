"""The official MCP clients against the live transport (with the transport's stand-ins for the
credential and the catalogue): the Python SDK (`mcp` 2.x) in its default mode (which speaks
2026-07-28 from its first request) and its legacy mode (a 2025 session), the TypeScript SDK from
node, and the MCP Inspector CLI."""

import asyncio
import contextlib
import json
import subprocess
import threading
from pathlib import Path

import httpx
import httpx2
import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.subscriptions import ToolsListChanged

from apps.core.testing import node_bin
from apps.mcp.tests.conftest import caller_state, noted

pytestmark = pytest.mark.live

NODE_DIR = Path(__file__).resolve().parents[3] / "tests" / "node"


def python_client(url: str, token: str, mode: str, **kwargs):  # type: ignore[no-untyped-def]
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return Client(streamable_http_client(url, http_client=http), mode=mode, **kwargs)


@pytest.mark.parametrize(("mode", "negotiated"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_python_sdk_connects_sees_the_brand_lists_and_calls(mcp_server, mode, negotiated):
    async def scenario():  # type: ignore[no-untyped-def]
        async with python_client(f"{mcp_server.url()}/api/mcp", "test:member@acme.example", mode) as client:
            tools = await client.list_tools()
            result = await client.call_tool("whoAmI", {})
            return client.server_info, client.protocol_version, tools, result

    info, version, tools, result = asyncio.run(scenario())

    assert (info.name, info.title) == ("Acme Workspace", "Acme Workspace")
    # auto: its first request, server/discover, finds 2026-07-28; legacy: initialize offers 2025-11-25.
    assert version == negotiated
    assert info.icons and info.icons[0].src.endswith("/static/icons/atrium.svg")
    assert "whoAmI" in [tool.name for tool in tools.tools]
    assert all(tool.icons for tool in tools.tools)
    assert "readCallLog" not in [tool.name for tool in tools.tools]
    assert result.structured_content == {"email": "member@acme.example", "workspace": "acme"}


def test_python_sdk_offering_2025_06_18_gets_what_it_got_before(mcp_server, monkeypatch):
    from mcp.client import session

    monkeypatch.setattr(session, "LATEST_HANDSHAKE_VERSION", "2025-06-18")

    async def scenario():  # type: ignore[no-untyped-def]
        url = f"{mcp_server.url()}/api/mcp"
        async with python_client(url, "test:member@acme.example", "legacy") as client:
            tools = await client.list_tools()
            return client.server_info, client.protocol_version, tools

    info, version, tools = asyncio.run(scenario())

    assert version == "2025-06-18"
    assert not info.icons
    assert not any(tool.icons for tool in tools.tools)


def test_python_sdk_receives_progress_and_answers_an_elicitation(mcp_server):
    asked: list[str] = []

    async def answer(context, params):  # type: ignore[no-untyped-def]
        asked.append(params.message)
        # A 2025-11-25 confirmation: the titled choice (apps.catalogue.policy.confirm_schema).
        assert "decision" in params.requested_schema["properties"]
        return types.ElicitResult(action="accept", content={"decision": "allow"})

    async def scenario():  # type: ignore[no-untyped-def]
        seen: list[float] = []

        async def on_progress(progress, total, message):  # type: ignore[no-untyped-def]
            seen.append(progress)

        async with python_client(
            f"{mcp_server.url()}/api/mcp", "test:member@acme.example", "legacy", elicitation_callback=answer
        ) as client:
            counted = await client.call_tool("countSlowly", {"steps": 3}, progress_callback=on_progress)
            confirmed = await client.call_tool("eraseEverything", {})
        return seen, counted, confirmed

    seen, counted, confirmed = asyncio.run(scenario())

    assert seen == [0, 1, 2, 3]
    assert counted.content[0].text == "counted to 3"
    assert len(asked) == 1 and "eraseEverything" in asked[0]
    assert confirmed.content[0].text == "erased (not really)"


def test_python_sdk_at_2026_07_28_cancels_a_call_by_closing_its_response(mcp_server, committed):
    state = caller_state()
    state.set("cancelled", None)

    async def scenario():  # type: ignore[no-untyped-def]
        async with python_client(f"{mcp_server.url()}/api/mcp", "test:member@acme.example", "auto") as client:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(client.call_tool("waitForCancel", {"seconds": 10}), 0.5)
            return client.protocol_version

    version = asyncio.run(scenario())

    assert version == "2026-07-28"
    assert noted(state, "cancelled") is not None, "the tool never saw its call cancelled"


def test_python_sdk_at_2026_07_28_streams_progress_and_confirms_by_answering(mcp_server):
    asked: list[str] = []

    async def answer(context, params):  # type: ignore[no-untyped-def]
        asked.append(params.message)
        assert "decision" in params.requested_schema["properties"]
        return types.ElicitResult(action="accept", content={"decision": "allow"})

    async def scenario():  # type: ignore[no-untyped-def]
        seen: list[float] = []

        async def on_progress(progress, total, message):  # type: ignore[no-untyped-def]
            seen.append(progress)

        async with python_client(
            f"{mcp_server.url()}/api/mcp", "test:member@acme.example", "auto", elicitation_callback=answer
        ) as client:
            counted = await client.call_tool("countSlowly", {"steps": 3}, progress_callback=on_progress)
            # An InputRequiredResult: the client asks the callback and calls again with the answer.
            confirmed = await client.call_tool("eraseEverything", {})
            return client.protocol_version, seen, counted, confirmed

    version, seen, counted, confirmed = asyncio.run(scenario())

    assert version == "2026-07-28"
    assert seen == [0, 1, 2, 3]
    assert counted.content[0].text == "counted to 3"
    assert len(asked) == 1 and "eraseEverything" in asked[0]
    assert confirmed.content[0].text == "erased (not really)"


def test_python_sdk_at_2026_07_28_hears_list_changed_on_its_subscription(mcp_server):
    async def scenario():  # type: ignore[no-untyped-def]
        url = f"{mcp_server.url()}/api/mcp"
        async with (
            python_client(url, "test:member@acme.example", "auto") as client,
            client.listen(tools_list_changed=True, prompts_list_changed=True) as subscription,
        ):
            await client.call_tool("test_trigger_tool_change", {})
            event = await asyncio.wait_for(anext(aiter(subscription)), 10)
            return client.protocol_version, subscription.honored, event

    version, honoured, event = asyncio.run(scenario())

    assert version == "2026-07-28"
    assert honoured.tools_list_changed and not honoured.prompts_list_changed
    assert isinstance(event, ToolsListChanged)


def test_python_sdk_opens_a_url_elicitation_and_the_tool_goes_on(mcp_server):
    from apps.mcp.tests.test_secure_input import enter, signed_in

    asked: list[types.ElicitRequestURLParams] = []
    entered: list[httpx.Response] = []

    async def answer(context, params):  # type: ignore[no-untyped-def]
        asked.append(params)
        # What a client does: it opens the page; the person, signed in, types the key there.
        browser = signed_in(mcp_server.url(), "member@acme.example")
        threading.Timer(0.3, lambda: entered.append(enter(browser, params.url, "sk-from-sdk"))).start()
        return types.ElicitResult(action="accept")

    async def scenario():  # type: ignore[no-untyped-def]
        url = f"{mcp_server.url()}/api/mcp"
        async with python_client(
            url, "test:member@acme.example", "legacy", elicitation_callback=answer
        ) as client:
            return await client.call_tool("connectTestAccount", {"account": "sdk"})

    result = asyncio.run(scenario())

    assert len(asked) == 1 and asked[0].mode == "url"
    assert asked[0].url.startswith(f"{mcp_server.url()}/settings/secure-input/")
    assert entered and entered[0].status_code == 200
    assert result.structured_content == {"account": "sdk", "keyLength": 11}


def test_python_sdk_without_an_elicitation_callback_gets_url_elicitation_required(mcp_server):
    from mcp import MCPError, UrlElicitationRequiredError

    async def scenario():  # type: ignore[no-untyped-def]
        url = f"{mcp_server.url()}/api/mcp"
        async with python_client(url, "test:member@acme.example", "legacy") as client:
            try:
                await client.call_tool("connectTestAccount", {"account": "no-callback"})
            except MCPError as error:
                return error
        return None

    error = asyncio.run(scenario())

    assert error is not None and error.code == -32042
    [elicitation] = UrlElicitationRequiredError.from_error(error.error).elicitations
    assert elicitation.mode == "url"
    assert elicitation.message == "Enter the API key of the account no-callback."


def test_python_sdk_hears_list_changed_on_its_stream(mcp_server, committed):
    from apps.accounts.models import User
    from apps.mcp.signals import notify_tools_changed

    def raise_change() -> int:
        from django.db import connection
        from django_tenants.utils import schema_context

        try:
            with schema_context("acme"):
                member = User.objects.get(email="member@acme.example").pk
            return notify_tools_changed(schema_name="acme", user_ids=[member])
        finally:
            connection.close()  # this worker thread's own connection

    async def scenario():  # type: ignore[no-untyped-def]
        heard = asyncio.Event()

        async def on_message(message):  # type: ignore[no-untyped-def]
            if (
                isinstance(message, types.ServerNotification)
                and message.method == "notifications/tools/list_changed"
            ):
                heard.set()

        async with python_client(
            f"{mcp_server.url()}/api/mcp", "test:member@acme.example", "legacy", message_handler=on_message
        ) as client:
            await client.list_tools()
            for _attempt in range(20):  # the client opens its GET stream in the background
                await asyncio.to_thread(raise_change)
                try:
                    await asyncio.wait_for(heard.wait(), 0.5)
                    return True
                except TimeoutError:
                    continue
        return False

    assert asyncio.run(scenario())


def run_node(script: str, *args: str) -> dict:
    completed = subprocess.run(
        ["node", script, *args],
        cwd=NODE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_typescript_sdk_connects_lists_and_calls(mcp_server):
    outcome = run_node(
        "mcp-client.mjs",
        f"{mcp_server.url()}/api/mcp",
        json.dumps({"Authorization": "Bearer test:member@acme.example"}),
    )

    assert outcome["server"]["name"] == "Acme Workspace"
    assert outcome["protocolVersion"] == "2025-11-25"
    assert outcome["server"]["icons"][0]["mimeType"] == "image/svg+xml"
    assert "whoAmI" in outcome["tools"] and "readCallLog" not in outcome["tools"]
    assert outcome["call"]["structuredContent"] == {"email": "member@acme.example", "workspace": "acme"}
    assert outcome["progress"] == [0, 50, 100]


def inspector(url: str, *args: str) -> dict:
    completed = subprocess.run(
        [node_bin("mcp-inspector"), "--cli", url, "--transport", "http", *args],
        cwd=NODE_DIR,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert completed.returncode == 0, (completed.stdout + completed.stderr)[-3000:]
    return json.loads(completed.stdout)


def test_inspector_cli_lists_and_calls(mcp_server):
    url = f"{mcp_server.url()}/api/mcp"
    auth = ("--header", "Authorization: Bearer test:admin@acme.example")

    listed = inspector(url, *auth, "--method", "tools/list")
    called = inspector(url, *auth, "--method", "tools/call", "--tool-name", "whoAmI")

    assert "readCallLog" in [tool["name"] for tool in listed["tools"]]
    assert called["structuredContent"]["email"] == "admin@acme.example"
