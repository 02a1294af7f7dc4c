"""Tasks: a long-running tool call made now, its result fetched later. One store (`McpTask`) and
one worker (`apps.mcp.tasks.run_tool_task`, through the same `dispatch.call_tool` as a direct
call: permission, first call, audit, transaction), two protocols:

**2025-11-25** (experimental; SEP-1686). A tool declared `long_running=True` in the catalogue
(exports, imports, extraction) is listed with `execution.taskSupport: "optional"`, and the server
declares the `tasks` capability (`CAPABILITY`) in `initialize`. Such a client may send
`tools/call` with `params.task` (`{"ttl": <ms>}`): the call is checked as every call is (the tool
exists and the principal may use it), stored and queued; the answer is a CreateTaskResult at once.

- `tasks/get` {taskId}: the task (status, statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval);
- `tasks/result` {taskId}: waits until the task is over (on a thread of the waiting pool, at most
  RESULT_WAIT_SECONDS; ask again after that), then answers the tool's CallToolResult with
  `_meta["io.modelcontextprotocol/related-task"]`; a cancelled task has no result (-32602). While
  the task waits for input, the questions go out on this request's stream (below);
- `tasks/list` {cursor?}: the caller's tasks, newest first, PAGE_SIZE per page;
- `tasks/cancel` {taskId}: a working task becomes `cancelled` (the tool sees `ctx.is_cancelled()`;
  a task over already is -32602);
- `notifications/tasks/status` goes to the session's stream each time a task's status changes.
  Statuses: `working`, `input_required`, then `completed` (the tool answered), `failed` (it
  answered `isError`, or the run failed), or `cancelled`.

**2026-07-28**, the `io.modelcontextprotocol/tasks` extension (SEP-2663), declared in
`server/discover`. The server decides: a `tools/call` of a long tool by a request whose
capabilities declare the extension becomes a task, answered with a CreateTaskResult
(`resultType: "task"` and the task's fields); a request that does not declare it gets the direct
call, as before. Then, each declaring the extension too (else -32021):

- `tasks/get` {taskId}: the DetailedTask: its status, with `inputRequests` while it waits for
  input, `result` once `completed` (a tool error included: `isError` is the tool's answer), the
  JSON-RPC `error` once `failed` (the run failed on the server, or the tool is no longer the
  caller's to use);
- `tasks/update` {taskId, inputResponses}: answers to what `inputRequests` asked (keys not
  outstanding are ignored); `tasks/cancel` {taskId}: acknowledged, and a task still going is
  cancelled;
- `subscriptions/listen` with `notifications.taskIds`: `notifications/tasks` (the DetailedTask)
  each time one of those tasks of the caller's changes.

**Input a task needs.** A tool running as a task may ask its client what a direct call would ask
on the call's stream (the confirmation of a GATED, HIGH RISK or DESTRUCTIVE tool; `ctx.elicit`),
when the client declared `elicitation`: the question is stored under a key of its own
(`McpTask.input_requests`), the task is `input_required`, and the worker waits for the answer (at
most MCP_ELICITATION_TIMEOUT_SECONDS; then the catalogue falls back as for a client that cannot
be asked). The answer arrives with `tasks/update` (2026-07-28), or, under 2025-11-25, as the
client's response to the `elicitation/create` that `tasks/result` sends on its stream with the
related-task `_meta`. Either way it is stored (`input_responses`) for the worker, which takes it
and goes on.

A task is seen only by the person and the credential that made it (another credential of the
same person, or another person, gets "not found", like an unknown id); it is deleted `ttl` after
it was made (the client's under 2025-11-25, at most MCP_TASK_MAX_TTL_SECONDS; default
MCP_TASK_TTL_SECONDS), swept by `apps.mcp.tasks.purge_mcp_tasks`. Clients without tasks keep
calling such tools directly, as before; the catalogue's `getToolTaskStatus` tool (apps.mcp.tools)
reads a task by id through `tools/call`, for agents whose client does not poll tasks itself.
"""

import base64
import itertools
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tenants.utils import schema_context

from apps.catalogue import dispatch, registry
from apps.core import errors
from apps.core.credentials import Principal
from apps.core.db import connection
from apps.mcp import callers, protocol, streams, versions
from apps.mcp.models import McpTask
from apps.mcp.protocol import INTERNAL_ERROR, INVALID_PARAMS, ProtocolError

logger = logging.getLogger(__name__)

# What `initialize` declares to a client that negotiated a revision with tasks.
CAPABILITY: dict[str, Any] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
# The 2026-07-28 extension: its identifier, as declared by both sides.
EXTENSION = "io.modelcontextprotocol/tasks"
RELATED_TASK = "io.modelcontextprotocol/related-task"
STATUS_NOTIFICATION = "notifications/tasks/status"
EXTENSION_NOTIFICATION = "notifications/tasks"
TERMINAL = frozenset({McpTask.Status.COMPLETED, McpTask.Status.FAILED, McpTask.Status.CANCELLED})
GOING = (McpTask.Status.WORKING, McpTask.Status.INPUT_REQUIRED)
PAGE_SIZE = 50
# tasks/result waits at most this long in one request, polling the row.
RESULT_WAIT_SECONDS = 300
RESULT_POLL_SECONDS = 0.25
# How often a worker waiting for input looks for the answer.
INPUT_POLL_SECONDS = 0.25
MAX_STATUS_MESSAGE = 500

T = TypeVar("T")


def task_support(spec: registry.ToolSpec) -> str | None:
    """`execution.taskSupport` of a tool's entry, None when it runs only directly ("forbidden")."""
    return "optional" if spec.long_running else None


def declares_extension(capabilities: Any) -> bool:
    """Whether a 2026-07-28 request's client capabilities declare the tasks extension."""
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(extensions, dict) and isinstance(extensions.get(EXTENSION), dict)


def missing_extension(what: str) -> ProtocolError:
    return ProtocolError(
        protocol.MISSING_CLIENT_CAPABILITY,
        f"Missing required client capability: {what} needs the `{EXTENSION}` extension, which this "
        "request's _meta does not declare.",
        status=400,
        data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
    )


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _extension(task: McpTask) -> bool:
    revision = versions.REVISIONS.get(task.revision)
    return revision is not None and revision.tasks_extension


def wire(task: McpTask) -> dict[str, Any]:
    """The task as its protocol writes it: 2025-11-25's Task, or the extension's DetailedTask."""
    return detailed(task) if _extension(task) else _task(task, unit="")


def _task(task: McpTask, *, unit: str) -> dict[str, Any]:
    """The Task both protocols write: 2025-11-25's as it is (`unit` empty), the extension's with
    its durations named with their unit (`ttlMs`)."""
    data: dict[str, Any] = {
        "taskId": task.task_id,
        "status": task.status,
        "createdAt": _stamp(task.created_at),
        "lastUpdatedAt": _stamp(task.updated_at),
        f"ttl{unit}": task.ttl_ms,
        f"pollInterval{unit}": task.poll_interval_ms,
    }
    if task.status_message:
        data["statusMessage"] = task.status_message
    return data


def detailed(task: McpTask) -> dict[str, Any]:
    """The 2026-07-28 extension's DetailedTask: the Task, and what its status carries."""
    data = _task(task, unit="Ms")
    if task.status == McpTask.Status.INPUT_REQUIRED:
        data["inputRequests"] = _outstanding(task)
    elif task.status == McpTask.Status.COMPLETED:
        data["result"] = task.result or {"resultType": "complete", "content": [], "isError": False}
    elif task.status == McpTask.Status.FAILED:
        data["error"] = task.error or {"code": INTERNAL_ERROR, "message": task.status_message or "Failed."}
    return data


def _outstanding(task: McpTask) -> dict[str, Any]:
    """The questions not answered yet (an answer stays stored until the worker takes it)."""
    return {key: request for key, request in task.input_requests.items() if key not in task.input_responses}


def _ttl_ms(requested: Any) -> int:
    if requested is None:
        return settings.MCP_TASK_TTL_SECONDS * 1000
    if isinstance(requested, bool) or not isinstance(requested, int) or requested <= 0:
        raise ProtocolError(INVALID_PARAMS, "tools/call: `params.task.ttl` must be a positive integer (ms).")
    return min(requested, settings.MCP_TASK_MAX_TTL_SECONDS * 1000)


def task_create(
    *,
    principal: Principal,
    digest: str,
    origin: str,
    spec: registry.ToolSpec,
    arguments: dict[str, Any],
    task: Any,
    capabilities: dict[str, Any],
) -> dict[str, Any]:
    """A task-augmented tools/call (2025-11-25): the CreateTaskResult. The tool runs on a worker."""
    if not isinstance(task, dict):
        raise ProtocolError(INVALID_PARAMS, "tools/call: `params.task` must be an object.")
    if task_support(spec) is None:
        raise ProtocolError(
            protocol.METHOD_NOT_FOUND,
            f"{spec.name} does not run as a task (its execution.taskSupport is forbidden): call it "
            "without `task`.",
        )
    row = task_start(
        principal=principal,
        digest=digest,
        origin=origin,
        spec=spec,
        arguments=arguments,
        ttl_ms=_ttl_ms(task.get("ttl")),
        capabilities=capabilities,
    )
    return {"task": wire(row)}


def task_create_extension(
    *,
    principal: Principal,
    origin: str,
    spec: registry.ToolSpec,
    arguments: dict[str, Any],
    capabilities: dict[str, Any],
    revision: versions.Revision,
) -> dict[str, Any]:
    """A 2026-07-28 tools/call the server made a task: the CreateTaskResult (the task's fields and
    `resultType: "task"`), once the row is committed, so that a tasks/get of it finds it."""
    with transaction.atomic():
        row = task_start(
            principal=principal,
            digest="",
            origin=origin,
            spec=spec,
            arguments=arguments,
            ttl_ms=None,
            capabilities=capabilities,
            revision=revision.version,
        )
    return {"resultType": "task", **detailed(row)}


def task_start(
    *,
    principal: Principal,
    digest: str,
    origin: str,
    spec: registry.ToolSpec,
    arguments: dict[str, Any],
    ttl_ms: int | None,
    capabilities: dict[str, Any] | None = None,
    revision: str = "2025-11-25",
) -> McpTask:
    """Stores a task for `spec` called with `arguments` and queues it for a worker (once the
    transaction commits). The caller has checked that the principal may use the tool."""
    ttl = ttl_ms if ttl_ms is not None else settings.MCP_TASK_TTL_SECONDS * 1000
    now = timezone.now()
    row = McpTask.objects.create(
        task_id=secrets.token_urlsafe(18),
        user_id=principal.user.pk,
        credential=principal.credential[:100],
        scheme=principal.scheme[:20],
        scopes=sorted(principal.scopes),
        client=principal.client[:200],
        api_key_id=principal.api_key_id,
        profile=principal.profile[:100],
        session_digest=digest,
        origin=origin[:300],
        tool=spec.name,
        arguments=arguments,
        revision=revision,
        client_capabilities=capabilities or {},
        status_message="Queued.",
        created_at=now,
        updated_at=now,
        ttl_ms=ttl,
        poll_interval_ms=settings.MCP_TASK_POLL_INTERVAL_MS,
        expires_at=now + timedelta(milliseconds=ttl),
    )
    from apps.mcp.tasks import run_tool_task

    schema_name = connection.schema_name
    task_id = row.task_id
    transaction.on_commit(lambda: run_tool_task.delay(task_id, schema_name=schema_name))
    logger.info("task %s of %s created", task_id[:8], spec.name)
    return row


def task_of(principal: Principal, task_id: str) -> McpTask | None:
    """The principal's task (made by the same person with the same credential), None for any other."""
    return McpTask.objects.filter(
        task_id=task_id[:64],
        user_id=principal.user.pk,
        credential=principal.credential[:100],
        expires_at__gt=timezone.now(),
    ).first()


def _find(principal: Principal, task_id: Any) -> McpTask:
    if not isinstance(task_id, str) or not task_id:
        raise ProtocolError(INVALID_PARAMS, "`params.taskId` (a string) is required.")
    row = task_of(principal, task_id)
    if row is None:
        raise ProtocolError(INVALID_PARAMS, f"Task not found: {task_id[:64]}")
    return row


# --- 2025-11-25 -------------------------------------------------------------------------------------


def task_get(principal: Principal, params: dict[str, Any]) -> dict[str, Any]:
    return wire(_find(principal, params.get("taskId")))


def task_list(principal: Principal, params: dict[str, Any]) -> dict[str, Any]:
    cursor = params.get("cursor")
    start = 0
    if cursor is not None:
        try:
            start = int(base64.urlsafe_b64decode(str(cursor).encode()).decode())
        except (ValueError, UnicodeError):
            raise ProtocolError(
                INVALID_PARAMS, "Invalid cursor: pass back the nextCursor of the previous page."
            ) from None
        if start < 0:
            raise ProtocolError(
                INVALID_PARAMS, "Invalid cursor: pass back the nextCursor of the previous page."
            )
    rows = list(
        McpTask.objects.filter(
            user_id=principal.user.pk, credential=principal.credential[:100], expires_at__gt=timezone.now()
        ).order_by("-created_at", "task_id")[start : start + PAGE_SIZE + 1]
    )
    result: dict[str, Any] = {"tasks": [wire(row) for row in rows[:PAGE_SIZE]]}
    if len(rows) > PAGE_SIZE:
        result["nextCursor"] = base64.urlsafe_b64encode(str(start + PAGE_SIZE).encode()).decode()
    return result


def task_cancel(principal: Principal, params: dict[str, Any]) -> dict[str, Any]:
    row = _find(principal, params.get("taskId"))
    changed = _move(row.task_id, McpTask.Status.CANCELLED, "Cancelled by the client.")
    if changed is None:
        row.refresh_from_db()
        raise ProtocolError(INVALID_PARAMS, f"Cannot cancel task {row.task_id}: it is {row.status} already.")
    return wire(changed)


Ask = Callable[[dict[str, Any]], dict[str, Any]]


def task_result(
    principal: Principal, params: dict[str, Any], gone: Any = None, ask: Ask | None = None
) -> dict[str, Any]:
    """The tool's result once the task is over (waits for it, at most RESULT_WAIT_SECONDS). While
    the task waits for input, `ask` puts each question to the client on this request's stream
    (`elicitation/create` with the related-task `_meta`), and its answer goes to the worker."""
    row = _find(principal, params.get("taskId"))
    deadline = time.monotonic() + RESULT_WAIT_SECONDS
    asked: set[str] = set()
    while row.status not in TERMINAL:
        if ask is not None and row.status == McpTask.Status.INPUT_REQUIRED:
            for key, request in _outstanding(row).items():
                if key not in asked:
                    asked.add(key)
                    task_answer(row.task_id, {key: _put(ask, row.task_id, request)})
        if time.monotonic() >= deadline or (gone is not None and gone()):
            raise ProtocolError(
                INVALID_PARAMS,
                f"Task {row.task_id} is still {row.status}; ask for its result again (or poll tasks/get).",
            )
        time.sleep(RESULT_POLL_SECONDS)
        row.refresh_from_db()
    if row.status == McpTask.Status.CANCELLED or row.result is None:
        raise ProtocolError(INVALID_PARAMS, f"Task {row.task_id} was {row.status}: it has no result.")
    result = dict(row.result)
    result["_meta"] = {**(result.get("_meta") or {}), RELATED_TASK: {"taskId": row.task_id}}
    return result


def _put(ask: Ask, task_id: str, request: dict[str, Any]) -> dict[str, Any]:
    """The client's answer to one stored question, or what tells the worker it could not be asked."""
    question = {**request["params"], "_meta": {RELATED_TASK: {"taskId": task_id}}}
    try:
        return ask(question)
    except Exception as failed:  # the stream closed, the client answered an error, no answer in time
        return {"unanswered": str(failed) or type(failed).__name__}


# --- 2026-07-28: the tasks extension ----------------------------------------------------------------


def extension_get(principal: Principal, params: dict[str, Any]) -> dict[str, Any]:
    return {"resultType": "complete", **detailed(_find(principal, params.get("taskId")))}


def extension_update(principal: Principal, params: dict[str, Any]) -> dict[str, Any]:
    row = _find(principal, params.get("taskId"))
    responses = params.get("inputResponses")
    if not isinstance(responses, dict) or not all(isinstance(answer, dict) for answer in responses.values()):
        raise ProtocolError(
            INVALID_PARAMS, "Invalid params: `inputResponses` must be an object of answers, each an object."
        )
    task_answer(row.task_id, responses)
    return {"resultType": "complete"}


def extension_cancel(principal: Principal, params: dict[str, Any]) -> dict[str, Any]:
    """Acknowledged whatever the task's status: cancelling is cooperative, and a task over already
    stays as it ended."""
    row = _find(principal, params.get("taskId"))
    _move(row.task_id, McpTask.Status.CANCELLED, "Cancelled by the client.")
    return {"resultType": "complete"}


def owned_tasks(principal: Principal, task_ids: Any) -> list[str]:
    """Of the ids a `subscriptions/listen` names, those of the principal's tasks (in its order)."""
    if not isinstance(task_ids, list):
        return []
    wanted = [task_id for task_id in task_ids if isinstance(task_id, str) and task_id][:100]
    owned = set(
        McpTask.objects.filter(
            task_id__in=wanted,
            user_id=principal.user.pk,
            credential=principal.credential[:100],
            expires_at__gt=timezone.now(),
        ).values_list("task_id", flat=True)
    )
    return [task_id for task_id in dict.fromkeys(wanted) if task_id in owned]


# --- input: what a running task asks its client ---------------------------------------------------


class TaskInputFailed(Exception):
    """The question of a task got no answer: the task ended, the client could not be asked, or it
    did not answer in time. The catalogue then does as for a client that cannot be asked."""


def _committed(work: Callable[[], T]) -> T:
    """`work`, committed at once and seen by every process even when a tool asks from inside its
    own transaction: on a connection of its own (a thread of its own) in that case."""
    if not connection.in_atomic_block:
        with transaction.atomic():
            return work()
    schema_name = connection.schema_name
    values: list[T] = []
    failures: list[BaseException] = []

    def run() -> None:
        try:
            with schema_context(schema_name), transaction.atomic():
                values.append(work())
        except BaseException as error:  # handed to the waiting thread
            failures.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run, name="mcp-task-input")
    thread.start()
    thread.join()
    if failures:
        raise failures[0]
    return values[0]


def _locked(task_id: str) -> McpTask | None:
    return McpTask.objects.select_for_update().filter(task_id=task_id).first()


def _ask(task_id: str, key: str, request: dict[str, Any]) -> bool:
    """Stores a question of a task still going; it becomes input_required. False when it is over."""
    row = _locked(task_id)
    if row is None or row.status not in GOING:
        return False
    row.input_requests = {**row.input_requests, key: request}
    row.status, row.status_message = McpTask.Status.INPUT_REQUIRED, "Waiting for the user's answer."
    row.updated_at = timezone.now()
    row.save(update_fields=["input_requests", "status", "status_message", "updated_at"])
    _tell_on_commit(row)
    return True


def _settle(task_id: str, key: str) -> None:
    """A question answered (or given up): forgotten, and the task working again once none waits."""
    row = _locked(task_id)
    if row is None:
        return
    row.input_requests = {name: value for name, value in row.input_requests.items() if name != key}
    row.input_responses = {name: value for name, value in row.input_responses.items() if name != key}
    fields = ["input_requests", "input_responses"]
    if row.status == McpTask.Status.INPUT_REQUIRED and not row.input_requests:
        row.status, row.status_message, row.updated_at = McpTask.Status.WORKING, "Running.", timezone.now()
        fields += ["status", "status_message", "updated_at"]
        _tell_on_commit(row)
    row.save(update_fields=fields)


def task_answer(task_id: str, answers: dict[str, Any]) -> None:
    """Stores the client's answers for the worker: only to questions outstanding (another key, or
    one answered already, is ignored)."""

    def store() -> None:
        row = _locked(task_id)
        if row is None or row.status != McpTask.Status.INPUT_REQUIRED:
            return
        fresh = {
            key: answer
            for key, answer in answers.items()
            if key in row.input_requests and key not in row.input_responses
        }
        if fresh:
            row.input_responses = {**row.input_responses, **fresh}
            row.save(update_fields=["input_responses"])

    _committed(store)


def _asker(task_id: str) -> Callable[..., dict[str, Any]]:
    """The worker's `ctx.elicit`: the question stored for the client, the answer waited for."""
    keys = itertools.count(1)

    def elicit(message: str, requested_schema: dict[str, Any]) -> dict[str, Any]:
        # Never used twice in the task's life: the client may tell answered questions apart by key.
        key = f"elicitation-{next(keys)}"
        request = {
            "method": "elicitation/create",
            "params": {"message": message, "requestedSchema": requested_schema},
        }
        if not _committed(lambda: _ask(task_id, key, request)):
            raise TaskInputFailed("the task is over")
        try:
            return _answer_to(task_id, key)
        finally:
            _committed(lambda: _settle(task_id, key))

    return elicit


def _answer_to(task_id: str, key: str) -> dict[str, Any]:
    deadline = time.monotonic() + settings.MCP_ELICITATION_TIMEOUT_SECONDS
    while True:
        found = McpTask.objects.filter(task_id=task_id).values_list("status", "input_responses").first()
        if found is None or found[0] not in GOING:
            raise TaskInputFailed("the task is over")
        answer = found[1].get(key)
        if isinstance(answer, dict):
            if "unanswered" in answer:
                raise TaskInputFailed(str(answer["unanswered"]))
            return answer
        if time.monotonic() >= deadline:
            raise TaskInputFailed("the user did not answer in time")
        time.sleep(INPUT_POLL_SECONDS)


# --- the worker's side -----------------------------------------------------------------------------


def _move(
    task_id: str,
    status: str,
    message: str,
    result: dict[str, Any] | None = None,
    error: dict[str, Any] | None = None,
) -> McpTask | None:
    """Moves a task still going to `status` (one conditional UPDATE: a task over stays as it is);
    tells its client. Returns the task, or None when it was over already."""
    now = timezone.now()
    fields: dict[str, Any] = {
        "status": status,
        "status_message": message[:MAX_STATUS_MESSAGE],
        "updated_at": now,
    }
    if result is not None:
        fields["result"] = result
    if error is not None:
        fields["error"] = error
    if status in TERMINAL:
        fields["input_requests"] = {}
        fields["input_responses"] = {}
    moved = McpTask.objects.filter(task_id=task_id, status__in=GOING).update(**fields)
    if not moved:
        return None
    row = McpTask.objects.get(task_id=task_id)
    _tell_on_commit(row)
    return row


def _tell_on_commit(row: McpTask) -> None:
    """Tells the task's client of its new status: the session's stream (2025-11-25), or the listen
    streams that asked for it (2026-07-28)."""
    if _extension(row):
        group, event = (
            streams.task_group(connection.schema_name, row.task_id),
            {"type": "mcp.task", "task": detailed(row)},
        )
        transaction.on_commit(lambda: _send(group, event))
    elif row.session_digest:
        notification = protocol.notification(STATUS_NOTIFICATION, _task(row, unit=""))
        transaction.on_commit(lambda: _tell(row.session_digest, notification))


def _tell(digest: str, notification: dict[str, Any]) -> None:
    with errors.unless_unavailable(logger, "a task's status notification was not sent: %s"):
        streams.publish(digest, notification)


def _send(group: str, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    with errors.unless_unavailable(logger, "a task's status notification was not sent: %s"):
        async_to_sync(layer.group_send)(group, event)


def principal_of(row: McpTask) -> Principal:
    return Principal(
        user=row.user,
        scheme=row.scheme,
        scopes=frozenset(row.scopes),
        credential=row.credential,
        client=row.client,
        api_key_id=row.api_key_id,
        profile=row.profile,
    )


def _state(row: McpTask, principal: Principal) -> dispatch.SessionState:
    """What the catalogue keeps for the task's caller: its session's (2025), its caller state
    (2026-07-28: apps.mcp.callers), or a state of its own."""
    from apps.mcp import sessions

    if row.session_digest:
        return sessions.StoredSessionState(
            sessions.LiveSession(
                digest=row.session_digest,
                user_id=row.user_id,
                protocol_version="",
                client_capabilities={},
                ready_at=None,
                last_seen_at=timezone.now(),
            )
        )
    if _extension(row):
        return callers.CallerState(callers.caller_digest(principal))
    return dispatch.MemorySession()


def task_run(task_id: str) -> str | None:
    """Runs a task's tool (in the task's workspace, on a worker); returns its final status, None
    when there was nothing to run (gone, over already)."""
    from apps.mcp import secure_input

    row = McpTask.objects.select_related("user", "user__role").filter(task_id=task_id).first()
    if row is None or row.status != McpTask.Status.WORKING:
        return None
    if row.expires_at <= timezone.now():
        return None
    principal = principal_of(row)
    checked = {"at": 0.0, "cancelled": False}

    def is_cancelled() -> bool:
        # One read a second at most: long tools poll this in loops.
        if not checked["cancelled"] and time.monotonic() - checked["at"] >= 1.0:
            checked["at"] = time.monotonic()
            status = McpTask.objects.filter(task_id=task_id).values_list("status", flat=True).first()
            checked["cancelled"] = status not in GOING
        return bool(checked["cancelled"])

    McpTask.objects.filter(task_id=task_id, status=McpTask.Status.WORKING).update(
        status_message="Running.", updated_at=timezone.now()
    )
    capabilities = row.client_capabilities or {}
    revision = versions.REVISIONS.get(row.revision)
    context = dispatch.ToolContext(
        principal=principal,
        session=_state(row, principal),
        client_capabilities=capabilities,
        # Asked through the task (input_required) what a direct call asks on its stream.
        elicit=_asker(task_id) if "elicitation" in capabilities else None,
        rich_elicitation=revision is not None
        and revision.elicitation_modes
        and protocol.takes_form_questions(capabilities),
        is_cancelled=is_cancelled,
        request_id=f"task:{task_id}",
        # A worker cannot show a page: a value the person entered already is used, otherwise the
        # tool answers with the link (apps.mcp.secure_input).
        secure_input_door=secure_input.provider(
            user_id=row.user_id, digest=row.session_digest, base_url=row.origin
        ),
    )
    try:
        result = dispatch.call_tool(context, row.tool, row.arguments)
    except dispatch.ToolNotFound:
        # The role, the areas or the scope changed since the task was made.
        if _extension(row):
            return _failed(task_id, {"code": INVALID_PARAMS, "message": f"Unknown tool: {row.tool}"})
        result = dispatch.error_result(f"Unknown tool: {row.tool}. Nothing was done.")
    except Exception:
        reference = secrets.token_hex(4)
        logger.exception("task %s failed (reference %s)", task_id[:8], reference)
        message = f"Failed on the server (reference {reference})."
        return _failed(task_id, {"code": INTERNAL_ERROR, "message": message})
    # The result as it is sent (parts encoded already included), stored as JSON.
    stored = json.loads(protocol.dumps(result))
    if _extension(row):
        # A 2026-07-28 result says what it is, as a direct call's does (apps.mcp.stateless).
        stored.setdefault("resultType", "complete")
    if is_cancelled():
        return McpTask.Status.CANCELLED
    if stored.get("isError") and not _extension(row):
        # 2025-11-25 ends a tool error `failed`; the extension keeps `failed` for JSON-RPC errors.
        text = next(
            (part.get("text", "") for part in stored.get("content", []) if part.get("type") == "text"), ""
        )
        moved = _move(task_id, McpTask.Status.FAILED, text or "The tool answered an error.", stored)
    else:
        moved = _move(task_id, McpTask.Status.COMPLETED, "Done.", stored)
    return moved.status if moved is not None else McpTask.Status.CANCELLED


def _failed(task_id: str, error: dict[str, Any]) -> str:
    moved = _move(task_id, McpTask.Status.FAILED, error["message"], error=error)
    return moved.status if moved is not None else McpTask.Status.CANCELLED


def purge() -> int:
    deleted, _ = McpTask.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted
