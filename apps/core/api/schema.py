"""The OpenAPI schema of the JSON APIs (drf-spectacular), shared pieces.

Every DRF view under /api/ is in the schema by itself; describe it with `@extend_schema` and give
its failures with `error_responses(401, 404, ...)`. Endpoints that are not DRF views (lean ASGI
doors) add their paths through SPECTACULAR_SETTINGS["APPEND_PATHS"]. Authentication classes get a
security scheme through an `OpenApiAuthenticationExtension` in their app (apps.accounts.api.schema).
"""

from collections.abc import Callable
from typing import Any, TypeVar

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

F = TypeVar("F", bound=Callable[..., Any])

ErrorBody = inline_serializer(
    name="Error",
    fields={
        "error": inline_serializer(
            name="ErrorDetail",
            fields={
                "code": serializers.CharField(help_text="Stable machine code, e.g. KEY_REVOKED."),
                "message": serializers.CharField(help_text="What went wrong, for a person."),
                "details": serializers.JSONField(
                    required=False, help_text="Field errors (422) or facts about the refusal."
                ),
            },
        )
    },
)

DESCRIPTIONS = {
    400: "BAD_REQUEST: the body is not valid JSON.",
    401: "UNAUTHENTICATED (access token missing or invalid) or INVALID_API_KEY (key missing or invalid).",
    403: "FORBIDDEN, KEY_OWNER_MISMATCH or KEY_REVOKED.",
    404: "NOT_FOUND: no such record, or not yours.",
    409: "CONFLICT.",
    413: "PAYLOAD_TOO_LARGE: the body is over the limit.",
    415: "UNSUPPORTED_MEDIA_TYPE: send application/json.",
    422: "VALIDATION_ERROR: the message says what, details names the fields.",
    429: "BUDGET_EXCEEDED: details.resets_at says when the budget is whole again; Retry-After too.",
}


def error_responses(*statuses: int, descriptions: dict[int, str] | None = None) -> dict[int, Any]:
    """The error answers of an endpoint; `descriptions` replaces the default wording per status."""
    wording = {**DESCRIPTIONS, **(descriptions or {})}
    return {
        status: OpenApiResponse(response=ErrorBody, description=wording.get(status, "An error."))
        for status in statuses
    }


def operations(tag: str, **shared: Any) -> Callable[..., Callable[[F], F]]:
    """`extend_schema` for the operations of one part of an API: each is listed under `tag`, with
    what they all have (`shared`: the path's parameters) and what it says of itself."""

    def operation(**schema: Any) -> Callable[[F], F]:
        return extend_schema(tags=[tag], **shared, **schema)

    return operation


# --- pieces for the paths that are not DRF views (postprocessing hooks) -------------------------

ERROR_REF = {"$ref": "#/components/schemas/Error"}


def error_answer(description: str, **headers: dict[str, Any]) -> dict[str, Any]:
    """A raw OpenAPI response in the error format of SPEC 7.1 (the `Error` component the DRF
    views' `error_responses` register), for a path added by a postprocessing hook."""
    answer: dict[str, Any] = {
        "description": description,
        "content": {"application/json": {"schema": ERROR_REF}},
    }
    if headers:
        answer["headers"] = headers
    return answer


def base_url(request: Any) -> str | None:
    """The workspace's origin as the schema's reader reached it ("http://127.0.0.1:8000"), or None
    when the schema is generated without a request (`manage.py spectacular`)."""
    if request is None:
        return None
    return str(request.build_absolute_uri("/")).rstrip("/")


def absolute(request: Any, path: str) -> str:
    """`path` at the reader's workspace origin; the path alone without a request."""
    origin = base_url(request)
    return f"{origin}{path}" if origin else path


def add_servers(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """`servers`: the workspace's own base URL, the host the schema was asked from (each workspace
    has its own host, so a reference read at one workspace's host calls that workspace). Without
    a request, a `{base_url}` variable as SPEC.md writes it."""
    origin = base_url(request)
    if origin:
        result["servers"] = [{"url": origin, "description": "This workspace"}]
    else:
        result["servers"] = [
            {
                "url": "{base_url}",
                "description": "A workspace's own origin (one host per workspace)",
                "variables": {"base_url": {"default": "http://127.0.0.1:8000"}},
            }
        ]
    return result


def add_probe_paths(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Postprocessing hook: the health probes (apps.core.views), JSON on every host."""
    status = {"type": "string", "enum": ["ok", "unavailable"]}
    result.setdefault("paths", {}).update(
        {
            "/healthz": {
                "get": {
                    "operationId": "healthz",
                    "summary": "The process is alive",
                    "description": "No dependency is consulted.",
                    "tags": ["Operations"],
                    "security": [],
                    "responses": {
                        "200": {
                            "description": "Alive.",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "required": ["status"],
                                        "properties": {"status": {"const": "ok"}},
                                    }
                                }
                            },
                        }
                    },
                }
            },
            "/readyz": {
                "get": {
                    "operationId": "readyz",
                    "summary": "PostgreSQL and Redis both answer",
                    "tags": ["Operations"],
                    "security": [],
                    "responses": {
                        str(code): {
                            "description": description,
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "required": ["status", "checks"],
                                        "properties": {
                                            "status": status,
                                            "checks": {
                                                "type": "object",
                                                "properties": {"database": status, "redis": status},
                                            },
                                        },
                                    }
                                }
                            },
                        }
                        for code, description in ((200, "Ready."), (503, "Not ready: `checks` says which."))
                    },
                }
            },
        }
    )
    return result
