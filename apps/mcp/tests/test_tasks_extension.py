"""The tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`, apps.mcp.jobs), in raw
HTTP against a live web process and a Celery worker: declared by server/discover; a long tool's
call becomes a task for a request that declares the extension (and stays a direct call for one
that does not); tasks/get with the result, the error or the questions; tasks/update answering
them; tasks/cancel; notifications/tasks on subscriptions/listen; who may see a task and what is
refused. The official client (the TypeScript ext-tasks package) is driven at the end."""

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from apps.core.testing import start_celery_worker
from apps.mcp.tests.conftest import Mcp
from apps.mcp.tests.test_revision_2026_07_28 import Stateless, listen

pytestmark = pytest.mark.live

EXTENSION = "io.modelcontextprotocol/tasks"
TAKES_TASKS = {"extensions": {EXTENSION: {}}}
ASKABLE = {"elicitation": {"form": {}}, **TAKES_TASKS}


@pytest.fixture(scope="module")
def worker(mcp_env, tmp_path_factory) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    process = start_celery_worker(mcp_env, tmp_path_factory.mktemp("tasks-extension-worker"), "mcp-tasks-ext")
    yield process
    process.stop()


@pytest.fixture
def client(mcp) -> Stateless:  # type: ignore[no-untyped-def]
    return Stateless(mcp, TAKES_TASKS)


def ok(answer: httpx.Response) -> dict[str, Any]:
    body = answer.json()
    assert answer.status_code == 200 and "result" in body, (answer.status_code, body)
    return body["result"]


def task_request(client: Stateless, method: str, task_id: str, **params: Any) -> httpx.Response:
    return client.send(method, {"taskId": task_id, **params}, **{"Mcp-Name": task_id})


def until(client: Stateless, task_id: str, statuses: set[str], timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        task = ok(task_request(client, "tasks/get", task_id))
        if task["status"] in statuses or time.monotonic() > deadline:
            return task
        time.sleep(0.2)


def test_server_discover_declares_the_extension(client):
    capabilities = ok(client.send("server/discover"))["capabilities"]

    assert capabilities["extensions"] == {EXTENSION: {}}


def test_a_long_tool_becomes_a_task_for_a_client_that_takes_tasks_and_its_result_is_in_tasks_get(
    client, worker
):
    created = ok(client.send("tools/call", {"name": "slowExport", "arguments": {"seconds": 0.5}}))

    assert created["resultType"] == "task" and created["status"] == "working"
    assert set(created) >= {"taskId", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"}
    assert created["ttlMs"] == 3_600_000 and created["pollIntervalMs"] == 1000
    assert "content" not in created
    done = until(client, created["taskId"], {"completed", "failed", "cancelled"})
    assert done["resultType"] == "complete" and done["status"] == "completed"
    assert done["result"]["structuredContent"] == {"exported": 0.5}
    assert done["result"]["isError"] is False and done["result"]["resultType"] == "complete"
    assert "ttl" not in done and "pollInterval" not in done  # 2025-11-25's names


def test_the_same_call_without_the_extension_is_answered_directly(mcp):
    plain = Stateless(mcp)

    answer = plain.call("slowExport", {"seconds": 0})["result"]

    assert answer["resultType"] == "complete" and answer["structuredContent"] == {"exported": 0}


def test_a_tool_error_completes_the_task_with_it(client, worker):
    created = ok(client.send("tools/call", {"name": "slowPurge", "arguments": {"seconds": 99}}))

    done = until(client, created["taskId"], {"completed", "failed", "cancelled"})

    # The arguments were wrong: a tool error is the tool's answer, so `completed`, not `failed`.
    assert done["status"] == "completed" and done["result"]["isError"] is True
    assert "seconds" in done["result"]["content"][0]["text"]


def test_a_task_asks_through_input_requests_and_goes_on_with_tasks_update(mcp, worker):
    client = Stateless(mcp, ASKABLE)
    created = ok(client.send("tools/call", {"name": "slowPurge", "arguments": {}}))
    task_id = created["taskId"]

    waiting = until(client, task_id, {"input_required", "completed", "failed"})
    assert waiting["status"] == "input_required"
    ((key, question),) = waiting["inputRequests"].items()
    assert question["method"] == "elicitation/create"
    assert "slowPurge" in question["params"]["message"]
    assert "decision" in question["params"]["requestedSchema"]["properties"]
    # Asked again, the same question under the same key, until it is answered.
    assert until(client, task_id, {"input_required"})["inputRequests"] == {key: question}

    answered = ok(
        task_request(
            client,
            "tasks/update",
            task_id,
            inputResponses={
                key: {"action": "accept", "content": {"decision": "allow"}},
                "never-asked": {"action": "accept", "content": {}},  # ignored
            },
        )
    )

    assert answered == {"resultType": "complete"}
    done = until(client, task_id, {"completed", "failed", "cancelled"})
    assert done["status"] == "completed" and done["result"]["content"][0]["text"] == "purged (not really)"
    assert "inputRequests" not in done


def test_a_declined_question_completes_the_task_with_the_declined_answer(mcp, worker):
    client = Stateless(mcp, ASKABLE)
    task_id = ok(client.send("tools/call", {"name": "slowPurge", "arguments": {}}))["taskId"]
    (key,) = until(client, task_id, {"input_required"})["inputRequests"]

    ok(task_request(client, "tasks/update", task_id, inputResponses={key: {"action": "decline"}}))

    done = until(client, task_id, {"completed", "failed", "cancelled"})
    assert done["status"] == "completed" and done["result"]["isError"] is True
    assert "declined" in done["result"]["content"][0]["text"]


def test_tasks_cancel_is_acknowledged_and_stops_a_task_still_going(client, worker):
    task_id = ok(client.send("tools/call", {"name": "slowExport", "arguments": {"seconds": 20}}))["taskId"]
    time.sleep(1)

    acknowledged = ok(task_request(client, "tasks/cancel", task_id))
    again = ok(task_request(client, "tasks/cancel", task_id))

    assert acknowledged == again == {"resultType": "complete"}
    assert until(client, task_id, {"cancelled"})["status"] == "cancelled"


def test_status_changes_reach_a_listen_stream_that_named_the_task(client, worker):
    task_id = ok(client.send("tools/call", {"name": "slowExport", "arguments": {"seconds": 1.5}}))["taskId"]

    events = listen(client, {"taskIds": [task_id, "not-a-task-of-mine"]}, lambda: None, 2)

    acknowledged, changed = events
    assert acknowledged["method"] == "notifications/subscriptions/acknowledged"
    assert acknowledged["params"]["notifications"] == {"taskIds": [task_id]}
    assert changed["method"] == "notifications/tasks"
    assert changed["params"]["taskId"] == task_id and changed["params"]["status"] == "completed"
    assert changed["params"]["result"]["structuredContent"] == {"exported": 1.5}
    subscription = acknowledged["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
    assert changed["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": subscription}


# --- what is refused ------------------------------------------------------------------------------


def test_the_task_methods_need_the_extension_declared(mcp, worker):
    client = Stateless(mcp, TAKES_TASKS)
    task_id = ok(client.send("tools/call", {"name": "slowExport", "arguments": {"seconds": 0}}))["taskId"]
    plain = Stateless(mcp)

    for method in ("tasks/get", "tasks/update", "tasks/cancel"):
        refused = task_request(plain, method, task_id, inputResponses={})
        assert refused.status_code == 400
        error = refused.json()["error"]
        assert error["code"] == -32021
        assert error["data"] == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
    listen_refused = plain.send("subscriptions/listen", {"notifications": {"taskIds": [task_id]}})
    assert listen_refused.status_code == 400 and listen_refused.json()["error"]["code"] == -32021


def test_a_task_is_seen_only_by_the_person_and_credential_that_made_it(client, mcp_server, worker):
    task_id = ok(client.send("tools/call", {"name": "slowExport", "arguments": {"seconds": 0}}))["taskId"]
    other = Mcp(mcp_server, email="admin@acme.example")
    try:
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            refused = task_request(Stateless(other, TAKES_TASKS), method, task_id, inputResponses={})
            assert refused.json()["error"] == {"code": -32602, "message": f"Task not found: {task_id}"}
    finally:
        other.close()


def test_the_routing_header_must_name_the_task_and_what_the_extension_lacks_is_not_found(client):
    mismatch = client.send("tasks/get", {"taskId": "abc"}, **{"Mcp-Name": "xyz"})
    unknown = task_request(client, "tasks/get", "no-such-task")
    malformed = task_request(client, "tasks/update", "no-such-task", inputResponses=[1])

    assert mismatch.status_code == 400 and mismatch.json()["error"]["code"] == -32020
    assert unknown.json()["error"] == {"code": -32602, "message": "Task not found: no-such-task"}
    assert malformed.json()["error"]["code"] == -32602
    for method in ("tasks/list", "tasks/result"):
        answer = client.send(method, {"taskId": "abc"})
        assert answer.status_code == 404 and answer.json()["error"]["code"] == -32601


# --- the official client --------------------------------------------------------------------------


def official_client(mcp_server, tool: str, arguments: str, *answer: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    from apps.mcp.tests.test_official_clients import run_node

    return run_node(
        "mcp-tasks-extension-client.mjs",
        f"{mcp_server.url()}/api/mcp",
        '{"Authorization": "Bearer test:member@acme.example"}',
        tool,
        arguments,
        *answer,
    )


def test_the_official_client_drives_a_task_to_its_result(mcp_server, worker):
    outcome = official_client(mcp_server, "slowExport", '{"seconds": 0.5}')

    assert outcome["era"] == "modern"
    assert outcome["capabilities"]["extensions"] == {EXTENSION: {}}
    assert outcome["kind"] == "task" and outcome["taskId"]
    assert outcome["status"] == "completed", outcome
    assert outcome["result"]["structuredContent"] == {"exported": 0.5}
    assert outcome["sent"][0] == "tools/call" and "tasks/get" in outcome["sent"]


def test_the_official_client_answers_what_a_task_asks_with_tasks_update(mcp_server, worker):
    outcome = official_client(mcp_server, "slowPurge", "{}", '{"decision": "allow"}')

    assert outcome["kind"] == "task" and outcome["status"] == "completed", outcome
    (question,) = outcome["asked"]
    assert question["kind"] == "elicitation" and "slowPurge" in question["params"]["message"]
    assert outcome["result"]["content"][0]["text"] == "purged (not really)"
    assert "tasks/update" in outcome["sent"]
