"""Tasks (MCP 2025-11-25, apps.mcp.jobs) in raw HTTP against a live web process and a Celery
worker on the same database and Redis: the capability and `execution.taskSupport` a 2025-11-25
client sees (and a 2025-06-18 one does not), a task-augmented tools/call of a long tool,
tasks/get, tasks/result, tasks/list, tasks/cancel, the status notifications, a task asking its
client through tasks/result, who may see a task, and the catalogue's startToolTask /
getToolTaskStatus for clients without tasks. The 2026-07-28 extension: test_tasks_extension.py."""

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from apps.core.testing import start_celery_worker
from apps.mcp.testing import ACCEPT_BOTH
from apps.mcp.tests.conftest import Mcp

pytestmark = pytest.mark.live

TASKS_CAPABILITY = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}


@pytest.fixture(scope="module")
def worker(mcp_env, tmp_path_factory) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    process = start_celery_worker(mcp_env, tmp_path_factory.mktemp("tasks-worker"), "mcp-tasks")
    yield process
    process.stop()


@pytest.fixture
def owner(mcp_server) -> Iterator[Mcp]:  # type: ignore[no-untyped-def]
    client = Mcp(mcp_server, email="owner@acme.example")
    yield client
    client.close()


def _ok(answer: Any) -> dict[str, Any]:
    body = answer.json()
    assert "result" in body, body
    return body["result"]


def _task_call(mcp: Mcp, name: str, arguments: dict[str, Any], task: Any = None) -> Any:
    return mcp.request(
        "tools/call", {"name": name, "arguments": arguments, "task": {} if task is None else task}
    )


def _until(mcp: Mcp, task_id: str, statuses: set[str], timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        task = _ok(mcp.request("tasks/get", {"taskId": task_id}))
        if task["status"] in statuses or time.monotonic() > deadline:
            return task
        time.sleep(0.2)


# --- negotiation ----------------------------------------------------------------------------------


def test_a_2025_11_25_client_is_told_of_tasks_and_which_tools_take_them(owner):
    result = owner.initialize(version="2025-11-25").json()["result"]

    assert result["capabilities"]["tasks"] == TASKS_CAPABILITY
    tools, cursor = {}, None
    while True:  # every page
        listed = _ok(owner.request("tools/list", {"cursor": cursor} if cursor else {}))
        tools |= {tool["name"]: tool for tool in listed["tools"]}
        if not (cursor := listed.get("nextCursor")):
            break
    assert tools["exportDocumentToPdf"]["execution"] == {"taskSupport": "optional"}
    assert tools["slowExport"]["execution"] == {"taskSupport": "optional"}
    assert tools["validateAttendeeImport"]["execution"] == {"taskSupport": "optional"}
    assert "execution" not in tools["getDocument"]
    assert "execution" not in tools["whoAmI"]


def test_a_2025_06_18_client_sees_nothing_of_tasks(owner):
    result = owner.initialize(version="2025-06-18").json()["result"]

    assert result["capabilities"] == {"tools": {"listChanged": True}}
    tools = _ok(owner.request("tools/list"))["tools"]
    assert not [tool["name"] for tool in tools if "execution" in tool]
    assert owner.request("tasks/list").json()["error"]["code"] == -32601
    # `task` means nothing to it: the call runs directly, as before.
    direct = _ok(_task_call(owner, "slowExport", {"seconds": 0}))
    assert direct["structuredContent"] == {"exported": 0}


# --- the life of a task ---------------------------------------------------------------------------


def test_a_long_export_runs_as_a_task_and_its_result_is_fetched_later(owner, worker):
    owner.initialize(version="2025-11-25")
    stream = owner.stream()
    document = _ok(owner.call("createDocument", {"title": "Quarterly plan", "content": "# Plan\n\nGrow."}))
    document_id = document["structuredContent"]["id"]

    created = _ok(_task_call(owner, "exportDocumentToPdf", {"documentId": document_id}, {"ttl": 120_000}))

    task = created["task"]
    assert task["status"] == "working"
    assert task["ttl"] == 120_000
    assert task["pollInterval"] == 1000
    assert task["createdAt"].endswith("Z") and task["lastUpdatedAt"].endswith("Z")
    done = _until(owner, task["taskId"], {"completed", "failed"})
    assert done["status"] == "completed", done
    result = _ok(owner.request("tasks/result", {"taskId": task["taskId"]}))
    assert result["isError"] is False
    assert result["structuredContent"]["documentId"] == document_id
    assert result["structuredContent"]["file"]["name"] == "Quarterly plan v1.pdf"
    assert result["_meta"] == {"io.modelcontextprotocol/related-task": {"taskId": task["taskId"]}}
    listed = _ok(owner.request("tasks/list"))["tasks"]
    assert listed[0]["taskId"] == task["taskId"] and listed[0]["status"] == "completed"
    _id, notification = stream.next_event(timeout=20)
    assert notification["method"] == "notifications/tasks/status"
    assert notification["params"]["taskId"] == task["taskId"]
    assert notification["params"]["status"] == "completed"
    stream.close()


def test_tasks_result_waits_for_the_task_to_be_over(owner, worker):
    owner.initialize(version="2025-11-25")
    task = _ok(_task_call(owner, "slowExport", {"seconds": 1.5}))["task"]

    started = time.monotonic()
    result = _ok(owner.request("tasks/result", {"taskId": task["taskId"]}))

    assert result["structuredContent"] == {"exported": 1.5}
    assert time.monotonic() - started > 0.5
    assert _ok(owner.request("tasks/get", {"taskId": task["taskId"]}))["status"] == "completed"


def test_a_cancelled_task_stops_and_has_no_result(owner, worker):
    owner.initialize(version="2025-11-25")
    task = _ok(_task_call(owner, "slowExport", {"seconds": 20}))["task"]
    time.sleep(1)

    cancelled = _ok(owner.request("tasks/cancel", {"taskId": task["taskId"]}))

    assert cancelled["status"] == "cancelled"
    assert cancelled["statusMessage"] == "Cancelled by the client."
    again = owner.request("tasks/cancel", {"taskId": task["taskId"]}).json()["error"]
    assert again["code"] == -32602 and "cancelled already" in again["message"]
    no_result = owner.request("tasks/result", {"taskId": task["taskId"]}).json()["error"]
    assert no_result["code"] == -32602 and "cancelled" in no_result["message"]
    time.sleep(2)  # the worker notices and stops; the task stays cancelled
    assert _ok(owner.request("tasks/get", {"taskId": task["taskId"]}))["status"] == "cancelled"


def test_a_tool_error_fails_the_task_with_its_message(owner, worker):
    owner.initialize(version="2025-11-25")
    task = _ok(_task_call(owner, "exportDocumentToPdf", {"documentId": 987654}))["task"]

    done = _until(owner, task["taskId"], {"completed", "failed"})

    assert done["status"] == "failed"
    result = _ok(owner.request("tasks/result", {"taskId": task["taskId"]}))
    assert result["isError"] is True
    assert done["statusMessage"] == result["content"][0]["text"]


# --- input a task needs, carried by tasks/result ----------------------------------------------------


def _result_answering(mcp: Mcp, task_id: str, reply: dict[str, Any]) -> dict[str, Any]:
    """POSTs tasks/result and answers each elicitation/create on its stream with `reply`; returns
    {"asked": [params...], "response": the JSON-RPC response}."""
    message = {"jsonrpc": "2.0", "id": 900, "method": "tasks/result", "params": {"taskId": task_id}}
    seen: dict[str, Any] = {"asked": []}
    with (
        httpx.Client(base_url=str(mcp.http.base_url), timeout=60) as http,
        http.stream("POST", "/api/mcp", json=message, headers=mcp.headers(Accept=ACCEPT_BOTH)) as response,
    ):
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: ":
                continue  # 2025-11-25 streams open with a priming event without data
            event = json.loads(line[6:])
            if event.get("method") == "elicitation/create":
                seen["asked"].append(event["params"])
                assert mcp.post({"jsonrpc": "2.0", "id": event["id"], "result": reply}).status_code == 202
            elif event.get("id") == 900:
                seen["response"] = event
    return seen


def test_a_task_that_needs_a_confirmation_asks_it_on_the_stream_of_tasks_result(owner, worker):
    owner.initialize(version="2025-11-25", capabilities={"elicitation": {"form": {}}})
    stream = owner.stream()
    task = _ok(_task_call(owner, "slowPurge", {}))["task"]

    waiting = _until(owner, task["taskId"], {"input_required", "completed", "failed"})
    seen = _result_answering(owner, task["taskId"], {"action": "accept", "content": {"decision": "allow"}})

    assert (
        waiting["status"] == "input_required" and waiting["statusMessage"] == "Waiting for the user's answer."
    )
    (question,) = seen["asked"]
    assert question["_meta"] == {"io.modelcontextprotocol/related-task": {"taskId": task["taskId"]}}
    assert "slowPurge" in question["message"] and "decision" in question["requestedSchema"]["properties"]
    result = seen["response"]["result"]
    assert result["content"][0]["text"] == "purged (not really)"
    assert result["_meta"] == {"io.modelcontextprotocol/related-task": {"taskId": task["taskId"]}}
    statuses = []
    while "completed" not in statuses:
        _id, notification = stream.next_event(timeout=20)
        statuses.append(notification["params"]["status"])
    assert statuses == ["input_required", "working", "completed"]
    stream.close()


def test_a_task_whose_question_is_declined_ends_saying_so(owner, worker):
    owner.initialize(version="2025-11-25", capabilities={"elicitation": {"form": {}}})
    task = _ok(_task_call(owner, "slowPurge", {}))["task"]
    _until(owner, task["taskId"], {"input_required"})

    seen = _result_answering(owner, task["taskId"], {"action": "decline"})

    result = seen["response"]["result"]
    assert result["isError"] is True and "declined" in result["content"][0]["text"]
    assert _ok(owner.request("tasks/get", {"taskId": task["taskId"]}))["status"] == "failed"


def test_a_task_of_a_client_that_cannot_be_asked_answers_with_a_confirmation_token(owner, worker):
    owner.initialize(version="2025-11-25")
    task = _ok(_task_call(owner, "slowPurge", {}))["task"]

    done = _until(owner, task["taskId"], {"completed", "failed", "input_required"})

    assert done["status"] == "failed"
    result = _ok(owner.request("tasks/result", {"taskId": task["taskId"]}))
    assert result["isError"] is True and "confirmationToken" in result["content"][0]["text"]


# --- what is refused ------------------------------------------------------------------------------


def test_only_long_tools_run_as_tasks_and_bad_task_params_are_refused(owner):
    owner.initialize(version="2025-11-25")

    quick = _task_call(owner, "whoAmI", {}).json()["error"]
    assert quick["code"] == -32601 and "does not run as a task" in quick["message"]
    assert _task_call(owner, "slowExport", {}, {"ttl": -5}).json()["error"]["code"] == -32602
    assert _task_call(owner, "slowExport", {}, "soon").json()["error"]["code"] == -32602
    assert _task_call(owner, "noSuchTool", {}).json()["error"]["message"] == "Unknown tool: noSuchTool"
    missing = owner.request("tasks/get", {"taskId": "nope"}).json()["error"]
    assert missing == {"code": -32602, "message": "Task not found: nope"}
    assert owner.request("tasks/get", {}).json()["error"]["code"] == -32602
    assert owner.request("tasks/list", {"cursor": "%%%"}).json()["error"]["code"] == -32602


def test_a_task_is_seen_only_by_the_person_and_credential_that_made_it(owner, mcp_server, worker):
    owner.initialize(version="2025-11-25")
    task = _ok(_task_call(owner, "slowExport", {"seconds": 0}))["task"]
    someone_else = Mcp(mcp_server, email="member@acme.example")
    someone_else.initialize(version="2025-11-25")

    refused = someone_else.request("tasks/get", {"taskId": task["taskId"]}).json()["error"]

    assert refused == {"code": -32602, "message": f"Task not found: {task['taskId']}"}
    assert task["taskId"] not in [t["taskId"] for t in _ok(someone_else.request("tasks/list"))["tasks"]]
    assert someone_else.request("tasks/cancel", {"taskId": task["taskId"]}).json()["error"]["code"] == -32602
    someone_else.close()


# --- the status tool, for clients without tasks ---------------------------------------------------


def test_a_client_without_tasks_starts_a_long_tool_and_polls_getToolTaskStatus(owner, worker):
    owner.initialize(version="2025-06-18")

    started = owner.result("startToolTask", {"name": "slowExport", "arguments": {"seconds": 0.5}})

    assert started["isError"] is False, started
    task_id = started["structuredContent"]["taskId"]
    assert started["structuredContent"]["status"] == "working"
    deadline = time.monotonic() + 60
    while True:
        status = owner.result("getToolTaskStatus", {"taskId": task_id})["structuredContent"]
        if status["status"] != "working" or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert status["status"] == "completed"
    assert status["result"] == {"exported": 0.5}
    quick = owner.result("startToolTask", {"name": "whoAmI"})
    assert quick["isError"] is True and "is quick: call it directly" in quick["content"][0]["text"]
    unknown = owner.result("getToolTaskStatus", {"taskId": "nope"})
    assert unknown["isError"] is True and "No task nope of yours" in unknown["content"][0]["text"]


# --- the official TypeScript client ---------------------------------------------------------------


def test_the_typescript_sdk_runs_a_long_tool_as_a_task(mcp_server, worker):
    from apps.mcp.tests.test_official_clients import run_node

    outcome = run_node(
        "mcp-task-client.mjs",
        f"{mcp_server.url()}/api/mcp",
        '{"Authorization": "Bearer test:member@acme.example"}',
        "slowExport",
        '{"seconds": 0.5}',
    )

    assert outcome["protocolVersion"] == "2025-11-25"
    assert outcome["capabilities"]["tasks"] == TASKS_CAPABILITY
    kinds = [message["type"] for message in outcome["messages"]]
    assert kinds[0] == "taskCreated" and kinds[-1] == "result", outcome["messages"]
    task_id = outcome["messages"][0]["task"]["taskId"]
    result = outcome["messages"][-1]["result"]
    assert result["structuredContent"] == {"exported": 0.5}
    assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
    listed = {task["taskId"]: task["status"] for task in outcome["listed"]["tasks"]}
    assert listed[task_id] == "completed"


def test_the_typescript_sdk_answers_what_a_task_asks_through_tasks_result(mcp_server, worker):
    from apps.mcp.tests.test_official_clients import run_node

    outcome = run_node(
        "mcp-task-client.mjs",
        f"{mcp_server.url()}/api/mcp",
        '{"Authorization": "Bearer test:member@acme.example"}',
        "slowPurge",
        "{}",
        '{"decision": "allow"}',
    )

    kinds = [message["type"] for message in outcome["messages"]]
    assert kinds[0] == "taskCreated" and kinds[-1] == "result", outcome["messages"]
    statuses = [
        message["task"]["status"] for message in outcome["messages"] if message["type"] == "taskStatus"
    ]
    assert "input_required" in statuses
    (question,) = outcome["asked"]
    task_id = outcome["messages"][0]["task"]["taskId"]
    assert question["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
    assert "slowPurge" in question["message"]
    assert outcome["messages"][-1]["result"]["content"][0]["text"] == "purged (not really)"
