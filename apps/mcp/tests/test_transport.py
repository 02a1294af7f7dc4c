"""The Streamable HTTP transport (2025-06-18; what 2025-11-25 changes is test_revision_2025_11_25.py)
against a live web process, in raw HTTP: what official
clients never send, and the exact status codes and headers of each rule."""

import pytest

pytestmark = pytest.mark.live


def test_initialize_echoes_2025_06_18_and_names_the_workspace(mcp):
    response = mcp.initialize(version="2025-06-18", capabilities={"elicitation": {}})
    result = response.json()["result"]

    assert result["protocolVersion"] == "2025-06-18"
    assert result["serverInfo"] == {"name": "Acme Workspace", "title": "Acme Workspace", "version": "0.1.0"}
    assert result["capabilities"] == {"tools": {"listChanged": True}}
    assert "Acme Workspace" in result["instructions"]
    session_id = response.headers["mcp-session-id"]
    assert len(session_id) >= 32 and all(0x21 <= ord(char) <= 0x7E for char in session_id)


def test_an_older_supported_version_is_echoed(mcp):
    assert mcp.initialize(version="2025-03-26").json()["result"]["protocolVersion"] == "2025-03-26"


def test_ping_answers_an_empty_result(mcp):
    mcp.initialize()
    response = mcp.request("ping")

    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"jsonrpc": "2.0", "id": response.json()["id"], "result": {}}


# --- credentials (SPEC 4.1, 7.1) ----------------------------------------------------------------


def test_without_a_credential_the_endpoint_challenges_with_the_resource_metadata(mcp):
    mcp.credentials = {}
    response = mcp.request("ping")

    assert response.status_code == 401
    assert response.headers["www-authenticate"] == (
        f'Bearer resource_metadata="{mcp.server.url()}/.well-known/oauth-protected-resource"'
    )
    assert response.json() == {
        "error": {"code": "UNAUTHENTICATED", "message": "Access token missing or invalid."}
    }


def test_a_bad_token_is_challenged_as_invalid(mcp):
    mcp.credentials = {"Authorization": "Bearer test:nobody@acme.example"}
    response = mcp.request("ping")

    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]
    assert "resource_metadata=" in response.headers["www-authenticate"]


def test_a_scheme_error_keeps_its_status_body_and_headers(mcp):
    mcp.credentials = {"Authorization": "Bearer test:over-budget"}
    response = mcp.request("ping")

    assert response.status_code == 429
    assert response.headers["retry-after"] == "3600"
    assert response.json()["error"]["code"] == "BUDGET_EXCEEDED"


def test_a_token_without_an_mcp_scope_is_refused_as_insufficient_scope(mcp):
    mcp.credentials = {"Authorization": "Bearer test:member@acme.example:offline_access"}
    response = mcp.request("ping")

    assert response.status_code == 403
    assert response.headers["www-authenticate"] == 'Bearer error="insufficient_scope", scope="mcp"'
    assert response.json()["error"]["code"] == "INSUFFICIENT_SCOPE"


def test_credentials_are_checked_on_every_request_not_only_at_initialize(mcp):
    mcp.initialize()
    mcp.credentials = {}

    assert mcp.request("ping").status_code == 401


def test_a_credential_of_another_workspace_is_unknown_here(mcp_server):
    from apps.mcp.tests.conftest import Mcp

    globex = Mcp(mcp_server, host="127.0.0.2", email="member@acme.example")
    assert globex.request("ping").status_code == 401


# --- messages -----------------------------------------------------------------------------------


def test_a_batch_is_refused_with_400(mcp):
    mcp.initialize()
    response = mcp.post([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])

    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600
    assert "one JSON-RPC message" in response.json()["error"]["message"]


def test_a_body_that_is_not_json_is_a_parse_error(mcp):
    response = mcp.http.post("/api/mcp", content=b"{nope", headers=mcp.headers())

    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700


def test_a_message_that_is_not_json_rpc_is_refused(mcp):
    assert mcp.post({"id": 1, "method": "ping"}).status_code == 400
    assert mcp.post({"jsonrpc": "2.0", "id": None, "method": "ping"}).status_code == 400
    assert mcp.post({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}).status_code == 400


def raw_initialize(capabilities: bytes) -> bytes:
    return (
        b'{"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
        b'"clientInfo": {"name": "raw"}, "capabilities": ' + capabilities + b"}}"
    )


@pytest.mark.parametrize(
    ("capabilities", "words"),
    [
        (b'{"experimental": {"x": "a\\u0000b"}}', "NUL"),
        (b'{"experimental": {"x": "\\ud800"}}', "surrogate"),
        (b'{"experimental": {"x": 1e400}}', "too large"),
        (b'{"experimental": {"x": 18446744073709551616}}', "64 bits"),
    ],
)
def test_initialize_with_what_no_store_keeps_is_invalid_params_naming_the_place(mcp, capabilities, words):
    response = mcp.http.post("/api/mcp", content=raw_initialize(capabilities), headers=mcp.headers())

    assert response.status_code == 400
    body = response.json()
    assert body["id"] == 7
    assert body["error"]["code"] == -32602
    assert "params.capabilities.experimental.x" in body["error"]["message"]
    assert words in body["error"]["message"]
    assert "mcp-session-id" not in response.headers


@pytest.mark.parametrize("request_id", [b'"\\ud800"', b'"a\\u0000b"'])
def test_an_id_no_store_keeps_is_refused_without_being_written_back(mcp, request_id):
    body = b'{"jsonrpc": "2.0", "id": ' + request_id + b', "method": "ping"}'

    response = mcp.http.post("/api/mcp", content=body, headers=mcp.headers())

    assert response.status_code == 400
    assert response.json()["id"] is None
    assert response.json()["error"]["code"] == -32600
    assert "id" in response.json()["error"]["message"]


def test_infinity_is_not_json(mcp):
    response = mcp.http.post(
        "/api/mcp", content=raw_initialize(b'{"experimental": {"x": Infinity}}'), headers=mcp.headers()
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700


def test_a_body_nested_thousands_deep_is_refused_without_recursing(mcp):
    mcp.initialize()
    deep = (
        b'{"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"x": ' + b"[" * 5000 + b"]" * 5000 + b"}}"
    )
    response = mcp.http.post("/api/mcp", content=deep, headers=mcp.headers())

    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600
    assert "nested deeper than 64 levels" in response.json()["error"]["message"]


def test_a_nul_in_a_tool_argument_is_refused_naming_the_argument(mcp):
    mcp.initialize()
    response = mcp.call("searchContacts", {"query": "a\x00b"})

    assert response.status_code == 400
    body = response.json()
    assert body["id"] == mcp.next_id - 1
    assert body["error"]["code"] == -32602
    assert body["error"]["message"].startswith("Invalid params: params.arguments.query: contains a NUL")


@pytest.mark.parametrize(
    "accept",
    [
        "application/json",
        "text/event-stream",
        "*/*",
        "application/*, text/*",
        "application/json;q=0, text/event-stream",
        None,
    ],
)
def test_a_post_whose_accept_does_not_list_both_types_is_406(mcp, accept):
    headers = mcp.headers(Accept=accept or "")
    if accept is None:
        del headers["Accept"]
    request = mcp.http.build_request(
        "POST", "/api/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers
    )
    if accept is None:
        del request.headers["accept"]  # httpx would send */* in its place
    response = mcp.http.send(request)

    assert response.status_code == 406
    assert "must list both application/json and text/event-stream" in response.json()["error"]["message"]


def test_a_stream_is_opened_only_for_an_accept_that_lists_the_event_stream(mcp):
    mcp.initialize()

    wildcard = mcp.http.get("/api/mcp", headers=mcp.headers(Accept="*/*"))
    with mcp.http.stream("GET", "/api/mcp", headers=mcp.headers(Accept="text/event-stream")) as stream:
        opened = stream.status_code

    assert wildcard.status_code == 406
    assert "must list text/event-stream" in wildcard.json()["error"]["message"]
    assert opened == 200


def test_accept_may_list_both_types_with_weights_and_parameters(mcp):
    response = mcp.request(
        "initialize",
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw"}},
        Accept="text/event-stream;q=0.5, Application/JSON; charset=utf-8",
    )

    assert response.status_code == 200


def test_the_body_must_be_declared_json(mcp):
    response = mcp.http.post("/api/mcp", content=b"{}", headers=mcp.headers(**{"Content-Type": "text/plain"}))

    assert response.status_code == 415


def test_other_http_methods_are_not_allowed(mcp):
    response = mcp.http.put("/api/mcp", headers=mcp.headers())

    assert response.status_code == 405
    assert response.headers["allow"] == "GET, POST, DELETE, OPTIONS"


def test_notifications_and_responses_get_202_and_no_body(mcp):
    mcp.initialize()
    notification = mcp.post({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    stray_response = mcp.post({"jsonrpc": "2.0", "id": "not-asked", "result": {}})

    assert (notification.status_code, notification.content) == (202, b"")
    assert (stray_response.status_code, stray_response.content) == (202, b"")


def test_an_unknown_method_is_method_not_found(mcp):
    mcp.initialize()
    response = mcp.request("resources/list")

    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32601


def test_initialize_without_a_protocol_version_is_invalid_params(mcp):
    response = mcp.request("initialize", {"capabilities": {}})

    assert response.json()["error"]["code"] == -32602
    assert "mcp-session-id" not in response.headers


# --- sessions and versions ----------------------------------------------------------------------


def test_a_request_without_the_session_header_is_400(mcp):
    mcp.initialize()
    mcp.session_id = None

    assert mcp.request("ping").status_code == 400


def test_an_unknown_session_is_404(mcp):
    mcp.initialize()
    mcp.session_id = "not-a-session-we-gave"
    response = mcp.request("ping")

    assert response.status_code == 404
    assert "Initialize a new session" in response.json()["error"]["message"]


def test_another_persons_session_is_unknown_to_them(mcp, mcp_server):
    from apps.mcp.tests.conftest import Mcp

    mcp.initialize()
    intruder = Mcp(mcp_server, email="viewer@acme.example")
    intruder.session_id = mcp.session_id

    assert intruder.request("ping").status_code == 404
    assert mcp.request("ping").status_code == 200


def test_delete_ends_the_session_and_it_is_404_afterwards(mcp):
    mcp.initialize()
    ended = mcp.http.delete("/api/mcp", headers=mcp.headers())

    assert ended.status_code == 204
    assert mcp.request("ping").status_code == 404
    assert mcp.http.delete("/api/mcp", headers=mcp.headers()).status_code == 404


def test_an_unsupported_protocol_version_header_is_400(mcp):
    mcp.initialize()
    response = mcp.request("ping", **{"MCP-Protocol-Version": "1999-01-01"})

    assert response.status_code == 400
    assert response.json()["error"]["data"]["supported"] == [
        "2026-07-28",
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
    ]


def test_a_newer_clients_discover_probe_gets_the_error_that_lists_our_versions(mcp):
    response = mcp.request("server/discover", **{"MCP-Protocol-Version": "2027-01-01"})

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32022
    assert error["data"] == {
        "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
        "requested": "2027-01-01",
    }
    assert response.json()["id"] == 1


# --- Origin (DNS-rebinding protection) ----------------------------------------------------------


def test_a_foreign_origin_is_refused(mcp):
    response = mcp.request("ping", Origin="http://evil.example")

    assert response.status_code == 403


def test_the_workspaces_own_origin_passes_and_gets_cors_headers(mcp):
    origin = mcp.server.url()
    response = mcp.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}, Origin=origin)

    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == origin
    assert "Mcp-Session-Id" in response.headers["access-control-expose-headers"]


def test_a_preflight_from_an_allowed_origin_lists_the_mcp_headers(mcp):
    origin = mcp.server.url()
    response = mcp.http.options(
        "/api/mcp", headers={"Origin": origin, "Access-Control-Request-Method": "POST"}
    )

    assert response.status_code == 204
    assert "Mcp-Session-Id" in response.headers["access-control-allow-headers"]
    assert response.headers["access-control-allow-origin"] == origin


def test_another_workspaces_host_is_not_an_allowed_origin(mcp):
    assert mcp.request("ping", Origin="http://127.0.0.2:1234").status_code == 403


# --- tools --------------------------------------------------------------------------------------


def _names(response):
    return [tool["name"] for tool in response.json()["result"]["tools"]]


def test_tools_list_shows_only_what_the_role_allows(mcp_server):
    from apps.mcp.tests.conftest import Mcp

    viewer, admin = Mcp(mcp_server, email="viewer@acme.example"), Mcp(mcp_server, email="admin@acme.example")
    viewer.initialize()
    admin.initialize()

    assert "readCallLog" not in _names(viewer.request("tools/list"))
    assert "readCallLog" in _names(admin.request("tools/list"))


def test_a_tool_the_role_does_not_allow_fails_exactly_like_an_unknown_one(mcp_server):
    from apps.mcp.tests.conftest import Mcp

    viewer = Mcp(mcp_server, email="viewer@acme.example")
    viewer.initialize()
    refused = viewer.request("tools/call", {"name": "readCallLog", "arguments": {}}).json()
    unknown = viewer.request("tools/call", {"name": "noSuchTool", "arguments": {}}).json()

    assert refused["error"] == {"code": -32602, "message": "Unknown tool: readCallLog"}
    assert unknown["error"] == {"code": -32602, "message": "Unknown tool: noSuchTool"}


def test_tools_list_narrows_by_query_parameter_and_header(mcp):
    mcp.initialize()
    everything = _names(mcp.request("tools/list"))
    url = "/api/mcp?readonly=true"
    read_only = mcp.http.post(
        url, json={"jsonrpc": "2.0", "id": 9, "method": "tools/list"}, headers=mcp.headers()
    )
    by_header = mcp.request("tools/list", **{"X-MCP-Readonly": "true"})

    assert "rememberValue" in everything
    assert "rememberValue" not in _names(read_only)
    assert _names(read_only) == _names(by_header)
    assert "whoAmI" in _names(read_only)


def test_a_profile_is_chosen_by_query_parameter_or_header(mcp):
    from apps.catalogue import profiles

    mcp.initialize()
    url = "/api/mcp?profile=sales"
    by_query = mcp.http.post(
        url, json={"jsonrpc": "2.0", "id": 9, "method": "tools/list"}, headers=mcp.headers()
    )
    by_header = mcp.request("tools/list", **{"X-MCP-Profile": "sales"})

    assert _names(by_query) == _names(by_header)
    assert {"searchTools", "describeTool", "callTool"} <= set(_names(by_query))
    assert set(_names(by_query)) <= profiles.tool_names("sales")
    assert "rememberValue" not in _names(by_query)


def test_an_unknown_profile_is_named_with_the_known_ones(mcp):
    mcp.initialize()
    error = mcp.request("tools/list", **{"X-MCP-Profile": "everything"}).json()["error"]

    assert error["code"] == -32602
    assert "'everything'" in error["message"] and "sales" in error["message"]


def test_an_unknown_toolset_is_named_in_the_error(mcp):
    mcp.initialize()
    response = mcp.request("tools/list", **{"X-MCP-Toolsets": "people,nonsense"})

    assert response.json()["error"]["code"] == -32602
    assert "nonsense" in response.json()["error"]["message"]


def test_a_made_up_cursor_is_invalid_params(mcp):
    mcp.initialize()

    assert mcp.request("tools/list", {"cursor": "xyz"}).json()["error"]["code"] == -32602


def test_a_plain_call_answers_json(mcp):
    mcp.initialize()
    response = mcp.request("tools/call", {"name": "whoAmI", "arguments": {}})

    assert response.headers["content-type"] == "application/json"
    result = response.json()["result"]
    assert result["structuredContent"] == {"email": "member@acme.example", "workspace": "acme"}


def test_tools_call_checks_its_params(mcp):
    mcp.initialize()

    assert mcp.request("tools/call", {"arguments": {}}).json()["error"]["code"] == -32602
    assert mcp.request("tools/call", {"name": "whoAmI", "arguments": [1]}).json()["error"]["code"] == -32602


def test_progress_turns_the_answer_into_an_event_stream_ending_with_the_result(mcp):
    mcp.initialize()
    response = mcp.request(
        "tools/call", {"name": "countSlowly", "arguments": {"steps": 2}, "_meta": {"progressToken": "p1"}}
    )

    assert response.headers["content-type"] == "text/event-stream"
    assert response.headers["cache-control"] == "no-cache, no-transform"
    events = parse_sse(response.text)
    progress = [event for event in events if event.get("method") == "notifications/progress"]
    assert [event["params"]["progress"] for event in progress] == [0, 1, 2]
    assert progress[0]["params"] == {"progressToken": "p1", "progress": 0, "total": 2, "message": "step 0"}
    assert events[-1]["result"]["content"][0]["text"] == "counted to 2"


def test_without_a_progress_token_no_progress_is_sent(mcp):
    mcp.initialize()
    response = mcp.request("tools/call", {"name": "countSlowly", "arguments": {"steps": 2, "pause": 0}})

    assert response.headers["content-type"] == "application/json"


def test_session_state_lives_in_the_store_between_requests(mcp):
    mcp.initialize()
    first = mcp.request("tools/call", {"name": "rememberValue", "arguments": {"value": 42}})
    second = mcp.request("tools/call", {"name": "rememberValue", "arguments": {"value": 43}})

    assert first.json()["result"]["content"][0]["text"] == "was None"
    assert second.json()["result"]["content"][0]["text"] == "was 42"


def parse_sse(text: str) -> list[dict]:
    import json

    events = []
    for block in text.split("\n\n"):
        data = [line[6:] for line in block.splitlines() if line.startswith("data: ")]
        if data:
            events.append(json.loads("\n".join(data)))
    return events
