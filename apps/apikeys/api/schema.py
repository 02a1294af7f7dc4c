"""The bearer-token-plus-API-key scheme in the OpenAPI schema: both headers together (AND)."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class AccessTokenAndApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "apps.apikeys.authentication.AccessTokenAndApiKeyAuthentication"
    name = ["accessToken", "apiKey"]

    def get_security_definition(self, auto_schema: Any) -> list[dict[str, Any]]:
        return [
            {
                "type": "http",
                "scheme": "bearer",
                "bearerFormat": "personal access token (atp_…)",
                "description": "A personal access token from the workspace settings (90 days).",
            },
            {
                "type": "apiKey",
                "in": "header",
                "name": "X-Api-Key",
                "description": "An API key (atr_…): budget, usage, webhook URL and signing.",
            },
        ]
