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
# A model call made inside a transaction (a tool's) reserves and settles on the ledger's own
# connection, committed at once, so that the key's row lock is not held through the call
# (apps.apikeys.apart). The tests turn it off: their keys are not committed.
ATRIUM_LEDGER_APART = env.bool("ATRIUM_LEDGER_APART", True)
# Every address the service reaches on someone's behalf (webhook targets, stored APIs, calendar
# feeds, outside MCP servers, web pages, social networks) must be https to a public address.
# Development may allow http to loopback (local.py and test.py turn it on; production leaves it off).
WEBHOOKS_ALLOW_LOOPBACK = env.bool("ATRIUM_WEBHOOKS_ALLOW_LOOPBACK", False)

# --- the OpenAPI schema (drf-spectacular) -------------------------------------------------------

SPECTACULAR_SETTINGS = {
    "TITLE": "Atrium API",
    "DESCRIPTION": (
        "Every JSON API of a workspace, at the workspace's own host: the MCP endpoint and its server "
        "card, OAuth and the discovery documents, API keys, credential quick-setup, the message "
        "gateway and its webhook, the data-rights endpoint, and the health probes. Errors of the "
        'workspace\'s APIs have the body {"error": {"code", "message"}} (SPEC 7.1); the OAuth '
        "endpoints answer OAuth's errors, and the MCP endpoint JSON-RPC's where the protocol says so."
    ),
    "VERSION": ATRIUM_VERSION,
    # 3.1: JSON Schema 2020-12 and `webhooks` (the gateway's, apps.gateway.api.schema).
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No validator badge: Swagger UI would fetch it from its authors' server.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    # The page's own fonts: Redoc's defaults name web fonts (Montserrat, Roboto) that would be
    # fetched from the internet; these are the settings pages' (static/css/atrium.css).
    "REDOC_UI_SETTINGS": {
        "theme": {
            "typography": {
                "fontFamily": 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
                "headings": {"fontFamily": 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif'},
                "code": {"fontFamily": "ui-monospace, SFMono-Regular, Menlo, monospace"},
            }
        },
    },
    "ENUM_NAME_OVERRIDES": {
        "BudgetPeriodEnum": "apps.apikeys.models.BudgetPeriod.values",
        "ApiKeyStatusEnum": ["active", "revoked"],
        # The message gateway's (apps.gateway).
        "ConversationStatusEnum": "apps.gateway.api.serializers.CONVERSATION_STATUSES",
        "WebhookStatusEnum": "apps.gateway.api.serializers.WEBHOOK_STATUSES",
        "AcceptedStatusEnum": ["accepted"],
    },
    # Endpoints that are not DRF views describe themselves through these hooks (the MCP endpoint
    # is served before Django; OAuth and discovery are the toolkit's views; the probes are plain
    # views); `servers` is the host the schema was read at. See docs/api-keys.md, "The OpenAPI
    # schema".
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "apps.core.api.schema.add_probe_paths",
        "apps.core.api.schema.add_servers",
        "apps.mcp.api.schema.add_paths",
        "apps.oauth.api.schema.add_paths",
    ],
    "WEBHOOKS": ["apps.gateway.api.schema.conversation_ended"],
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
