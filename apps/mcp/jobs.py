"""Tasks (MCP 2025-11-25, experimental; SEP-1686): a long-running tool call made now, its result
fetched later.

A tool declared `long_running=True` in the catalogue (exports, imports, extraction) is listed to
a 2025-11-25 client with `execution.taskSupport: "optional"`, and the server declares the
`tasks` capability (`CAPABILITY`) in `initialize`. Such a client may send `tools/call` with
`params.task` (`{"ttl": <ms>}`): the call is checked as every call is (the tool exists and the
principal may use it), stored as an `McpTask` row, and run by a Celery worker
(`apps.mcp.tasks.run_tool_task`, through the same `dispatch.call_tool` as a direct call); the
answer is a CreateTaskResult at once. Then:

- `tasks/get` {taskId}: the task (status, statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval);
- `tasks/result` {taskId}: waits until the task is over (on a thread of the waiting pool, at most
  RESULT_WAIT_SECONDS; ask again after that), then answers the tool's CallToolResult with
  `_meta["io.modelcontextprotocol/related-task"]`; a cancelled task has no result (-32602);
- `tasks/list` {cursor?}: the caller's tasks, newest first, PAGE_SIZE per page;
- `tasks/cancel` {taskId}: a working task becomes `cancelled` (the tool sees `ctx.is_cancelled()`;
  a task over already is -32602);
- `notifications/tasks/status` goes to the session's stream each time a task's status changes.

Statuses: `working`, then `completed` (the tool answered), `failed` (it answered `isError`, or the
run failed), or `cancelled`. A task is seen only by the person and the credential that made it
(another credential of the same person, or another person, gets "not found", like an unknown
id); it is deleted `ttl` after it was made (the client's, at most MCP_TASK_MAX_TTL_SECONDS;
default MCP_TASK_TTL_SECONDS), swept by `apps.mcp.tasks.purge_mcp_tasks`.

Clients without tasks (2025-06-18, or 2025-11-25 ones that do not ask) keep calling such tools
directly, as before. The catalogue's `getToolTaskStatus` tool (apps.mcp.tools) reads a task by id
through `tools/call`, for agents whose client does not poll tasks itself.
"""

import base64
import json
import logging
import secrets
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.catalogue import dispatch, registry
from apps.core import errors
from apps.core.credentials import Principal
from apps.core.db import connection
from apps.mcp import protocol, streams
from apps.mcp.models import McpTask
from apps.mcp.protocol import INVALID_PARAMS, ProtocolError

logger = logging.getLogger(__name__)

# What `initialize` declares to a client that negotiated a revision with tasks.
CAPABILITY: dict[str, Any] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
RELATED_TASK = "io.modelcontextprotocol/related-task"
STATUS_NOTIFICATION = "notifications/tasks/status"
TERMINAL = frozenset({McpTask.Status.COMPLETED, McpTask.Status.FAILED, McpTask.Status.CANCELLED})
PAGE_SIZE = 50
# tasks/result waits at most this long in one request, polling the row.
RESULT_WAIT_SECONDS = 300
RESULT_POLL_SECONDS = 0.25
MAX_STATUS_MESSAGE = 500


def task_support(spec: registry.ToolSpec) -> str | None:
    """`execution.taskSupport` of a tool's entry, None when it runs only directly ("forbidden")."""
    return "optional" if spec.long_running else None


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def wire(task: McpTask) -> dict[str, Any]:
    """The Task object of the protocol."""
    data: dict[str, Any] = {
        "taskId": task.task_id,
        "status": task.status,
        "createdAt": _stamp(task.created_at),
        "lastUpdatedAt": _stamp(task.updated_at),
        "ttl": task.ttl_ms,
        "pollInterval": task.poll_interval_ms,
    }
    if task.status_message:
        data["statusMessage"] = task.status_message
    return data


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
) -> dict[str, Any]:
    """A task-augmented tools/call: the CreateTaskResult. The tool runs on a worker."""
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
    )
    return {"task": wire(row)}


def task_start(
    *,
    principal: Principal,
    digest: str,
    origin: str,
    spec: registry.ToolSpec,
    arguments: dict[str, Any],
    ttl_ms: int | None,
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


def task_result(principal: Principal, params: dict[str, Any], gone: Any = None) -> dict[str, Any]:
    """The tool's result once the task is over (waits for it, at most RESULT_WAIT_SECONDS)."""
    row = _find(principal, params.get("taskId"))
    deadline = time.monotonic() + RESULT_WAIT_SECONDS
    while row.status not in TERMINAL:
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


# --- the worker's side -----------------------------------------------------------------------------


def _move(task_id: str, status: str, message: str, result: dict[str, Any] | None = None) -> McpTask | None:
    """Moves a working task to `status` (one conditional UPDATE: a task over stays as it is);
    tells the session's client. Returns the task, or None when it was over already."""
    now = timezone.now()
    fields: dict[str, Any] = {
        "status": status,
        "status_message": message[:MAX_STATUS_MESSAGE],
        "updated_at": now,
    }
    if result is not None:
        fields["result"] = result
    moved = McpTask.objects.filter(
        task_id=task_id, status__in=[McpTask.Status.WORKING, McpTask.Status.INPUT_REQUIRED]
    ).update(**fields)
    if not moved:
        return None
    row = McpTask.objects.get(task_id=task_id)
    if row.session_digest:
        notification = protocol.notification(STATUS_NOTIFICATION, wire(row))
        transaction.on_commit(lambda: _tell(row.session_digest, notification))
    return row


def _tell(digest: str, notification: dict[str, Any]) -> None:
    with errors.unless_unavailable(logger, "a task's status notification was not sent: %s"):
        streams.publish(digest, notification)


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


def task_run(task_id: str) -> str | None:
    """Runs a task's tool (in the task's workspace, on a worker); returns its final status, None
    when there was nothing to run (gone, over already)."""
    from apps.mcp import secure_input, sessions

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
            checked["cancelled"] = status != McpTask.Status.WORKING
        return bool(checked["cancelled"])

    state: dispatch.SessionState
    if row.session_digest:
        state = sessions.StoredSessionState(
            sessions.LiveSession(
                digest=row.session_digest,
                user_id=row.user_id,
                protocol_version="",
                client_capabilities={},
                ready_at=None,
                last_seen_at=timezone.now(),
            )
        )
    else:
        state = dispatch.MemorySession()
    McpTask.objects.filter(task_id=task_id, status=McpTask.Status.WORKING).update(
        status_message="Running.", updated_at=timezone.now()
    )
    context = dispatch.ToolContext(
        principal=principal,
        session=state,
        is_cancelled=is_cancelled,
        request_id=f"task:{task_id}",
        # A worker cannot ask: a value the person entered already is used, otherwise the tool
        # answers with the link (apps.mcp.secure_input).
        secure_input_door=secure_input.provider(
            user_id=row.user_id, digest=row.session_digest, base_url=row.origin
        ),
    )
    try:
        result = dispatch.call_tool(context, row.tool, row.arguments)
    except dispatch.ToolNotFound:
        # The role, the areas or the scope changed since the task was made.
        result = dispatch.error_result(f"Unknown tool: {row.tool}. Nothing was done.")
    except Exception:
        reference = secrets.token_hex(4)
        logger.exception("task %s failed (reference %s)", task_id[:8], reference)
        _move(task_id, McpTask.Status.FAILED, f"Failed on the server (reference {reference}).")
        return McpTask.Status.FAILED
    # The result as it is sent (parts encoded already included), stored as JSON.
    stored = json.loads(protocol.dumps(result))
    if is_cancelled():
        return McpTask.Status.CANCELLED
    if stored.get("isError"):
        text = next(
            (part.get("text", "") for part in stored.get("content", []) if part.get("type") == "text"), ""
        )
        moved = _move(task_id, McpTask.Status.FAILED, text or "The tool answered an error.", stored)
    else:
        moved = _move(task_id, McpTask.Status.COMPLETED, "Done.", stored)
    return moved.status if moved is not None else McpTask.Status.CANCELLED


def purge() -> int:
    deleted, _ = McpTask.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted
