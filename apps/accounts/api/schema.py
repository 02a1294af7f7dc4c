"""How the accounts app's API appears in the OpenAPI schema (drf-spectacular extensions,
registered when this module is imported: AccountsConfig.ready)."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiViewExtension
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers

from apps.core.api.schema import error_responses


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

        class Fixed(self.target_class):  # type: ignore[name-defined]
            @extend_schema(
                operation_id="getMe",
                summary="Who the credential belongs to, and what they may do here",
                tags=["People"],
                responses={200: me, **error_responses(401)},
            )
            def get(self, request: Any) -> Any:
                return super().get(request)

        return Fixed
