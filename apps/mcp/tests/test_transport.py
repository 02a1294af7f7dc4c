"""The Streamable HTTP transport (2025-06-18) against a live Daphne, in raw HTTP: what official
clients never send, and the exact status codes and headers of each rule."""

import pytest

pytestmark = pytest.mark.live


def test_initialize_negotiates_2025_06_18_and_names_the_workspace(mcp):
    response = mcp.initialize(version="2025-11-25", capabilities={"elicitation": {}})
    result = response.json()["result"]

    assert result["protocolVersion"] == "2025-06-18"
    assert result["serverInfo"] == {"name": "Acme Workspace", "title": "Acme Workspace", "version": "0.1.0"}
    assert result["capabilities"] == {"tools": {"listChanged": True}}
    assert result["instructions"] == "Test tools for member@acme.example."
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
