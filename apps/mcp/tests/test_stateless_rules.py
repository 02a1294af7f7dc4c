"""The catalogue's rules without a protocol session (MCP 2026-07-28, apps.mcp.callers): the
MANDATORY FIRST CALL holds per person and credential, in Redis, so any web process sees it; and a
confirmation given by answering an InputRequiredResult confirms one run, wherever it lands. The
2025 session path keeps its own state. In-process, through `serve` with the real credential
scheme (a personal access token and an API key)."""

from typing import Any

import pytest

from apps.catalogue.models import ToolCall
from apps.catalogue.testing import temporary_tools
from apps.catalogue.tests.marked_tools import open_desk, wipe_contact
from apps.mcp import callers, streams
from apps.mcp.testing import Door, pat_and_key

VERSION = "2026-07-28"


class StatelessDoor(Door):
    """A 2026-07-28 client served in this process."""

    def stateless(
        self, method: str, params: dict[str, Any], capabilities: dict[str, Any] | None = None
    ) -> Any:
        params = {
            **params,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": VERSION,
                "io.modelcontextprotocol/clientCapabilities": capabilities or {},
            },
        }
        headers = {"mcp-protocol-version": VERSION, "mcp-method": method}
        if method == "tools/call":
            headers["mcp-name"] = params["name"]
        saved = dict(self.headers)
        self.headers.update(headers)
        try:
            return self.send("POST", {"jsonrpc": "2.0", "id": 5, "method": method, "params": params})
        finally:
            self.headers = saved

    def use(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        capabilities: dict[str, Any] | None = None,
        **params: Any,
    ) -> dict[str, Any]:
        reply = self.stateless(
            "tools/call", {"name": name, "arguments": arguments or {}, **params}, capabilities
        )
        assert reply.status == 200, reply.body
        return reply.body["result"]


@pytest.fixture
def credentials(people):  # type: ignore[no-untyped-def]
    # Credential ids restart with each test database; what Redis kept for them must not.
    client = streams.redis_client()
    for key in client.scan_iter(streams.redis_name("caller", "*")):
        client.delete(key)
    return pat_and_key("member@acme.example")


@pytest.fixture
def marked():  # type: ignore[no-untyped-def]
    with temporary_tools(open_desk, wipe_contact):
        yield


def test_the_first_call_rule_holds_across_stateless_requests(credentials, marked):
    door = StatelessDoor(credentials)

    refused = door.use("listContacts", {})
    assert refused["isError"] is True
    assert "openContactsDesk must be called first" in refused["content"][0]["text"]

    assert door.use("openContactsDesk")["isError"] is False
    # A later request, with no session: the rule remembers the person and the credential.
    assert StatelessDoor(credentials).use("listContacts", {})["isError"] is False


def test_another_credential_of_the_same_person_starts_afresh(credentials, marked):
    StatelessDoor(credentials).use("openContactsDesk")

    other = StatelessDoor(pat_and_key("member@acme.example"))

    assert other.use("listContacts", {})["isError"] is True


def test_a_2025_session_keeps_its_own_first_call(credentials, marked):
    StatelessDoor(credentials).use("openContactsDesk")
    session = Door(credentials)
    session.initialize()

    assert session.call("listContacts", {})["result"]["isError"] is True


def test_what_a_caller_keeps_is_in_redis_for_a_while(credentials, marked, people, settings):
    from apps.core.credentials import Principal

    StatelessDoor(credentials).use("openContactsDesk")
    call = ToolCall.objects.filter(user=people["member"], tool="openContactsDesk").latest("id")
    principal = Principal(
        user=people["member"], scheme="access_token", scopes=frozenset(), credential=call.credential
    )
    key = streams.redis_name("caller", callers.caller_digest(principal))

    assert callers.CallerState(callers.caller_digest(principal)).get("catalogue:first-call") == ["contacts"]
    assert 0 < streams.redis_client().ttl(key) <= settings.MCP_CALLER_STATE_SECONDS


def test_a_confirmation_by_answer_runs_the_call_once_and_is_logged(credentials, marked, people):
    door = StatelessDoor(credentials)
    door.use("openContactsDesk")
    elicitation = {"elicitation": {}}

    asked = door.use("wipeContact", {"name": "Ada"}, capabilities=elicitation)
    assert asked["resultType"] == "input_required"
    allow = {"confirm": {"action": "accept", "content": {"decision": "allow"}}}
    done = door.use(
        "wipeContact",
        {"name": "Ada"},
        capabilities=elicitation,
        inputResponses=allow,
        requestState=asked["requestState"],
    )
    assert done["isError"] is False and done["resultType"] == "complete"
    # Another web process, the same answer again: asked anew.
    again = StatelessDoor(credentials).use(
        "wipeContact",
        {"name": "Ada"},
        capabilities=elicitation,
        inputResponses=allow,
        requestState=asked["requestState"],
    )
    assert again["resultType"] == "input_required"

    outcomes = list(
        ToolCall.objects.filter(user=people["member"], tool="wipeContact")
        .order_by("id")
        .values_list("outcome", flat=True)
    )
    assert outcomes[:3] == ["confirmation_required", "ok", "confirmation_required"]


def test_a_state_for_other_arguments_is_refused(credentials, marked):
    door = StatelessDoor(credentials)
    door.use("openContactsDesk")
    elicitation = {"elicitation": {}}
    asked = door.use("wipeContact", {"name": "Ada"}, capabilities=elicitation)

    reply = door.stateless(
        "tools/call",
        {
            "name": "wipeContact",
            "arguments": {"name": "Bob"},
            "inputResponses": {"confirm": {"action": "accept", "content": {"decision": "allow"}}},
            "requestState": asked["requestState"],
        },
        elicitation,
    )

    assert reply.body["error"]["code"] == -32602
    assert "another call" in reply.body["error"]["message"]


def test_header_values_are_read_without_surrounding_whitespace(credentials):
    door = StatelessDoor(credentials)
    message = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "tools/call",
        "params": {
            "name": "listContacts",
            "arguments": {},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": VERSION,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    door.headers.update(
        {"mcp-protocol-version": f" {VERSION}", "mcp-method": "tools/call\t", "mcp-name": "  listContacts  "}
    )

    reply = door.send("POST", message)

    assert reply.status == 200
    assert reply.body["result"]["isError"] is False
