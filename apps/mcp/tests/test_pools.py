"""The two thread pools of a web process (consumers.executor, handlers.may_wait): a call that may
wait on someone else (the user's confirmation, an outside service) runs on threads of its own, so
it never holds the threads every other request needs, including the answer it is waiting for."""

import json
import threading

import httpx
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


class Asking:
    """A confirmation call held open on its own thread: either the server asks (`question`) or
    answers at once (`answer`, the call's final JSON-RPC message)."""

    def __init__(self, client: Mcp, request_id: int) -> None:
        self.client = client
        self.question: dict | None = None
        self.answer: dict | None = None
        self.settled = threading.Event()
        erase = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "eraseEverything"},
        }
        self.thread = threading.Thread(target=self._run, args=(client, erase))
        self.thread.start()

    def _run(self, client: Mcp, message: dict) -> None:
        # The server asks on an event stream, or answers at once with plain JSON.
        headers = {**client.headers(), "Accept": "application/json, text/event-stream"}
        with (
            httpx.Client(base_url=client.server.url(), timeout=30) as http,
            http.stream("POST", "/api/mcp", json=message, headers=headers) as response,
        ):
            if response.headers["content-type"].startswith("application/json"):
                response.read()
                self._collect(response.json())
                return
            for line in response.iter_lines():
                if line.startswith("data: "):
                    self._collect(json.loads(line[6:]))

    def _collect(self, event: dict) -> None:
        if event.get("method") == "elicitation/create":
            self.question = event
        else:
            self.answer = event
        self.settled.set()


@pytest.fixture(scope="module")
def few_seats(mcp_env):  # type: ignore[no-untyped-def]
    server = start_web(
        {
            **mcp_env,
            "ATRIUM_MCP_QUICK_THREADS": "1",
            "ATRIUM_MCP_WORKER_THREADS": "1",
            "ATRIUM_MCP_MAX_WAITING": "4",
            "ATRIUM_MCP_MAX_WAITING_PER_SESSION": "2",
            "ATRIUM_MCP_MAX_WAITING_PER_PERSON": "3",
        },
    )
    yield server
    server.stop()


@pytest.mark.live
def test_unanswered_questions_are_capped_and_never_stall_another_persons_calls(few_seats):
    clients = {
        name: Mcp(few_seats, email=email)
        for name, email in (
            ("first", "member@acme.example"),
            ("second", "member@acme.example"),
            ("owner", "owner@acme.example"),
            ("admin", "admin@acme.example"),
        )
    }
    calls: list[Asking] = []

    def ask(name: str, count: int) -> list[Asking]:
        started = [Asking(clients[name], 100 + len(calls) + index) for index in range(count)]
        calls.extend(started)
        for call in started:
            assert call.settled.wait(15), "the call neither asked nor answered"
        return started

    try:
        for client in clients.values():
            client.initialize(capabilities={"elicitation": {}})
        # One session keeps two questions open; its third call gets a token instead of a thread.
        first = ask("first", 3)
        # The same person in another session: three questions in all, then tokens.
        second = ask("second", 2)
        asked = [call for call in first + second if call.question is not None]
        tokens = [call for call in first + second if call.answer is not None]
        assert (len(asked), len(tokens)) == (3, 2)
        for call in tokens:
            result = call.answer["result"]  # type: ignore[index]
            assert result["isError"] is True
            assert "confirmationToken" in result["content"][0]["text"]

        # Another person's write still runs at once, on the one thread left for running calls...
        written = clients["owner"].result("rememberValue", {"value": "still served"})
        assert written.get("isError") is not True, written
        # ...and their own confirmation is still asked: the first person's limits are not theirs.
        (owners,) = ask("owner", 1)
        assert owners.question is not None
        # The process holds four questions now: a fifth person's call gets a token.
        (admins,) = ask("admin", 1)
        assert admins.answer is not None and admins.answer["result"]["isError"] is True
    finally:
        # Declined: each asked call ends with the tool's refusal, and frees its seat.
        for call in calls:
            if call.question is not None:
                call.client.post(
                    {"jsonrpc": "2.0", "id": call.question["id"], "result": {"action": "decline"}}
                )
        for call in calls:
            call.thread.join(20)
        for client in clients.values():
            client.close()
    assert not any(call.thread.is_alive() for call in calls)
