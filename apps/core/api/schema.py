"""The OpenAPI schema of the JSON APIs (drf-spectacular), shared pieces.

Every DRF view under /api/ is in the schema by itself; describe it with `@extend_schema` and give
its failures with `error_responses(401, 404, ...)`. Endpoints that are not DRF views (lean ASGI
doors) add their paths through SPECTACULAR_SETTINGS["APPEND_PATHS"]. Authentication classes get a
security scheme through an `OpenApiAuthenticationExtension` (the ones below, or the app's own).
"""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiViewExtension
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

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


class AccessTokenScheme(OpenApiAuthenticationExtension):
    target_class = "apps.accounts.authentication.AccessTokenAuthentication"
    name = "accessToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "personal access token (atp_…)",
            "description": "A personal access token from the workspace settings (90 days).",
        }


class MeViewSchema(OpenApiViewExtension):
    """`/api/me` is a plain APIView: its body is described here."""

    target_class = "apps.accounts.api.views.MeView"

    def view_replacement(self) -> Any:
        me = inline_serializer(
            name="Me",
            fields={
                "id": serializers.IntegerField(),
                "email": serializers.EmailField(),
                "full_name": serializers.CharField(),
                "role": inline_serializer(
                    name="MeRole",
                    fields={"key": serializers.CharField(), "name": serializers.CharField()},
                    allow_null=True,
                ),
                "permissions": serializers.ListField(child=serializers.CharField()),
                "workspace": inline_serializer(
                    name="MeWorkspace",
                    fields={"name": serializers.CharField(), "brand_name": serializers.CharField()},
                    allow_null=True,
                ),
            },
        )

        class Fixed(self.target_class):  # type: ignore[name-defined,misc]
            @extend_schema(
                operation_id="getMe",
                summary="Who the credential belongs to, and what they may do here",
                tags=["People"],
                responses={200: me, **error_responses(401)},
            )
            def get(self, request: Any) -> Any:
                return super().get(request)

        return Fixed
