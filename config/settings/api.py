"""The JSON APIs: Django REST framework, the OpenAPI schema, and the API keys that meter them
(apps.apikeys: keys, signing secrets, budgets, webhook targets)."""

from apps.core import env

from .applications import ATRIUM_VERSION

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.accounts.authentication.AccessTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # DRF's JSONParser reading with apps.core.json_input, as every door does (docs/architecture.md).
    "DEFAULT_PARSER_CLASSES": ["apps.core.api.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "apps.core.api.exceptions.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

# --- API keys (apps.apikeys) --------------------------------------------------------------------

# SPEC 5.2's X-Api-Key and the webhook signing secret: fixed prefixes (GitHub-style, scannable).
API_KEY_PREFIX = "atr"
SIGNING_SECRET_PREFIX = "atw"  # noqa: S105  (a prefix, not a secret)
# When a signing secret is rolled, the old one keeps signing (X-Signature-Previous) this long.
SIGNING_SECRET_ROLL_OVERLAP_HOURS = env.int("ATRIUM_SIGNING_SECRET_ROLL_OVERLAP_HOURS", 24, min=0)
# A budget reservation not settled within this time belongs to a worker that died: the sweeper
# releases it. Longer than any model call.
BUDGET_RESERVATION_TTL_SECONDS = env.int("ATRIUM_BUDGET_RESERVATION_TTL_SECONDS", 900, min=1)
# Webhook targets (an API key's response_url) must be https to a public address. Development may
# allow http to loopback (local.py and test.py turn it on; production leaves it off).
WEBHOOKS_ALLOW_LOOPBACK = env.bool("ATRIUM_WEBHOOKS_ALLOW_LOOPBACK", False)

# --- the OpenAPI schema (drf-spectacular) -------------------------------------------------------

SPECTACULAR_SETTINGS = {
    "TITLE": "Atrium API",
    "DESCRIPTION": (
        "The JSON APIs of a workspace: API keys, credential quick-setup, the message gateway and "
        'the data-rights endpoint. Errors have the body {"error": {"code", "message"}}.'
    ),
    "VERSION": ATRIUM_VERSION,
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "BudgetPeriodEnum": "apps.apikeys.models.BudgetPeriod.values",
        "ApiKeyStatusEnum": ["active", "revoked"],
        # The message gateway's (apps.gateway).
        "ConversationStatusEnum": "apps.gateway.api.serializers.CONVERSATION_STATUSES",
        "WebhookStatusEnum": "apps.gateway.api.serializers.WEBHOOK_STATUSES",
        "AcceptedStatusEnum": ["accepted"],
    },
    # Endpoints that are not DRF views (lean ASGI doors) describe themselves here:
    # "APPEND_PATHS": {"/api/agent": {...}}; see docs/api-keys.md, "The OpenAPI schema".
    "APPEND_PATHS": {},
    "APPEND_COMPONENTS": {
        "securitySchemes": {
            "dataRequestSecret": {
                "type": "http",
                "scheme": "bearer",
                "description": "The service's shared secret for data-rights requests (SPEC 5.4).",
            }
        }
    },
}
