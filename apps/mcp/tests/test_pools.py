"""The two thread pools of a web process (consumers.executor, handlers.may_wait): a call that may
wait on someone else (the user's confirmation, an outside service) runs on threads of its own, so
it never holds the threads every other request needs, including the answer it is waiting for."""

import json
import threading

import pytest

from apps.core.testing import start_web
from apps.mcp.handlers import Request, may_wait
from apps.mcp.testing import streamed_call
from apps.mcp.tests.conftest import Mcp


def message(method: str, params: object = None) -> bytes:
    body: dict[str, object] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        body["params"] = params
    return json.dumps(body).encode()


@pytest.mark.parametrize(
    ("body", "waits"),
    [
        (message("tools/call", {"name": "getContact", "arguments": {"contactId": 1}}), False),
        (message("tools/call", {"name": "describeTool", "arguments": {"name": "getContact"}}), False),
        # A write, then tools that ask the user to confirm (one of them calls an outside bureau).
        (message("tools/call", {"name": "createCalendarEvent", "arguments": {}}), True),
        (message("tools/call", {"name": "mergeContacts", "arguments": {}}), True),
        (message("tools/call", {"name": "getContactCreditCheck", "arguments": {}}), True),
        # callTool is judged by the tool it runs; calling itself is refused at once.
        (message("tools/call", {"name": "callTool", "arguments": {"name": "getContact"}}), False),
        (message("tools/call", {"name": "callTool", "arguments": {"name": "mergeContacts"}}), True),
        (message("tools/call", {"name": "callTool", "arguments": {"name": "callTool"}}), False),
        (message("tools/call", {"name": "callTool", "arguments": "mergeContacts"}), False),
        # Answered with an error at once.
        (message("tools/call", {"name": "noSuchTool"}), False),
        (message("tools/call", {"name": {"not": "a name"}}), False),
        (message("tools/call", [1]), False),
        (json.dumps([{"method": "tools/call"}]).encode(), False),
        (b"tools/call, and not JSON", False),
        (message("tools/list"), False),
        (message("ping"), False),
    ],
)
def test_only_calls_that_may_wait_on_someone_else_leave_the_quick_threads(body, waits):
    request = Request(method="POST", scheme="http", host="127.0.0.1", headers={}, query={}, body=body)
    assert may_wait(request) is waits


@pytest.fixture(scope="module")
def one_thread_each(mcp_env):  # type: ignore[no-untyped-def]
    server = start_web({**mcp_env, "ATRIUM_MCP_QUICK_THREADS": "1", "ATRIUM_MCP_WORKER_THREADS": "1"})
    yield server
    server.stop()


@pytest.mark.live
def test_a_call_waiting_for_the_users_answer_leaves_every_other_request_a_thread(one_thread_each):
    client = Mcp(one_thread_each)
    client.initialize(capabilities={"elicitation": {}})
    asked = threading.Event()
    events: list[dict] = []

    def collect(event: dict) -> None:
        events.append(event)
        if event.get("method") == "elicitation/create":
            asked.set()

    def call() -> None:
        erase = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "eraseEverything"}}
        streamed_call(one_thread_each.url(), client.headers(), erase, collect)

    worker = threading.Thread(target=call)
    worker.start()
    try:
        assert asked.wait(10), "the tool did not ask"
        # The one thread for calls that wait is held; everything else still runs.
        assert client.request("ping").json()["result"] == {}
        assert client.result("whoAmI")["structuredContent"]["email"] == "member@acme.example"
        answered = client.post(
            {
                "jsonrpc": "2.0",
                "id": events[0]["id"],
                "result": {"action": "accept", "content": {"confirm": True}},
            }
        )
        assert answered.status_code == 202
    finally:
        worker.join(20)
        client.close()

    assert events[-1]["id"] == 9
    assert events[-1]["result"]["content"][0]["text"] == "erased (not really)"
