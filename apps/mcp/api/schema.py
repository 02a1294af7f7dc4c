"""How the MCP endpoint appears in the OpenAPI schema. `/api/mcp` is served before Django (a
Channels consumer, config/asgi.py), so a postprocessing hook describes it: Streamable HTTP
carrying JSON-RPC 2.0 (docs/mcp.md). The versions, headers, limits and status codes are read
from the modules that enforce them."""

from typing import Any

from django.conf import settings

from apps.core.api.schema import ERROR_REF, absolute, error_answer
from apps.mcp import protocol

TAG = "MCP"
PATH = "/api/mcp"

JSONRPC_ERROR_REF = {"$ref": "#/components/schemas/JsonRpcErrorResponse"}
SECURITY = [
    {"oauth2": ["mcp"]},
    {"oauth2": ["mcp:read"]},
    {"oauth2": ["mcp:write"]},
    {"accessToken": [], "apiKey": []},
]


def _header(name: str, description: str, *, required: bool = False) -> dict[str, Any]:
    return {
        "in": "header",
        "name": name,
        "required": required,
        "description": description,
        "schema": {"type": "string"},
    }


def _jsonrpc_answer(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": JSONRPC_ERROR_REF}}}


def _either(description: str) -> dict[str, Any]:
    """An answer that is SPEC 7.1's error body or a JSON-RPC error, depending on the case."""
    return {
        "description": description,
        "content": {"application/json": {"schema": {"oneOf": [ERROR_REF, JSONRPC_ERROR_REF]}}},
    }


def unauthorized(request: Any) -> dict[str, Any]:
    metadata = absolute(request, "/.well-known/oauth-protected-resource")
    return error_answer(
        "UNAUTHENTICATED (no credential, or one refused) or INVALID_API_KEY. The challenge names "
        "the protected-resource metadata, where an OAuth client starts.",
        **{
            "WWW-Authenticate": {
                "schema": {"type": "string"},
                "description": f'Bearer resource_metadata="{metadata}" (with error="invalid_token" '
                "when a token was presented and refused).",
            }
        },
    )


def components() -> dict[str, Any]:
    return {
        "JsonRpcMessage": {
            "type": "object",
            "description": "One JSON-RPC 2.0 message per POST (an array is refused): a request "
            "(initialize, ping, tools/list, tools/call), a notification (notifications/initialized, "
            "notifications/cancelled) or a response to a request of the server (elicitation).",
            "required": ["jsonrpc"],
            "properties": {
                "jsonrpc": {"const": "2.0"},
                "id": {"type": ["string", "integer"]},
                "method": {
                    "type": "string",
                    "examples": [
                        "initialize",
                        "ping",
                        "tools/list",
                        "tools/call",
                        "notifications/initialized",
                        "notifications/cancelled",
                    ],
                },
                "params": {"type": "object"},
                "result": {"type": "object"},
                "error": {"type": "object"},
            },
        },
        "JsonRpcResponse": {
            "type": "object",
            "required": ["jsonrpc", "id"],
            "properties": {
                "jsonrpc": {"const": "2.0"},
                "id": {"type": ["string", "integer"]},
                "result": {"type": "object"},
                "error": {"$ref": "#/components/schemas/JsonRpcError"},
            },
        },
        "JsonRpcError": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {
                    "type": "integer",
                    "description": f"{protocol.PARSE_ERROR} parse error, {protocol.INVALID_REQUEST} invalid "
                    f"request, {protocol.METHOD_NOT_FOUND} unknown method, {protocol.INVALID_PARAMS} invalid "
                    f"params (and unknown tools), {protocol.INTERNAL_ERROR} internal error, "
                    f"{protocol.SESSION_NOT_FOUND} session not found, "
                    f"{protocol.UNSUPPORTED_PROTOCOL_VERSION} unsupported protocol version "
                    "(`data.supported` lists ours).",
                },
                "message": {"type": "string"},
                "data": {},
            },
        },
        "JsonRpcErrorResponse": {
            "type": "object",
            "required": ["jsonrpc", "error"],
            "properties": {
                "jsonrpc": {"const": "2.0"},
                "id": {"type": ["string", "integer", "null"]},
                "error": {"$ref": "#/components/schemas/JsonRpcError"},
            },
        },
    }


def path_item(request: Any) -> dict[str, Any]:
    versions = ", ".join(protocol.SUPPORTED_VERSIONS)
    session = _header(
        "Mcp-Session-Id", "The id `initialize` answered with; on every later request.", required=True
    )
    version = _header(
        "MCP-Protocol-Version",
        f"The negotiated version ({versions}). Another value: 400 with JSON-RPC error "
        f"{protocol.UNSUPPORTED_PROTOCOL_VERSION} and `data.supported`.",
    )
    common = {
        "401": unauthorized(request),
        "403": _either(
            "INSUFFICIENT_SCOPE (an OAuth token with none of mcp, mcp:read, mcp:write; SPEC 7.1 body "
            'and `WWW-Authenticate: Bearer error="insufficient_scope"`), KEY_OWNER_MISMATCH or '
            "KEY_REVOKED (SPEC 7.1 body), or an `Origin` that may not use the endpoint (JSON-RPC error)."
        ),
        "503": error_answer("UNAVAILABLE: the database or Redis is out of reach; retry after Retry-After."),
    }
    not_found = _either(
        "A session that ended, idled out, belongs to someone else or never existed (JSON-RPC error "
        f"{protocol.SESSION_NOT_FOUND}: initialize again), or no workspace at this host (SPEC 7.1 NOT_FOUND)."
    )
    missing_session = _jsonrpc_answer("The Mcp-Session-Id header is missing, or the version is unsupported.")
    about = (
        f"Model Context Protocol {protocol.PROTOCOL_VERSION} over Streamable HTTP, carrying JSON-RPC 2.0 "
        f"(also accepted: {versions}). A credential on every request: an OAuth access token "
        "(Authorization: Bearer), or a personal access token with X-Api-Key. The tools are the "
        "catalogue's, limited to what the person's role allows. "
    )
    return {
        "post": {
            "operationId": "mcpPost",
            "summary": "Send one JSON-RPC message",
            "description": about + "The request's `Accept` header must list both application/json and "
            "text/event-stream (else 406), and its body be application/json (else 415). "
            f"{protocol.PROTOCOL_VERSION} is stateless: no `initialize` and no session; each request "
            "carries `_meta` (protocol version, client capabilities, client info), `MCP-Protocol-Version`, "
            "`Mcp-Method` and, for tools/call, `Mcp-Name` mirroring the body (else 400 with "
            f"{protocol.HEADER_MISMATCH}); its methods are server/discover, tools/list, tools/call and "
            "subscriptions/listen (others 404 with -32601). In the older versions `initialize` "
            "needs no session and answers with the `Mcp-Session-Id` header. A request is answered "
            "application/json, or text/event-stream when progress or a question to the user comes "
            "before the result. Notifications and responses are answered 202 with no body. Narrow "
            "`tools/list` with the query or the X-MCP-* headers (a profile of at most 40 tools, "
            "areas, read-only tools).",
            "tags": [TAG],
            "security": SECURITY,
            "parameters": [
                {
                    **session,
                    "required": False,
                    "description": session["description"]
                    + f" Not on initialize, nor in {protocol.PROTOCOL_VERSION}.",
                },
                version,
                _header("Mcp-Method", f"{protocol.PROTOCOL_VERSION}: the body's method."),
                _header("Mcp-Name", f"{protocol.PROTOCOL_VERSION}: the tool's name, on tools/call."),
                _header("X-MCP-Profile", "A tool profile (the server card lists them)."),
                _header("X-MCP-Toolsets", "Areas, comma-separated, e.g. contacts,tasks."),
                _header("X-MCP-Readonly", "true: read-only tools only."),
                {
                    "in": "query",
                    "name": "profile",
                    "schema": {"type": "string"},
                    "description": "As X-MCP-Profile.",
                },
                {
                    "in": "query",
                    "name": "toolsets",
                    "schema": {"type": "string"},
                    "description": "As X-MCP-Toolsets.",
                },
                {
                    "in": "query",
                    "name": "readonly",
                    "schema": {"type": "boolean"},
                    "description": "As X-MCP-Readonly.",
                },
            ],
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JsonRpcMessage"}}},
            },
            "responses": {
                "200": {
                    "description": "The JSON-RPC response; on `initialize`, with the session's id.",
                    "headers": {
                        "Mcp-Session-Id": {
                            "schema": {"type": "string"},
                            "description": "On the answer to initialize: 43 characters, URL-safe.",
                        }
                    },
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/JsonRpcResponse"}},
                        "text/event-stream": {
                            "schema": {
                                "type": "string",
                                "description": "Progress notifications and server requests, "
                                "then the response.",
                            }
                        },
                    },
                },
                "202": {"description": "A notification or a response, accepted: no body."},
                "400": _jsonrpc_answer(
                    "A body that is not one JSON-RPC message (-32700, -32600, -32602), a missing "
                    "Mcp-Session-Id, or an unsupported MCP-Protocol-Version; in "
                    f"{protocol.PROTOCOL_VERSION}, a missing `_meta` (-32602), headers that do not "
                    f"mirror the body ({protocol.HEADER_MISMATCH}) or a tool that needs a client "
                    f"capability the request did not declare ({protocol.MISSING_CLIENT_CAPABILITY})."
                ),
                **common,
                "404": not_found,
                "406": _jsonrpc_answer("Accept does not list both application/json and text/event-stream."),
                "413": _jsonrpc_answer(f"The body is larger than {settings.MCP_MAX_BODY_BYTES} bytes."),
                "415": _jsonrpc_answer("The body is not application/json."),
            },
        },
        "get": {
            "operationId": "mcpStream",
            "summary": "Open the session's stream of server messages",
            "description": about + "Server-sent events for messages the server starts (today "
            "notifications/tools/list_changed), with keep-alive comments. `Accept` must list "
            "text/event-stream (else 406). One stream per session: a new one replaces the old.",
            "tags": [TAG],
            "security": SECURITY,
            "parameters": [
                session,
                version,
                _header("Last-Event-ID", "Resume: the events after this id are replayed first."),
            ],
            "responses": {
                "200": {
                    "description": "The stream.",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}},
                },
                "400": missing_session,
                **common,
                "404": not_found,
                "406": _jsonrpc_answer("Accept does not list text/event-stream."),
            },
        },
        "delete": {
            "operationId": "mcpEndSession",
            "summary": "End the session",
            "description": about + "Its stream closes; later requests with its id answer 404.",
            "tags": [TAG],
            "security": SECURITY,
            "parameters": [session, version],
            "responses": {
                "204": {"description": "Ended."},
                "400": missing_session,
                **common,
                "404": not_found,
            },
        },
    }


def card_path() -> dict[str, Any]:
    return {
        "get": {
            "operationId": "getServerCard",
            "summary": "Server card (SPEC 2.5)",
            "description": "What a client can learn before connecting: the brand name, version, "
            "protocol version, transport URL, tool profiles, and where the OAuth metadata is.",
            "tags": [TAG],
            "security": [],
            "responses": {
                "200": {
                    "description": "The card (CORS: any origin; cached 5 minutes).",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ServerCard"}}},
                }
            },
        }
    }


def card_component() -> dict[str, Any]:
    text = {"type": "string"}
    return {
        "ServerCard": {
            "type": "object",
            "required": ["name", "version", "protocolVersion", "transport", "authentication"],
            "properties": {
                "name": {**text, "description": "The workspace's brand name."},
                "title": text,
                "version": text,
                "protocolVersion": {**text, "const": protocol.PROTOCOL_VERSION},
                "supportedVersions": {
                    "type": "array",
                    "items": text,
                    "description": "Every version the endpoint speaks, newest first.",
                },
                "serverInfo": {"type": "object"},
                "transport": {
                    "type": "object",
                    "properties": {"type": {"const": "streamable-http"}, "url": {**text, "format": "uri"}},
                },
                "capabilities": {"type": "object"},
                "profiles": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": text,
                            "job": {**text, "description": "What a person who does the job says of it."},
                            "title": text,
                            "description": text,
                            "url": {**text, "format": "uri"},
                            "scope": text,
                            "tools": {"type": "integer"},
                        },
                    },
                },
                "authentication": {
                    "type": "object",
                    "properties": {
                        "type": {"const": "oauth2"},
                        "required": {"type": "boolean"},
                        "protectedResourceMetadata": {**text, "format": "uri"},
                        "authorizationServerMetadata": {**text, "format": "uri"},
                        "scopes": {"type": "array", "items": text},
                    },
                },
                "oauth": {"type": "object"},
            },
        }
    }


def add_paths(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Postprocessing hook: /api/mcp and the server card."""
    paths = result.setdefault("paths", {})
    paths[PATH] = path_item(request)
    paths["/.well-known/mcp.json"] = card_path()
    alias = card_path()
    alias["get"] = {**alias["get"], "operationId": "getServerCardAlias", "summary": "Server card (alias)"}
    paths["/.well-known/mcp/server-card.json"] = alias
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(components())
    schemas.update(card_component())
    return result
