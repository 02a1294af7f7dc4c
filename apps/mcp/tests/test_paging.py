"""tools/list pages (in-process, with the real catalogue): opaque cursors that walk the whole
list, no empty nextCursor, and a cursor that no longer fits the list is refused."""

import pytest

from apps.catalogue.testing import principal_for
from apps.mcp import protocol, versions
from apps.mcp.handlers import Request, _tools_list
from apps.mcp.protocol import ProtocolError


def page(principal, cursor=None, version="2025-06-18", **query):  # type: ignore[no-untyped-def]
    params = {"cursor": cursor} if cursor is not None else {}
    message = protocol.Message(
        "request", {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}
    )
    request = Request("POST", "http", "127.0.0.1", {}, query)
    return _tools_list(request, message, principal, versions.of(version))


def test_cursors_walk_the_whole_list_and_the_last_page_has_none(people, settings):
    from apps.catalogue.dispatch import list_tools

    settings.MCP_TOOLS_PAGE_SIZE = 3
    owner = principal_for(people["owner"])
    everything = [tool["name"] for tool in list_tools(principal=owner)]
    seen, cursor, pages = [], None, 0
    while True:
        answer = page(owner, cursor)
        pages += 1
        seen += [tool["name"] for tool in answer["tools"]]
        cursor = answer.get("nextCursor")
        if cursor is None:
            break
        assert cursor  # never an empty nextCursor

    assert seen == everything
    assert pages == -(-len(everything) // 3)
    assert page(owner, page(owner)["nextCursor"]) == page(owner, page(owner)["nextCursor"])  # stable


def test_a_cursor_from_another_list_is_refused(people, settings):
    settings.MCP_TOOLS_PAGE_SIZE = 2
    owner, viewer = principal_for(people["owner"]), principal_for(people["viewer"], scopes={"mcp:read"})
    owners_cursor = page(owner)["nextCursor"]

    with pytest.raises(ProtocolError, match="changed since"):
        page(viewer, owners_cursor)
    with pytest.raises(ProtocolError, match="Invalid cursor"):
        page(owner, "not-a-cursor")


def test_a_page_is_encoded_once_and_sent_as_the_same_json_rpc_answer(people):
    import json

    owner = principal_for(people["owner"])
    first, again = page(owner), page(owner)

    assert again is first  # encoded once
    body = protocol.dumps(protocol.result(7, again))
    assert json.loads(body) == {"jsonrpc": "2.0", "id": 7, "result": json.loads(json.dumps(first))}
    assert json.loads(protocol.dumps(protocol.result("x", first)))["id"] == "x"


def test_a_2025_11_25_page_carries_icons_and_is_kept_apart_from_the_2025_06_18_one(people):
    owner = principal_for(people["owner"])
    plain, with_icons = page(owner), page(owner, version="2025-11-25")

    assert page(owner, version="2025-11-25") is with_icons  # encoded once too
    assert [tool["name"] for tool in plain["tools"]] == [tool["name"] for tool in with_icons["tools"]]
    assert not any("icons" in tool for tool in plain["tools"])
    for tool in with_icons["tools"]:
        assert tool["icons"][0]["src"].startswith("http://127.0.0.1/static/icons/")
