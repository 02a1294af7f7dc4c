"""The helpers the MCP door uses: the scope-to-tool rule and the WWW-Authenticate challenges."""

import pytest

from apps.oauth import resource, scopes


@pytest.mark.parametrize(
    ("granted", "read_tools", "write_tools"),
    [
        ({"mcp"}, True, True),
        ({"mcp:read"}, True, False),
        ({"mcp:write"}, True, True),
        ({"mcp:read", "mcp:write"}, True, True),
        ({"offline_access"}, False, False),
        (set(), False, False),
    ],
)
def test_mcp_read_sees_read_only_tools_and_mcp_write_adds_the_rest(granted, read_tools, write_tools):
    assert scopes.allows_tool(granted, read_only=True) is read_tools
    assert scopes.allows_tool(granted, read_only=False) is write_tools


@pytest.mark.parametrize(
    ("granted", "words"),
    [
        ({"mcp"}, ["Use every tool your role allows: read, create, change and delete data"]),
        (
            {"mcp", "mcp:read", "mcp:write"},
            ["Use every tool your role allows: read, create, change and delete data"],
        ),
        ({"mcp:write"}, ["Use every tool your role allows, including those that change data"]),
        ({"mcp:read"}, ["Read your workspace's data (read-only tools)"]),
        (
            {"mcp:read", "offline_access"},
            [
                "Read your workspace's data (read-only tools)",
                "Stay connected while you are away, until you disconnect it",
            ],
        ),
    ],
)
def test_scopes_are_told_to_people_in_one_line_for_tools_and_one_for_staying_connected(granted, words):
    assert scopes.describe(granted) == words


def test_the_scope_a_step_up_asks_for_is_the_narrowest_that_allows_the_tool():
    assert scopes.scope_for_tool(read_only=True) == "mcp:read"
    assert scopes.scope_for_tool(read_only=False) == "mcp:write"


def test_the_401_challenge_points_at_the_protected_resource_metadata():
    assert resource.challenge("http://127.0.0.1:8000") == (
        'Bearer resource_metadata="http://127.0.0.1:8000/.well-known/oauth-protected-resource"'
    )


def test_the_403_challenge_says_insufficient_scope_and_which_scope():
    assert resource.insufficient_scope_challenge("https://acme.example", scope="mcp:write") == (
        'Bearer error="insufficient_scope", error_description="This needs the mcp:write scope.", '
        'scope="mcp:write", resource_metadata="https://acme.example/.well-known/oauth-protected-resource"'
    )


def test_challenge_values_cannot_break_out_of_their_quotes():
    value = resource.challenge("http://h", error="invalid_token", description='say "hi"\r\nX-Evil: 1')

    assert '\\"hi\\"' in value and "\r" not in value and "\n" not in value


@pytest.mark.parametrize(
    ("value", "same"),
    [
        ("http://127.0.0.1:8000/api/mcp", True),
        ("http://127.0.0.1:8000/api/mcp/", True),
        ("HTTP://127.0.0.1:8000/api/mcp", True),
        ("http://127.0.0.1:8000/api/mcp?x=1", False),
        ("http://127.0.0.1:8000/api/mcp#frag", False),
        ("http://127.0.0.1:8001/api/mcp", False),
        ("http://127.0.0.1:8000/api/mcpx", False),
        ("http://user@127.0.0.1:8000/api/mcp", False),
        ("https://127.0.0.1:8000/api/mcp", False),
        ("not a url", False),
        ("", False),
    ],
)
def test_a_resource_parameter_names_the_mcp_endpoint_only_as_that_url(value, same):
    assert resource.is_same_resource(value, "http://127.0.0.1:8000") is same


def test_default_ports_compare_equal():
    assert resource.is_same_resource("https://acme.example:443/api/mcp", "https://acme.example")
