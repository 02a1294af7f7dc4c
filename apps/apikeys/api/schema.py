"""The bearer-token-plus-API-key scheme in the OpenAPI schema: both headers together (AND)."""

from typing import Any

from drf_spectacular.drainage import set_override
from drf_spectacular.extensions import OpenApiAuthenticationExtension

from apps.apikeys.authentication import AccessTokenAndApiKeyAuthentication

# Its `accessToken` half is the very scheme AccessTokenAuthentication registers under that name.
set_override(AccessTokenAndApiKeyAuthentication, "suppress_collision_warning", True)


class AccessTokenAndApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "apps.apikeys.authentication.AccessTokenAndApiKeyAuthentication"
    match_subclasses = True  # the gateway's variant, which lets a spent budget read, is the same scheme
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
