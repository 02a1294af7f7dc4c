"""MCP 2026-07-28: stateless requests (SEP-2575), beside the 2025 sessions of `handlers`.

A request is of this revision when its MCP-Protocol-Version header names it. It needs no
`initialize` and no Mcp-Session-Id: its `params._meta` carries the protocol version, the client's
capabilities (for this request only) and, optionally, its info. The HTTP headers that mirror the
body must agree with it: MCP-Protocol-Version with `_meta`, Mcp-Method with the method, Mcp-Name
with the tool's name (SEP-2243); otherwise HTTP 400 with HeaderMismatch (-32020). Methods:

- `server/discover`: the versions, capabilities, server info (the workspace's brand, in `_meta`)
  and instructions, with caching hints;
- `tools/list`: as in 2025, plus `ttlMs` and `cacheScope: private` (it depends on the credential);
- `tools/call`: as in 2025, except that the server asks the client nothing on the stream: a
  confirmation, or anything else a tool needs from the client, ends the call with an
  `InputRequiredResult` the client answers by calling again with `inputResponses` and the
  `requestState` (`apps.catalogue.inputs`). Progress still streams; the client cancels a call by
  closing its response (a POSTed `notifications/cancelled` cancels nothing); the call log is
  the same;
- `subscriptions/listen`: a stream of the notifications the client asked for
  (`notifications/tools/list_changed`, and `notifications/tasks` of its tasks), which replaces the
  GET stream;
- the tasks extension (`io.modelcontextprotocol/tasks`, apps.mcp.jobs): a long tool's call is a
  task for a request that declares it; `tasks/get`, `tasks/update`, `tasks/cancel`.

Anything else, including what 2026-07-28 removed (initialize, ping, logging/setLevel,
resources/subscribe), is HTTP 404 with -32601. What the catalogue keeps per session is kept per
caller (`apps.mcp.callers`).
"""

from typing import Any

from django.conf import settings

from apps.catalogue import dispatch, inputs, registry
from apps.core import metrics
from apps.core.credentials import Principal
from apps.mcp import callers, handlers, icons, jobs, protocol, streams, versions
from apps.mcp.access import base_url, insufficient_scope
from apps.mcp.protocol import INVALID_PARAMS, INVALID_REQUEST, Message, ProtocolError
from apps.mcp.streams import RunningCall
from apps.tenancy.models import Workspace

# The methods of this revision a request may name; each one's handler below (the tasks
# extension's: apps.mcp.jobs).
METHODS = (
    "server/discover",
    "subscriptions/listen",
    "tasks/cancel",
    "tasks/get",
    "tasks/update",
    "tools/call",
    "tools/list",
)
# Methods of the 2025 revisions that 2026-07-28 removed: named in the 404's message.
REMOVED = {
    "initialize": (
        "there is no handshake: send the version, capabilities and client info in each request's _meta"
    ),
    "notifications/initialized": "there is no handshake",
    "ping": "there are no sessions to keep alive",
    "logging/setLevel": "set _meta.io.modelcontextprotocol/logLevel on a request instead",
    "resources/subscribe": "use subscriptions/listen",
    "resources/unsubscribe": "use subscriptions/listen",
    "tasks/list": "the tasks extension lists no tasks: keep the ids of yours",
    "tasks/result": "tasks/get carries a task's result",
}
# Methods whose Mcp-Name header mirrors a parameter, and which.
NAMED = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}
CAPABILITIES = {"tools": {"listChanged": True}, "extensions": {jobs.EXTENSION: {}}}
TASK_METHODS = {
    "tasks/get": jobs.extension_get,
    "tasks/update": jobs.extension_update,
    "tasks/cancel": jobs.extension_cancel,
}


def revision_of(request: "handlers.Request", message: Message) -> versions.Revision | None:
    """The stateless revision this request is of, or None (a 2025 request: `handlers` serves it).
    A body whose `_meta` names a stateless version under another header (or none) is refused:
    the header must mirror it."""
    header = _header(request, protocol.VERSION_HEADER)
    revision = versions.stateless(header)
    if revision is not None:
        return revision
    meta = message.params.get("_meta") if message.kind != "response" else None
    named = meta.get(protocol.META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
    if versions.stateless(named) is not None:
        raise _mismatch(f"the MCP-Protocol-Version header ({_shown(header)}) must be {named!r}, as in _meta")
    return None


def serve(
    request: "handlers.Request",
    message: Message,
    revision: versions.Revision,
    workspace: Workspace,
    principal: Principal,
    call: RunningCall | None,
) -> "handlers.Reply":
    if message.kind == "response":
        raise ProtocolError(
            INVALID_REQUEST,
            f"Invalid Request: {revision.version} has no server-to-client requests, so there is "
            "nothing to answer.",
            status=400,
        )
    meta = _checked_meta(message)
    _check_headers(request, message, meta)
    if message.kind == "notification":
        return _notification(message)
    caller = callers.caller_digest(principal)
    if message.method not in METHODS:
        reason = REMOVED.get(message.method)
        raise ProtocolError(
            protocol.METHOD_NOT_FOUND,
            f"Method not found: {message.method[:100]}"
            + (f" (removed in {revision.version}: {reason})" if reason else "")
            + f". This server serves {', '.join(METHODS)}.",
            status=404,
        )
    if message.method == "server/discover":
        return handlers.Reply(200, protocol.result(message.id, _discover(request, workspace, principal)))
    if message.method == "tools/list":
        return handlers.Reply(
            200, protocol.result(message.id, handlers._tools_list(request, message, principal, revision))
        )
    capabilities = meta[protocol.META_CLIENT_CAPABILITIES]
    if message.method == "subscriptions/listen":
        return _listen(message, workspace, principal, capabilities)
    if message.method in TASK_METHODS:
        if not jobs.declares_extension(capabilities):
            raise jobs.missing_extension(message.method)
        return handlers.Reply(
            200, protocol.result(message.id, TASK_METHODS[message.method](principal, message.params))
        )
    return handlers.Reply(
        200,
        protocol.result(
            message.id, _tools_call(request, message, principal, caller, capabilities, revision, call)
        ),
    )


# --- the envelope -------------------------------------------------------------------------------


def _checked_meta(message: Message) -> dict[str, Any]:
    meta = message.params.get("_meta")
    if not isinstance(meta, dict):
        raise _invalid_meta("params._meta (an object) is required on every request")
    if not isinstance(meta.get(protocol.META_PROTOCOL_VERSION), str):
        raise _invalid_meta(f"params._meta[{protocol.META_PROTOCOL_VERSION!r}] (a string) is required")
    if not isinstance(meta.get(protocol.META_CLIENT_CAPABILITIES), dict):
        raise _invalid_meta(
            f"params._meta[{protocol.META_CLIENT_CAPABILITIES!r}] (an object, {{}} for none) is required"
        )
    if protocol.META_CLIENT_INFO in meta and not isinstance(meta[protocol.META_CLIENT_INFO], dict):
        raise _invalid_meta(f"params._meta[{protocol.META_CLIENT_INFO!r}] must be an object")
    return meta


def _invalid_meta(problem: str) -> ProtocolError:
    return ProtocolError(INVALID_PARAMS, f"Invalid params: {problem}.", status=400)


def _check_headers(request: "handlers.Request", message: Message, meta: dict[str, Any]) -> None:
    version = meta[protocol.META_PROTOCOL_VERSION]
    header = _header(request, protocol.VERSION_HEADER)
    if header != version:
        raise _mismatch(f"MCP-Protocol-Version ({_shown(header)}) does not match _meta ({version[:40]!r})")
    method = _header(request, protocol.METHOD_HEADER)
    if method != message.method:
        raise _mismatch(
            f"Mcp-Method ({_shown(method)}) must be the request's method, {message.method[:100]!r}"
        )
    field = NAMED.get(message.method)
    named = message.params.get(field) if field is not None else None
    name = _header(request, protocol.NAME_HEADER)
    if isinstance(named, str) and name != named:
        raise _mismatch(f"Mcp-Name ({_shown(name)}) must be the request's params.{field}, {named[:100]!r}")


def _header(request: "handlers.Request", name: str) -> str | None:
    value = request.headers.get(name)
    # Whitespace around a field value is not part of it (RFC 9110, 5.5).
    return value.strip(" \t") if value is not None else None


def _shown(value: str | None) -> str:
    return "missing" if value is None else repr(value[:100])


def _mismatch(problem: str) -> ProtocolError:
    return ProtocolError(protocol.HEADER_MISMATCH, f"Header mismatch: {problem}.", status=400)


def _notification(message: Message) -> "handlers.Reply":
    """Acknowledged, and nothing done: this revision has no notification for a client to send.
    A `notifications/cancelled` in particular cancels nothing. Its client cancels a call by
    closing the call's response (apps.mcp.consumers), which only that client can do; a request id
    names no client, and two clients sharing a credential may well number their requests alike."""
    return handlers.Reply(202)


# --- server/discover ----------------------------------------------------------------------------


def caching_hints() -> dict[str, Any]:
    """`ttlMs` and `cacheScope` of a cacheable result (SEP-2549): private, since what is listed
    depends on the credential (role, scope, profile)."""
    return {"ttlMs": settings.MCP_LIST_TTL_SECONDS * 1000, "cacheScope": "private"}


def _discover(request: "handlers.Request", workspace: Workspace, principal: Principal) -> dict[str, Any]:
    url = base_url(request.scheme, request.host, request.headers)
    result: dict[str, Any] = {
        "resultType": "complete",
        "supportedVersions": list(versions.SUPPORTED),
        "capabilities": CAPABILITIES,
        **caching_hints(),
        "_meta": {
            protocol.META_SERVER_INFO: {
                "name": workspace.brand_name,
                "title": workspace.brand_name,
                "version": settings.ATRIUM_VERSION,
                "icons": icons.server_icons(url),
                "websiteUrl": url,
            }
        },
    }
    instructions = handlers._instructions(principal)
    if instructions:
        result["instructions"] = instructions
    return result


# --- subscriptions/listen -----------------------------------------------------------------------

# What a listen stream may ask for and this server sends: `notifications/tools/list_changed`.
# Other kinds (prompts, resources) are left out of the acknowledgement: there are none here.
SUBSCRIBABLE = {"toolsListChanged"}


def _listen(
    message: Message, workspace: Workspace, principal: Principal, capabilities: dict[str, Any]
) -> "handlers.Reply":
    wanted = message.params.get("notifications")
    if not isinstance(wanted, dict):
        raise ProtocolError(
            INVALID_PARAMS,
            "Invalid params: subscriptions/listen needs `notifications`, the kinds to receive "
            '(e.g. {"toolsListChanged": true}).',
        )
    honoured: dict[str, Any] = {kind: True for kind in sorted(SUBSCRIBABLE) if wanted.get(kind) is True}
    groups = streams.list_changed_groups(workspace.schema_name, principal.user.pk)
    if "taskIds" in wanted:
        # The tasks extension: `notifications/tasks` of the caller's tasks named (others, and ids
        # that are no task of theirs, are left out of the acknowledgement).
        if not jobs.declares_extension(capabilities):
            raise jobs.missing_extension("Task status notifications")
        task_ids = jobs.owned_tasks(principal, wanted["taskIds"])
        honoured["taskIds"] = task_ids
        groups += [streams.task_group(workspace.schema_name, task_id) for task_id in task_ids]
    return handlers.Reply(200, then=("listen", message.id, honoured, groups))


def acknowledgement(subscription_id: Any, honoured: dict[str, bool]) -> dict[str, Any]:
    return protocol.notification(
        "notifications/subscriptions/acknowledged",
        {"notifications": honoured, "_meta": {protocol.META_SUBSCRIPTION_ID: subscription_id}},
    )


def task_changed(subscription_id: Any, task: dict[str, Any]) -> dict[str, Any]:
    """`notifications/tasks` on a listen stream: the DetailedTask, as tasks/get would answer it."""
    return protocol.notification(
        jobs.EXTENSION_NOTIFICATION, {**task, "_meta": {protocol.META_SUBSCRIPTION_ID: subscription_id}}
    )


def list_changed(subscription_id: Any) -> dict[str, Any]:
    return protocol.notification(
        "notifications/tools/list_changed", {"_meta": {protocol.META_SUBSCRIPTION_ID: subscription_id}}
    )


def listen_ended(subscription_id: Any) -> dict[str, Any]:
    """The result that ends a listen stream the server closes (it is stopping)."""
    return protocol.result(
        subscription_id, {"resultType": "complete", "_meta": {protocol.META_SUBSCRIPTION_ID: subscription_id}}
    )


# --- tools/call ---------------------------------------------------------------------------------


def _tools_call(
    request: "handlers.Request",
    message: Message,
    principal: Principal,
    caller: str,
    capabilities: dict[str, Any],
    revision: versions.Revision,
    call: RunningCall | None,
) -> dict[str, Any]:
    params = message.params
    name, arguments = protocol.tool_call_target(params)
    spec = registry.get(name)
    if (
        revision.tasks_extension
        and spec is not None
        and jobs.task_support(spec) is not None
        and jobs.declares_extension(capabilities)
    ):
        # A long tool, for a client that takes tasks: the server makes the call a task.
        return jobs.task_create_extension(
            principal=principal,
            origin=base_url(request.scheme, request.host, request.headers),
            spec=handlers.task_tool(principal, name),
            arguments=arguments,
            capabilities=capabilities,
            revision=revision,
        )
    try:
        responses = inputs.checked_responses(params.get("inputResponses", {}))
    except inputs.InvalidInputResponses as invalid:
        raise ProtocolError(INVALID_PARAMS, f"Invalid params: {invalid}.") from None
    state = params.get("requestState")
    if state is not None and not isinstance(state, str):
        raise ProtocolError(
            INVALID_PARAMS, "Invalid params: `requestState` must be the string the server sent."
        )
    token = params["_meta"].get("progressToken")
    context = dispatch.ToolContext(
        principal=principal,
        session=callers.CallerState(caller),
        client_capabilities=capabilities,
        progress=handlers._progress(call, token)
        if call is not None and isinstance(token, str | int)
        else None,
        is_cancelled=call.cancelled.is_set if call is not None else (lambda: False),
        request_id=message.id,
        rich_elicitation=revision.elicitation_modes and protocol.takes_form_questions(capabilities),
        input_responses=responses,
        request_state=state,
        spend_once=callers.spend_once,
        answers_as_json=True,
    )
    with metrics.ToolCall("mcp", name) as counted:
        try:
            result = counted.answered(dispatch.call_tool(context, name, arguments))
        except inputs.InvalidRequestState as invalid:
            counted.outcome = "tool_error"
            raise ProtocolError(
                INVALID_PARAMS, f"Invalid params: {invalid}. Call {name} again without it to start over."
            ) from None
        except inputs.MissingClientCapability as missing:
            counted.outcome = "tool_error"
            raise ProtocolError(
                protocol.MISSING_CLIENT_CAPABILITY,
                f"Missing required client capability: {name} needs `{missing.capability}`, which this "
                "request's _meta does not declare.",
                status=400,
                data={"requiredCapabilities": {missing.capability: {}}},
            ) from None
        except dispatch.ScopeTooNarrow as narrow:
            counted.outcome = "not_found"
            url = base_url(request.scheme, request.host, request.headers)
            raise handlers.StepUp(insufficient_scope(url, narrow.scope, name)) from None
        except dispatch.ToolNotFound:
            counted.outcome = "not_found"
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}") from None
    if "resultType" not in result:
        result["resultType"] = "complete"
    return result
