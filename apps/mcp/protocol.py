"""JSON-RPC 2.0 and MCP vocabulary: versions, error codes, message shapes.

Nothing here touches the database or the network; the consumer and the handlers build on it.
"""

from dataclasses import dataclass
from typing import Any

from apps.core import encoded, json_input
from apps.mcp import versions

# The latest version this server speaks (SPEC 9), and every one it accepts and echoes, newest
# first; what each changes is `apps.mcp.versions`.
PROTOCOL_VERSION = versions.LATEST
SUPPORTED_VERSIONS = versions.SUPPORTED
# The latest version `initialize` negotiates (the newer ones need no handshake).
HANDSHAKE_VERSION = versions.LATEST_HANDSHAKE

# JSON-RPC 2.0
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# Implementation-defined range: a request that needs a session the server does not know.
SESSION_NOT_FOUND = -32001
# 2025-11-25: the request needs the user to complete a URL-mode elicitation first (`data.elicitations`).
URL_ELICITATION_REQUIRED = -32042
# What newer protocol revisions answer to a version they do not speak (`data.supported` lists
# ours); clients that probe with a newer version read it and fall back to `initialize`.
UNSUPPORTED_PROTOCOL_VERSION = -32022
# 2026-07-28: an HTTP header that mirrors the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name) is
# missing or says something else than the body.
HEADER_MISMATCH = -32020
# 2026-07-28: serving the request needs a capability the client did not declare in `_meta`
# (`data.requiredCapabilities` names it, as a ClientCapabilities object).
MISSING_CLIENT_CAPABILITY = -32021

SESSION_HEADER = "mcp-session-id"
VERSION_HEADER = "mcp-protocol-version"
LAST_EVENT_ID_HEADER = "last-event-id"
METHOD_HEADER = "mcp-method"
NAME_HEADER = "mcp-name"

# 2026-07-28 `_meta` keys: on requests, and on what the server sends.
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"


def takes_form_questions(capabilities: dict[str, Any]) -> bool:
    """Whether the client takes form questions: 2025-11-25 has it declare `elicitation.form`, and
    reads an `elicitation` without modes as form only."""
    declared = capabilities.get("elicitation")
    if not isinstance(declared, dict):
        return False
    return "form" in declared or "url" not in declared


class ProtocolError(Exception):
    """A message that cannot be served: answered as a JSON-RPC error, with an HTTP status when the
    failure is the transport's (400 for a malformed message) rather than the method's (200)."""

    def __init__(
        self, code: int, message: str, *, status: int = 200, data: Any = None, request_id: Any = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.data = data
        # The id of the message it answers, when the failure is known before the message is read
        # as a request (its content refused) and the message has one.
        self.request_id = request_id

    def error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


@dataclass(frozen=True)
class Message:
    """One JSON-RPC message as received: a request, a notification, or a response."""

    kind: str  # "request" | "notification" | "response"
    raw: dict[str, Any]

    @property
    def id(self) -> Any:
        return self.raw.get("id")

    @property
    def method(self) -> str:
        return self.raw.get("method", "")

    @property
    def params(self) -> dict[str, Any]:
        return self.raw.get("params") or {}


def parse(body: bytes) -> Message:
    """One JSON-RPC message, or a ProtocolError with HTTP status 400.

    The body is read as every door reads JSON (`apps.core.json_input`): text that is not JSON is a
    parse error; JSON with what no store can keep (NUL, a lone surrogate, a number out of range,
    nesting past MAX_DEPTH) is an invalid request, or invalid params when it is inside `params`,
    naming the place and answering the message's id when it has one."""
    try:
        data = json_input.loads(body)
    except json_input.JsonRefused as refused:
        raise _refused(refused) from None
    if isinstance(data, list):
        raise ProtocolError(
            INVALID_REQUEST,
            "Batches are not supported: send one JSON-RPC message per request.",
            status=400,
        )
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        raise ProtocolError(
            INVALID_REQUEST, 'Invalid Request: expected a JSON-RPC 2.0 object ("jsonrpc": "2.0").', status=400
        )
    has_id = "id" in data
    if has_id and not _valid_id(data["id"]):
        raise ProtocolError(
            INVALID_REQUEST, "Invalid Request: `id` must be a string or an integer.", status=400
        )
    if "method" in data:
        if not isinstance(data["method"], str) or not data["method"]:
            raise ProtocolError(
                INVALID_REQUEST, "Invalid Request: `method` must be a non-empty string.", status=400
            )
        if "params" in data and not isinstance(data["params"], dict):
            raise ProtocolError(INVALID_REQUEST, "Invalid Request: `params` must be an object.", status=400)
        return Message("request" if has_id else "notification", data)
    if has_id and (("result" in data) != ("error" in data)):
        return Message("response", data)
    raise ProtocolError(
        INVALID_REQUEST, "Invalid Request: neither a request, a notification nor a response.", status=400
    )


def _refused(refused: json_input.JsonRefused) -> ProtocolError:
    if refused.syntax:
        return ProtocolError(PARSE_ERROR, f"Parse error: {refused.problem}.", status=400)
    document = refused.document
    request_id = document.get("id") if isinstance(document, dict) else None
    inside_params = refused.where == "params" or refused.where.startswith(("params.", "params["))
    return ProtocolError(
        INVALID_PARAMS if inside_params else INVALID_REQUEST,
        f"{'Invalid params' if inside_params else 'Invalid Request'}: {refused.message}.",
        status=400,
        # The id itself refused (a NUL, a lone surrogate) cannot be written back: answered without.
        request_id=request_id if _valid_id(request_id) and refused.where != "id" else None,
    )


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def result(request_id: Any, value: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def dumps(message: Any) -> bytes:
    """A message's JSON, reusing what was encoded already (apps.core.encoded)."""
    return encoded.dumps(message)


def negotiate(offered: Any) -> str:
    """The version answered to `initialize` (`versions.negotiate`)."""
    return versions.negotiate(offered).version


def unsupported_version(request_id: Any, value: str) -> ProtocolError:
    return ProtocolError(
        UNSUPPORTED_PROTOCOL_VERSION,
        f"Unsupported MCP-Protocol-Version {value[:40]!r}: this server speaks {PROTOCOL_VERSION} "
        f"(also {', '.join(v for v in SUPPORTED_VERSIONS if v != PROTOCOL_VERSION)}). Send "
        f"{PROTOCOL_VERSION} with each request, or initialize to negotiate one of the others.",
        status=400,
        data={"supported": list(SUPPORTED_VERSIONS), "requested": value},
        request_id=request_id,
    )


def accepts(accept_header: str) -> tuple[bool, bool]:
    """(lists application/json, lists text/event-stream).

    MCP 2025-06-18 (Streamable HTTP) has the client list both types in the Accept header of a
    POST, and text/event-stream in that of a GET, because the server chooses between them for
    each answer. Only a type named counts: a header left out, `*/*` (what HTTP libraries send when
    the caller set none) or `text/*` lists neither, and a type given `q=0` is one the client
    refuses (RFC 9110, 12.4.2)."""
    listed = set()
    for part in accept_header.split(","):
        media_type, *parameters = part.split(";")
        if _quality(parameters) > 0:
            listed.add(media_type.strip().lower())
    return "application/json" in listed, "text/event-stream" in listed


def _quality(parameters: list[str]) -> float:
    for parameter in parameters:
        name, _sep, value = parameter.partition("=")
        if name.strip().lower() == "q":
            try:
                return float(value.strip())
            except ValueError:
                return 1.0  # a malformed weight is ignored, as if none were given
    return 1.0


def tool_call_target(params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The tool a `tools/call` names and its arguments (none: an empty object), whatever the
    revision; a ProtocolError (invalid params) when either is not what the method takes."""
    name = params.get("name")
    if not isinstance(name, str) or not name:
        raise ProtocolError(INVALID_PARAMS, "tools/call: `params.name` (a string) is required.")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ProtocolError(INVALID_PARAMS, "tools/call: `params.arguments` must be an object.")
    return name, arguments
