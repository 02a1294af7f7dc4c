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
