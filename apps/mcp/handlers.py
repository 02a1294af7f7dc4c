"""The synchronous half of the endpoint: one call per HTTP request, in a worker thread, with the
workspace's schema active. It checks, in this order: the workspace (host), the Origin, the
credential, the media types, the message, the protocol version, the session; then serves the
method. The consumer (`apps.mcp.consumers`) does the I/O.
"""

import asyncio
import concurrent.futures
import hashlib
import logging
import secrets
import select
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from apps.catalogue import dispatch, profiles, registry
from apps.catalogue.secure_input import SecureInputRequired
from apps.core import encoded, errors, metrics, observability, onloop, permissions
from apps.core.credentials import Principal
from apps.core.db import connection, this_connection
from apps.mcp import icons, jobs, protocol, secure_input, sessions, stateless, streams, versions, waiting
from apps.mcp.access import Refusal, authenticate, base_url, hostname_of, insufficient_scope, origin_allowed
from apps.mcp.errors import NoWorkspaceHere
from apps.mcp.protocol import INVALID_PARAMS, INVALID_REQUEST, Message, ProtocolError
from apps.mcp.streams import CancelledByClient, RunningCall, hub
from apps.tenancy import routing
from apps.tenancy.errors import WorkspaceMoving
from apps.tenancy.models import Workspace

logger = logging.getLogger(__name__)

ALLOWED_METHODS = "GET, POST, DELETE, OPTIONS"
CORS_HEADERS = {
    "Access-Control-Expose-Headers": "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate",
    "Vary": "Origin",
}
PREFLIGHT_HEADERS = {
    "Access-Control-Allow-Methods": ALLOWED_METHODS,
    "Access-Control-Allow-Headers": (
        "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, "
        "Mcp-Name, Last-Event-ID, X-Api-Key, X-MCP-Toolsets, X-MCP-Readonly"
    ),
    "Access-Control-Max-Age": "600",
}


@dataclass
class Request:
    """What the consumer read off the wire."""

    method: str
    scheme: str
    host: str
    headers: dict[str, str]
    query: dict[str, str]
    body: bytes = b""
    # The body read as a JSON-RPC message (or the error that says why it is not one), once.
    _parsed: Message | ProtocolError | None = field(default=None, repr=False)

    def message(self) -> Message:
        """The body as one JSON-RPC message; ProtocolError when it is not one."""
        if self._parsed is None:
            try:
                self._parsed = protocol.parse(self.body)
            except ProtocolError as error:
                self._parsed = error
        if isinstance(self._parsed, ProtocolError):
            raise self._parsed
        return self._parsed


@dataclass
class Reply:
    """What to answer. `then` tells the consumer what to do after (on its event loop)."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    then: tuple[Any, ...] | None = None


def jsonrpc_error(status: int, request_id: Any, code: int, message: str, data: Any = None) -> Reply:
    return Reply(status, protocol.error(request_id, code, message, data))


# --- the entry point ----------------------------------------------------------------------------


def serve(request: Request, call: RunningCall | None = None) -> Reply:
    """Never raises: PostgreSQL or Redis out of reach is SPEC 7.1's 503 UNAVAILABLE (retry in a
    few seconds; nothing was done), a failure of ours a JSON-RPC internal error with a reference
    in the log."""
    try:
        if not onloop.active():
            _fresh_connection()
        reply = _serve(request, call)
    except onloop.ABORTS:
        raise  # served again in a thread (apps.core.onloop)
    except Exception as error:
        outage = errors.unavailable(error)
        if outage is not None:
            return _unavailable(outage, error)
        reference = secrets.token_hex(4)
        logger.exception("MCP request failed (reference %s)", reference)
        reply = jsonrpc_error(
            500 if request.method != "POST" else 200,
            None,
            protocol.INTERNAL_ERROR,
            f"Internal error; it has been logged (reference {reference}). Try again.",
        )
    return reply


def _unavailable(outage: errors.ServiceUnavailable, error: BaseException) -> Reply:
    # One line, no traceback: during an outage every request lands here.
    reason = observability.describe_error(error)
    logger.warning("MCP request refused with 503, a dependency is unreachable: %s", reason)
    return Reply(outage.http_status, outage.as_body(), dict(outage.headers))


def _fresh_connection() -> None:
    """What Django does between requests, without its per-request health check query: drop a
    connection that failed, outlived CONN_MAX_AGE, or was closed by the server (PostgreSQL
    restarted since this thread's last request: it says so on the socket, see `_server_closed`).
    Also the physical connections to other database servers kept aside (apps.core.servers) that
    outlived CONN_MAX_AGE."""
    if getattr(connection, "_parked", None):
        connection.close_obsolete_parked()  # type: ignore[attr-defined]
    if connection.connection is None or connection.in_atomic_block:
        # In a transaction (a caller serving in-process, as tests do): not ours to close.
        return
    if _server_closed(connection.connection):
        connection.close()
    elif connection.errors_occurred or (
        connection.close_at is not None and time.monotonic() >= connection.close_at
    ):
        connection.close_if_unusable_or_obsolete()


def _server_closed(raw: Any) -> bool:
    """Whether the server has spoken on an idle connection: between requests nothing may arrive
    but the notice of a terminated session (a restart, an administrator) or the end of the
    stream. A poll without waiting; no round trip."""
    if getattr(raw, "closed", False) or getattr(raw, "broken", False):
        return True
    try:
        readable, _w, _x = select.select([raw.fileno()], [], [], 0)
    except Exception:  # psycopg: "the connection is lost"; the socket gone
        return True
    return bool(readable)


def _activate(workspace: Workspace) -> None:
    active = this_connection()
    # (The same schema on another server: the workspace was moved since this thread's last request.)
    if (
        active.schema_name != workspace.schema_name
        or getattr(active, "server", "default") != workspace.database
    ):
        active.set_tenant(workspace)
    else:
        # Same schema as this thread's last request: keep the search path, refresh the row
        # (installed areas may have changed).
        active.tenant = workspace


def _serve(request: Request, call: RunningCall | None) -> Reply:
    workspace = routing.workspace_for_host(hostname_of(request.host))
    if workspace is None or workspace.is_public:
        return Reply(404, NoWorkspaceHere().as_body())
    if workspace.is_moving:
        moving = WorkspaceMoving()
        return Reply(moving.http_status, moving.as_body(), dict(moving.headers))
    _activate(workspace)
    observability.set_workspace(workspace.schema_name)

    origin = request.headers.get("origin")
    if not origin_allowed(origin, workspace):
        return jsonrpc_error(
            403, None, INVALID_REQUEST, "Forbidden: this Origin may not use this MCP endpoint."
        )
    cors = {"Access-Control-Allow-Origin": origin, **CORS_HEADERS} if origin is not None else {}
    if call is not None:
        call.headers = cors
    reply = _serve_allowed(request, workspace, call)
    reply.headers.update(cors)
    return reply


def _serve_allowed(request: Request, workspace: Workspace, call: RunningCall | None) -> Reply:
    if request.method == "OPTIONS":
        return Reply(204, headers=dict(PREFLIGHT_HEADERS))
    url = base_url(request.scheme, request.host, request.headers)
    principal = authenticate(workspace=workspace, headers=request.headers, url=url)
    if isinstance(principal, Refusal):
        return Reply(principal.status, principal.body, dict(principal.headers))
    if request.method == "POST":
        return _post(request, workspace, principal, call)
    if request.method == "GET":
        return _get(request, principal)
    return _delete(request, principal)


# --- checks shared by the methods ---------------------------------------------------------------


def _check_version(request: Request, request_id: Any = None) -> None:
    version = request.headers.get(protocol.VERSION_HEADER)
    if version is not None and version not in protocol.SUPPORTED_VERSIONS:
        raise protocol.unsupported_version(request_id, version)


def _session(request: Request, principal: Principal, request_id: Any = None) -> sessions.LiveSession:
    session_id = request.headers.get(protocol.SESSION_HEADER)
    if not session_id:
        raise ProtocolError(
            INVALID_REQUEST,
            "Bad Request: the Mcp-Session-Id header is required; call initialize first.",
            status=400,
        )
    session = sessions.session_find(digest=sessions.digest_of(session_id), user=principal.user)
    if session is None:
        raise ProtocolError(
            protocol.SESSION_NOT_FOUND,
            "Session not found: it has ended or does not exist. Initialize a new session.",
            status=404,
        )
    return session


def _failed(error: ProtocolError, request_id: Any) -> Reply:
    if request_id is None:
        request_id = error.request_id
    return Reply(error.status, protocol.error(request_id, error.code, error.message, error.data))


# --- POST ---------------------------------------------------------------------------------------


def _post(request: Request, workspace: Workspace, principal: Principal, call: RunningCall | None) -> Reply:
    wants_json, wants_sse = protocol.accepts(request.headers.get("accept", ""))
    if not (wants_json and wants_sse):
        return jsonrpc_error(
            406,
            None,
            INVALID_REQUEST,
            "Not Acceptable: the Accept header must list both application/json and text/event-stream.",
        )
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type != "application/json":
        return jsonrpc_error(415, None, INVALID_REQUEST, "Unsupported Media Type: send application/json.")
    request_id = None
    try:
        message = request.message()
        request_id = message.id if message.kind == "request" else None
        revision = stateless.revision_of(request, message)
        if revision is not None:
            return stateless.serve(request, message, revision, workspace, principal, call)
        if message.kind == "request" and message.method == "initialize":
            return _initialize(request, message, workspace, principal)
        _check_version(request, request_id)
        session = _session(request, principal, request_id)
        if message.kind == "notification":
            return _notification(message, session)
        if message.kind == "response":
            return Reply(202, then=("answer", hub.key(session.digest, message.id), message.raw))
        return Reply(200, protocol.result(message.id, _method(request, message, principal, session, call)))
    except ProtocolError as error:
        return _failed(error, request_id)
    except StepUp as step_up:
        refusal = step_up.refusal
        return Reply(refusal.status, refusal.body, dict(refusal.headers))
    except onloop.ABORTS:
        raise
    except Exception as error:
        outage = errors.unavailable(error)
        if outage is not None:
            return _unavailable(outage, error)
        reference = secrets.token_hex(4)
        logger.exception("MCP %s failed (reference %s)", request_id, reference)
        return jsonrpc_error(
            200,
            request_id,
            protocol.INTERNAL_ERROR,
            f"Internal error; it has been logged (reference {reference}).",
        )


def _notification(message: Message, session: sessions.LiveSession) -> Reply:
    if message.method == "notifications/initialized":
        sessions.session_mark_ready(session=session)
    elif message.method == "notifications/cancelled":
        request_id = message.params.get("requestId")
        if isinstance(request_id, str | int) and not isinstance(request_id, bool):
            return Reply(202, then=("cancel", hub.key(session.digest, request_id)))
    # Other notifications (roots, progress of our requests) carry nothing this server uses.
    return Reply(202)


def _method(
    request: Request,
    message: Message,
    principal: Principal,
    session: sessions.LiveSession,
    call: RunningCall | None,
) -> dict[str, Any]:
    if message.method == "ping":
        return {}
    if message.method == "tools/list":
        return _tools_list(request, message, principal, versions.of(session.protocol_version))
    if message.method == "tools/call":
        return _tools_call(request, message, principal, session, call)
    if message.method.startswith("tasks/") and versions.of(session.protocol_version).tasks:
        return _tasks(message, principal, session, call)
    raise ProtocolError(protocol.METHOD_NOT_FOUND, f"Method not found: {message.method}")


def _tasks(
    message: Message, principal: Principal, session: sessions.LiveSession, call: RunningCall | None
) -> dict[str, Any]:
    """tasks/get, tasks/result, tasks/list, tasks/cancel (2025-11-25: apps.mcp.jobs)."""
    params = message.params
    if message.method == "tasks/get":
        return jobs.task_get(principal, params)
    if message.method == "tasks/result":
        # What the task asks its client goes out on this request's stream, as a direct call's
        # questions do.
        ask = (
            _elicit(call, session.digest, f"{connection.schema_name}:{principal.user.pk}", params_given=True)
            if call is not None and "elicitation" in (session.client_capabilities or {})
            else None
        )
        return jobs.task_result(
            principal, params, gone=call.gone.is_set if call is not None else None, ask=ask
        )
    if message.method == "tasks/list":
        return jobs.task_list(principal, params)
    if message.method == "tasks/cancel":
        return jobs.task_cancel(principal, params)
    raise ProtocolError(protocol.METHOD_NOT_FOUND, f"Method not found: {message.method}")


def _initialize(request: Request, message: Message, workspace: Workspace, principal: Principal) -> Reply:
    params = message.params
    offered = params.get("protocolVersion")
    if not isinstance(offered, str):
        raise ProtocolError(INVALID_PARAMS, "initialize: `params.protocolVersion` (a string) is required.")
    capabilities = params.get("capabilities") or {}
    client_info = params.get("clientInfo") or {}
    if not isinstance(capabilities, dict) or not isinstance(client_info, dict):
        raise ProtocolError(INVALID_PARAMS, "initialize: `capabilities` and `clientInfo` must be objects.")
    revision = versions.negotiate(offered)
    session_id, _row = sessions.session_open(
        user=principal.user,
        credential=principal.credential,
        protocol_version=revision.version,
        client_info=client_info,
        client_capabilities=capabilities,
    )
    server_info: dict[str, Any] = {
        "name": workspace.brand_name,
        "title": workspace.brand_name,
        "version": settings.ATRIUM_VERSION,
    }
    if revision.icons:
        url = base_url(request.scheme, request.host, request.headers)
        server_info["icons"] = icons.server_icons(url)
        server_info["websiteUrl"] = url
    capabilities_answered: dict[str, Any] = {"tools": {"listChanged": True}}
    if revision.tasks:
        capabilities_answered["tasks"] = jobs.CAPABILITY
    result: dict[str, Any] = {
        "protocolVersion": revision.version,
        "capabilities": capabilities_answered,
        "serverInfo": server_info,
    }
    instructions = _instructions(principal)
    if instructions:
        result["instructions"] = instructions
    metrics.mcp_session("initialized")
    return Reply(200, protocol.result(message.id, result), {"Mcp-Session-Id": session_id})


def _instructions(principal: Principal) -> str:
    try:
        return dispatch.server_instructions(principal)
    except Exception:
        logger.exception("the catalogue's instructions failed; initialize goes on without them")
        return ""


# --- tools --------------------------------------------------------------------------------------


def narrowing(request: Request) -> tuple[set[str] | None, bool]:
    """Toolsets (area keys) and read-only, from the query string or the X-MCP-* headers, for
    clients that cope with few tools (`/api/mcp?toolsets=contacts,tasks&readonly=true`)."""
    raw = request.query.get("toolsets") or request.headers.get("x-mcp-toolsets") or ""
    toolsets = {part.strip() for part in raw.split(",") if part.strip()} or None
    flag = (request.query.get("readonly") or request.headers.get("x-mcp-readonly") or "").strip().lower()
    if flag not in {"", "1", "0", "true", "false", "yes", "no", "on", "off"}:
        raise ProtocolError(INVALID_PARAMS, f"readonly must be true or false, not {flag!r}.")
    if toolsets:
        unknown = sorted(key for key in toolsets if permissions.get_area(key) is None)
        if unknown:
            known = ", ".join(area.key for area in permissions.areas())
            raise ProtocolError(
                INVALID_PARAMS, f"Unknown toolset(s): {', '.join(unknown)}. Toolsets are areas: {known}."
            )
    return toolsets, flag in {"1", "true", "yes", "on"}


def profile_of(request: Request) -> str | None:
    """The tool profile the client chose (`/api/mcp?profile=sales` or X-MCP-Profile), if any."""
    key = (request.query.get("profile") or request.headers.get("x-mcp-profile") or "").strip()
    if not key:
        return None
    if profiles.get(key) is None:
        known = ", ".join(profile.key for profile in profiles.PROFILES)
        raise ProtocolError(INVALID_PARAMS, f"Unknown profile {key[:40]!r}. Profiles: {known}.")
    return key


def _fingerprint(tools: list[dict[str, Any]]) -> str:
    names = "\n".join(tool["name"] for tool in tools)
    return hashlib.blake2b(names.encode(), digest_size=6).hexdigest()


def encode_cursor(offset: int, fingerprint: str) -> str:
    return f"{fingerprint}{offset:x}"


def decode_cursor(cursor: Any, fingerprint: str) -> int:
    if not isinstance(cursor, str) or len(cursor) <= len(fingerprint):
        raise ProtocolError(INVALID_PARAMS, "Invalid cursor: pass back the nextCursor of the previous page.")
    if not cursor.startswith(fingerprint):
        raise ProtocolError(
            INVALID_PARAMS, "The tool list changed since this cursor was issued; list again from the start."
        )
    try:
        return int(cursor[len(fingerprint) :], 16)
    except ValueError:
        raise ProtocolError(
            INVALID_PARAMS, "Invalid cursor: pass back the nextCursor of the previous page."
        ) from None


_pages: dict[tuple[Any, ...], encoded.Encoded] = {}
_PAGES_LIMIT = 1000
# (registry version, base URL, tool name, icons, tasks) -> the tool's entry as that revision writes it.
_with_icons: dict[tuple[int, str, str, bool, bool], dict[str, Any]] = {}
_WITH_ICONS_LIMIT = 20_000


def _decorated(tools: list[dict[str, Any]], revision: versions.Revision, url: str) -> list[dict[str, Any]]:
    """The entries as `revision` writes them: with their area's icon from 2025-11-25 on, and
    `execution.taskSupport` on the tools that may run as tasks (apps.mcp.jobs)."""
    if not revision.icons and not revision.tasks:
        return tools
    generation = registry.version()
    entries = []
    for entry in tools:
        key = (generation, url, entry["name"], revision.icons, revision.tasks)
        decorated = _with_icons.get(key)
        if decorated is None:
            spec = registry.get(entry["name"])
            area = spec.area if spec is not None else "catalogue"
            decorated = {**entry, "icons": icons.area_icons(url, area)} if revision.icons else dict(entry)
            support = jobs.task_support(spec) if spec is not None and revision.tasks else None
            if support is not None:
                decorated["execution"] = {"taskSupport": support}
            if len(_with_icons) >= _WITH_ICONS_LIMIT:
                _with_icons.clear()
            _with_icons[key] = decorated
        entries.append(decorated)
    return entries


def _tools_list(
    request: Request, message: Message, principal: Principal, revision: versions.Revision
) -> dict[str, Any]:
    toolsets, read_only = narrowing(request)
    tools = dispatch.list_tools(
        principal=principal, toolsets=toolsets, read_only=read_only, profile=profile_of(request)
    )
    url = base_url(request.scheme, request.host, request.headers) if revision.icons else ""
    size = settings.MCP_TOOLS_PAGE_SIZE
    fingerprint = _fingerprint(tools)
    cursor = message.params.get("cursor")
    start = 0 if cursor is None else decode_cursor(cursor, fingerprint)
    if start > len(tools):
        raise ProtocolError(INVALID_PARAMS, "Invalid cursor: it points past the end of the list.")
    # The same names in the same registry are the same definitions: the page is encoded once (per
    # revision's way of writing them, and origin of the icons' addresses).
    key = (registry.version(), fingerprint, start, size, revision.version, url)
    page = _pages.get(key)
    if page is None:
        content: dict[str, Any] = {"tools": _decorated(tools[start : start + size], revision, url)}
        if start + size < len(tools):
            content["nextCursor"] = encode_cursor(start + size, fingerprint)
        if revision.stateless:
            content.update(resultType="complete", **stateless.caching_hints())
        page = encoded.Encoded(content)
        if len(_pages) >= _PAGES_LIMIT:
            _pages.clear()
        _pages[key] = page
    return page


def may_wait(request: Request) -> bool:
    """Whether a POSTed message may wait on someone else: a tools/call of a tool that is not a
    read of the workspace alone (it may ask the user to confirm, through an elicitation, or call
    an outside service). Those run on their own threads (consumers.executor), so the requests that
    only need the database and Redis, including the answer such a call waits for, never queue
    behind them. Anything unreadable is quick: it is answered with an error at once. A call of
    callTool is judged by the tool it runs. The message read here is the one `serve` uses."""
    if b"tasks/result" in request.body:
        # It waits for a task to be over (apps.mcp.jobs).
        try:
            return request.message().method == "tasks/result"
        except ProtocolError:
            return False
    if b"tools/call" not in request.body:
        return False
    try:
        message = request.message()
    except ProtocolError:
        return False
    spec = _named(message.params) if message.method == "tools/call" else None
    if spec is not None and spec.runs_tools:
        spec = _named(message.params.get("arguments"))
        if spec is not None and spec.runs_tools:
            return False  # refused at once
    return spec is not None and (not spec.read_only or spec.open_world or spec.needs_confirmation)


def may_serve_on_loop(request: Request) -> str | None:
    """What a POSTed message would be served as on the event loop (apps.core.onloop): its method,
    or the tool of a tools/call, when that is ping, tools/list or a tool written for the loop
    (`on_loop`) that has not been giving up there; None when it goes straight to a thread. A
    session's requests only: a stateless revision's keep their state in Redis."""
    if not onloop.available() or versions.stateless(request.headers.get(protocol.VERSION_HEADER)):
        return None
    try:
        message = request.message()
    except ProtocolError:
        return None
    if message.kind != "request":
        return None
    if message.method in {"ping", "tools/list"}:
        what = message.method
    elif message.method == "tools/call" and "task" not in message.params:
        spec = _named(message.params)
        if spec is None or not spec.on_loop:
            return None
        what = spec.name
    else:
        return None
    return what if onloop.tally.worth(what) else None


def _named(params: Any) -> registry.ToolSpec | None:
    """The tool a tools/call's params (or callTool's arguments) name, if there is one."""
    name = params.get("name") if isinstance(params, dict) else None
    return registry.get(name) if isinstance(name, str) else None


def _tools_call(
    request: Request,
    message: Message,
    principal: Principal,
    session: sessions.LiveSession,
    call: RunningCall | None,
) -> dict[str, Any]:
    params = message.params
    name, arguments = protocol.tool_call_target(params)
    meta = params.get("_meta") or {}
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    capabilities = session.client_capabilities or {}
    revision = versions.of(session.protocol_version)
    url = base_url(request.scheme, request.host, request.headers)
    if revision.tasks and "task" in params:
        return _task_call(message, principal, session, url, name, arguments, capabilities)
    if call is not None:
        call.key = hub.key(session.digest, message.id)
        call.resumable, call.digest = revision.resumable_posts, session.digest
        hub.calls[call.key] = call
    context = dispatch.ToolContext(
        principal=principal,
        session=sessions.StoredSessionState(session),
        client_capabilities=capabilities,
        progress=_progress(call, token) if call is not None and isinstance(token, str | int) else None,
        elicit=_elicit(call, session.digest, f"{connection.schema_name}:{principal.user.pk}")
        if call is not None
        and "elicitation" in capabilities
        and (not revision.elicitation_modes or protocol.takes_form_questions(capabilities))
        else None,
        is_cancelled=call.cancelled.is_set if call is not None else (lambda: False),
        request_id=message.id,
        rich_elicitation=revision.elicitation_modes and protocol.takes_form_questions(capabilities),
        close_stream=(lambda: call.put(("close", None))) if call is not None and call.resumable else None,
        secure_input_door=secure_input.provider(
            user_id=principal.user.pk,
            digest=session.digest,
            base_url=url,
            ask_url=_elicit(
                call, session.digest, f"{connection.schema_name}:{principal.user.pk}", params_given=True
            )
            if call is not None and revision.elicitation_modes and _url_elicitation(capabilities)
            else None,
            is_cancelled=call.cancelled.is_set if call is not None else (lambda: False),
        ),
        raises_secure_input=revision.elicitation_modes,
        answers_as_json=True,
    )
    # Counted at this door, as the gateway counts its own (docs/architecture.md, "Metrics").
    with metrics.ToolCall("mcp", name) as counted:
        try:
            return counted.answered(dispatch.call_tool(context, name, arguments))
        except SecureInputRequired as required:
            counted.outcome = "tool_error"
            raise ProtocolError(
                protocol.URL_ELICITATION_REQUIRED,
                "This request requires more information: the user must complete the URL elicitation, "
                "then call the tool again.",
                data={"elicitations": required.elicitations},
            ) from None
        except dispatch.ScopeTooNarrow as narrow:
            counted.outcome = "not_found"
            if revision.scope_step_up:
                raise StepUp(insufficient_scope(url, narrow.scope, name)) from None
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}") from None
        except dispatch.ToolNotFound:
            counted.outcome = "not_found"
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}") from None
        except onloop.ABORTS:
            counted.outcome = ""  # counted when a thread serves it
            raise


def _task_call(
    message: Message,
    principal: Principal,
    session: sessions.LiveSession,
    url: str,
    name: str,
    arguments: dict[str, Any],
    capabilities: dict[str, Any],
) -> dict[str, Any]:
    """A task-augmented tools/call (2025-11-25): the tool must exist for this principal, as for a
    direct call; it then runs on a worker and the answer is a CreateTaskResult (apps.mcp.jobs)."""
    return jobs.task_create(
        principal=principal,
        digest=session.digest,
        origin=url,
        spec=task_tool(principal, name),
        arguments=arguments,
        task=message.params.get("task"),
        capabilities=capabilities,
    )


def task_tool(principal: Principal, name: str) -> registry.ToolSpec:
    """The tool a call to run as a task names, if the principal may use it now, as a direct call
    would check; else the same error as a direct call's."""
    spec = registry.get(name)
    if spec is None or not dispatch.may_use(principal, name):
        raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}")
    return spec


class StepUp(Exception):
    """The call needs a wider scope than the credential's: answered with HTTP 403 and the
    challenge that lets the client ask the person for it (2025-11-25 incremental consent)."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.status)
        self.refusal = refusal


def _url_elicitation(capabilities: dict[str, Any]) -> bool:
    """Whether the client takes URL-mode questions (2025-11-25: `elicitation.url` declared)."""
    declared = capabilities.get("elicitation")
    return isinstance(declared, dict) and "url" in declared


def _progress(call: RunningCall, token: str | int) -> Callable[..., None]:
    def progress(value: float, total: float | None = None, message: str | None = None) -> None:
        # A resumable stream keeps what its client misses, for when it comes back.
        if (call.gone.is_set() and not call.resumable) or call.cancelled.is_set():
            return
        params: dict[str, Any] = {"progressToken": token, "progress": value}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        call.put(("message", protocol.notification("notifications/progress", params)))

    return progress


class ElicitationFailed(Exception):
    """The client answered the elicitation with an error, or could not be asked."""


def _elicit(
    call: RunningCall, digest: str, person: str, params_given: bool = False
) -> Callable[..., dict[str, Any]]:
    """Asks the call's client an `elicitation/create`: a form question (message, requested
    schema), or with `params_given` one whose params are given whole (a URL-mode question: mode,
    elicitationId, url, message; a task's question, with its related-task `_meta`)."""

    def elicit(*question: Any) -> dict[str, Any]:
        if call.cancelled.is_set():
            raise CancelledByClient()
        if call.gone.is_set():
            raise ElicitationFailed("The client closed the connection.")
        params = question[0] if params_given else {"message": question[0], "requestedSchema": question[1]}
        try:
            with waiting.room.seat(digest, person):
                return _ask(call, digest, params)
        except waiting.Full as full:
            raise ElicitationFailed(str(full)) from None

    return elicit


def _ask(call: RunningCall, digest: str, params: dict[str, Any]) -> dict[str, Any]:
    if connection.connection is not None and not connection.in_atomic_block:
        # The person may take minutes to answer: the connection's slot is not kept meanwhile
        # (DATABASE_MAX_CONNECTIONS, apps/core/dbbackend); a question asked inside a tool's
        # transaction keeps it, with the transaction.
        connection.close()
    # Its answer may be POSTed to another web process: be subscribed before asking.
    asyncio.run_coroutine_threadsafe(hub.listening(), call.loop).result(timeout=10)
    request_id = f"elicit-{secrets.token_urlsafe(12)}"
    key = hub.key(digest, request_id)
    future = hub.expect(key, call)
    call.put(
        (
            "message",
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "elicitation/create",
                "params": params,
            },
        )
    )
    try:
        answer = future.result(timeout=settings.MCP_ELICITATION_TIMEOUT_SECONDS)
    except concurrent.futures.TimeoutError:
        raise ElicitationFailed("The user did not answer in time.") from None
    finally:
        hub.stop_expecting(key)
    if "error" in answer:
        raise ElicitationFailed(str((answer.get("error") or {}).get("message") or "elicitation failed"))
    result = answer.get("result")
    return result if isinstance(result, dict) else {}


# --- GET and DELETE -----------------------------------------------------------------------------


def _not_in_stateless(request: Request) -> Reply | None:
    """GET and DELETE belong to sessions: a stateless revision has neither (its client listens
    with `subscriptions/listen`, and has nothing to end)."""
    revision = versions.stateless((request.headers.get(protocol.VERSION_HEADER) or "").strip(" \t"))
    if revision is None:
        return None
    return Reply(
        405,
        protocol.error(
            None,
            INVALID_REQUEST,
            f"Method Not Allowed: {revision.version} has no sessions, so no GET stream and nothing to "
            "DELETE; POST subscriptions/listen to receive notifications.",
        ),
        {"Allow": "POST, OPTIONS"},
    )


def _get(request: Request, principal: Principal) -> Reply:
    refused = _not_in_stateless(request)
    if refused is not None:
        return refused
    _wants_json, wants_sse = protocol.accepts(request.headers.get("accept", ""))
    if not wants_sse:
        return jsonrpc_error(
            406, None, INVALID_REQUEST, "Not Acceptable: the Accept header must list text/event-stream."
        )
    try:
        _check_version(request)
        session = _session(request, principal)
    except ProtocolError as error:
        return _failed(error, None)
    return Reply(200, then=("stream", session.digest))


def _delete(request: Request, principal: Principal) -> Reply:
    refused = _not_in_stateless(request)
    if refused is not None:
        return refused
    try:
        _check_version(request)
        session = _session(request, principal)
    except ProtocolError as error:
        return _failed(error, None)
    sessions.session_end(session=session)
    metrics.mcp_session("ended")
    # The session has ended; its buffered events expire by themselves (MCP_EVENT_BUFFER_SECONDS).
    with errors.unless_unavailable(logger, "the ended session's buffered events stay until they expire: %s"):
        streams.forget_events(session.digest)
    return Reply(204, then=("end", session.digest))
