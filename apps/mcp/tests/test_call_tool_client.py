"""callTool through the official MCP Python client, against the live transport with the real
catalogue and the transport's fixture tools: what a client whose list was narrowed sees when it
runs the rest through callTool (the dispatcher's side: apps/catalogue/tests/test_call_tool.py)."""

import asyncio
import re

import mcp_types as types
import pytest

from apps.mcp import streams
from apps.mcp.tests.test_official_clients import python_client

pytestmark = pytest.mark.live

MEMBER = "test:member@acme.example"


def text(result) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(block.text for block in result.content)


def same_answer(one, other) -> bool:  # type: ignore[no-untyped-def]
    return (one.content, one.structured_content, one.is_error) == (
        other.content,
        other.structured_content,
        other.is_error,
    )


def test_a_list_narrowed_by_toolsets_keeps_calltool_which_runs_what_the_list_leaves_out(mcp_server):
    async def scenario():  # type: ignore[no-untyped-def]
        async with python_client(f"{mcp_server.url()}/api/mcp?toolsets=calendars", MEMBER, "auto") as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            arguments = {"query": "nobody-here"}
            direct = await client.call_tool("searchContacts", arguments)
            through = await client.call_tool("callTool", {"name": "searchContacts", "arguments": arguments})
            who = await client.call_tool("callTool", {"name": "whoAmI"})
            return listed, direct, through, who

    listed, direct, through, who = asyncio.run(scenario())

    assert {"searchTools", "describeTool", "callTool"} <= set(listed)
    assert "searchContacts" not in listed and "getCalendarSummary" in listed
    annotations = listed["callTool"].annotations
    # readOnlyHint left out: false, MCP's default.
    assert (annotations.read_only_hint, annotations.destructive_hint, annotations.open_world_hint) == (
        None,
        True,
        True,
    )
    assert through.is_error is False and through.structured_content["total"] == 0
    assert same_answer(through, direct)
    assert who.structured_content == {"email": "member@acme.example", "workspace": "acme"}


def test_a_destructive_tool_through_calltool_waits_for_the_token_then_acts(mcp_server):
    async def scenario():  # type: ignore[no-untyped-def]
        async with python_client(f"{mcp_server.url()}/api/mcp", MEMBER, "auto") as client:
            asked = await client.call_tool("callTool", {"name": "eraseEverything"})
            token = re.search(r'"confirmationToken": "([^"]+)"', text(asked))
            assert token, text(asked)
            done = await client.call_tool(
                "callTool", {"name": "eraseEverything", "arguments": {"confirmationToken": token.group(1)}}
            )
            return asked, done

    asked, done = asyncio.run(scenario())

    assert asked.is_error is True
    assert text(asked).startswith("Confirmation required: eraseEverything is marked DESTRUCTIVE")
    assert "Nothing was done" in text(asked)
    assert (done.is_error, text(done)) == (False, "erased (not really)")


def test_calltool_asks_the_user_by_elicitation_and_relays_progress(mcp_server):
    asked: list[str] = []

    async def answer(context, params):  # type: ignore[no-untyped-def]
        asked.append(params.message)
        # The client offers 2025-11-25, so the question is the titled choice: allow it.
        assert "decision" in params.requested_schema["properties"]
        return types.ElicitResult(action="accept", content={"decision": "allow"})

    async def scenario():  # type: ignore[no-untyped-def]
        seen: list[float] = []

        async def on_progress(progress, total, message):  # type: ignore[no-untyped-def]
            seen.append(progress)

        async with python_client(
            f"{mcp_server.url()}/api/mcp", MEMBER, "legacy", elicitation_callback=answer
        ) as client:
            counted = await client.call_tool(
                "callTool", {"name": "countSlowly", "arguments": {"steps": 3}}, progress_callback=on_progress
            )
            erased = await client.call_tool("callTool", {"name": "eraseEverything"})
        return seen, counted, erased

    seen, counted, erased = asyncio.run(scenario())

    assert seen == [0, 1, 2, 3]
    assert text(counted) == "counted to 3"
    assert len(asked) == 1 and "(eraseEverything)" in asked[0]
    assert text(erased) == "erased (not really)"


@pytest.fixture
def new_caller():  # type: ignore[no-untyped-def]
    """No state kept for any 2026-07-28 caller: the stand-in credential is every test's, and an
    earlier test of the process that made the calendar's first call would have done it for this
    one (apps.mcp.callers keeps it a day)."""
    client = streams.redis_client()
    for key in client.scan_iter(match=streams.redis_name("caller", "*")):
        client.delete(key)


def test_the_mandatory_first_call_answers_through_calltool_as_directly(mcp_server, new_caller):
    async def scenario():  # type: ignore[no-untyped-def]
        async with python_client(f"{mcp_server.url()}/api/mcp", MEMBER, "auto") as client:
            direct = await client.call_tool("searchCalendarEvents", {})
            through = await client.call_tool("callTool", {"name": "searchCalendarEvents", "arguments": {}})
            first = await client.call_tool("callTool", {"name": "getCalendarSummary"})
            after = await client.call_tool("callTool", {"name": "searchCalendarEvents", "arguments": {}})
            return direct, through, first, after

    direct, through, first, after = asyncio.run(scenario())

    assert through.is_error is True and same_answer(through, direct)
    assert text(through).startswith("getCalendarSummary must be called first")
    assert first.is_error is False and "workspaceTimeZone" in first.structured_content
    assert after.is_error is False


def test_calltool_answers_unknown_for_forbidden_tools_and_refuses_bad_calls(mcp_server):
    async def scenario():  # type: ignore[no-untyped-def]
        async with python_client(f"{mcp_server.url()}/api/mcp", MEMBER, "auto") as client:
            forbidden = await client.call_tool("callTool", {"name": "readCallLog"})  # admins only
            unknown = await client.call_tool("callTool", {"name": "noSuchTool"})
            bad_direct = await client.call_tool("countSlowly", {"steps": "many"})
            bad_through = await client.call_tool(
                "callTool", {"name": "countSlowly", "arguments": {"steps": "many"}}
            )
            itself = await client.call_tool("callTool", {"name": "callTool", "arguments": {"name": "whoAmI"}})
            return forbidden, unknown, bad_direct, bad_through, itself

    forbidden, unknown, bad_direct, bad_through, itself = asyncio.run(scenario())

    assert forbidden.is_error is True and unknown.is_error is True
    assert text(forbidden).startswith("Unknown tool: readCallLog.")
    assert text(forbidden).replace("readCallLog", "noSuchTool") == text(unknown)
    assert bad_through.is_error is True and same_answer(bad_through, bad_direct)
    assert "Invalid arguments for countSlowly" in text(bad_through)
    assert itself.is_error is True and text(itself).startswith("callTool cannot run callTool")
