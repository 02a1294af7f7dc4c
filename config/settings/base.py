"""Settings every environment shares. Environments differ only through environment variables."""

import json
import os
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from corsheaders.defaults import default_headers as cors_default_headers
from django.utils.translation import gettext_lazy as _
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parents[2]


def env(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    return default if value is None else [item.strip() for item in value.split(",") if item.strip()]


DATA_DIR = Path(env("ATRIUM_DATA_DIR", str(BASE_DIR / ".data")))
ATRIUM_VERSION = "0.1.0"

SECRET_KEY = env("DJANGO_SECRET_KEY")
DEBUG = env_bool("DJANGO_DEBUG", False)
# Any host may reach the router; the workspace domain table decides what answers (unknown: 404).
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["*"])

# --- applications -------------------------------------------------------------------------------

# The public schema: workspaces, their domains, service-level records, operators' admin.
SHARED_APPS = [
    "django_tenants",
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.admin",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "corsheaders",
    "apps.core",
    "apps.tenancy",
    "apps.accounts",
    "apps.datarights",
]
# Each workspace schema. Apps listed in both get tables in both (users exist on both sides:
# operators in public, workspace people in each workspace). django.contrib.admin is here too so
# that deleting a workspace user never reaches the public admin log through the search path.
TENANT_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.admin",
    "apps.accounts",
    "apps.catalogue",
    "apps.contacts",
    "apps.files",
    "apps.documents",
    "apps.mcp",
    "apps.calendars",
    "apps.departments",
    "apps.groupaccounts",
    "oauth2_provider",
    "apps.oauth",
    "apps.apikeys",
    "apps.gateway",
    "apps.notifications",
    "apps.tasks",
]
INSTALLED_APPS = SHARED_APPS + [app for app in TENANT_APPS if app not in SHARED_APPS]

TENANT_MODEL = "tenancy.Workspace"
TENANT_DOMAIN_MODEL = "tenancy.Domain"
# New workspaces are cloned from this migrated schema instead of running every migration.
TENANT_BASE_SCHEMA = "workspace_template"
TENANT_CREATION_FAKES_MIGRATIONS = True
# `SET search_path` once per connection and schema, not before every query (django-tenants
# forgets it on set_tenant, close, rollback and savepoint rollback, where PostgreSQL may undo it).
# Measured on the MCP endpoint (bench/RESULTS.md): it halves the round trips of a tool call.
TENANT_LIMIT_SET_CALLS = True
PUBLIC_SCHEMA_URLCONF = "config.urls_public"
ROOT_URLCONF = "config.urls_tenant"
# Hosts of the public site (operators' admin); `migrate_workspaces` keeps them in the domain table.
ATRIUM_PUBLIC_DOMAINS = env_list("ATRIUM_PUBLIC_DOMAINS", ["admin.localhost"])

MIDDLEWARE = [
    "apps.tenancy.middleware.WorkspaceMiddleware",
    "apps.core.observability.RequestRouteMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "apps.core.context_processors.atrium",
            ],
        },
    },
]

ASGI_APPLICATION = "config.asgi.application"

# --- data ---------------------------------------------------------------------------------------

DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL", "postgres://localhost/atrium"),
        engine="django_tenants.postgresql_backend",
        conn_max_age=int(env("DATABASE_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
# A database host that drops packets must not hold a request or a worker forever at connect time
# (a URL's own ?connect_timeout= wins).
DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
    "connect_timeout", int(env("DATABASE_CONNECT_TIMEOUT", "5"))
)
# The hottest reads (apps.core.prepared) run bound on the server; psycopg prepares such a statement
# after this many runs on a connection, and PostgreSQL stops parsing it on every call. Django's own
# queries bind on the client and are never prepared. Empty: never prepare (behind a connection
# pooler in transaction mode that does not track prepared statements).
_prepare_threshold = env("DATABASE_PREPARE_THRESHOLD", "5")
DATABASES["default"]["OPTIONS"].setdefault(
    "prepare_threshold", int(_prepare_threshold) if _prepare_threshold else None
)
DATABASE_ROUTERS = ["django_tenants.routers.TenantSyncRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env("REDIS_URL", "redis://127.0.0.1:6379/0")
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "atrium",
        # Keys carry the schema name: one workspace never reads another's cache entries.
        "KEY_FUNCTION": "django_tenants.cache.make_key",
    }
}
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL], "prefix": "atrium"},
    }
}

# Uploaded files: each workspace under its own prefix of MEDIA_ROOT.
MEDIA_ROOT = env("ATRIUM_MEDIA_ROOT", str(DATA_DIR / "media"))
MEDIA_URL = "/media/"
MULTITENANT_RELATIVE_MEDIA_ROOT = "workspaces/%s"
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django_tenants.files.storage.TenantFileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# --- people -------------------------------------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "accounts:sign-in"
LOGIN_REDIRECT_URL = "settings:home"
LOGOUT_REDIRECT_URL = "accounts:sign-in"
SESSION_COOKIE_NAME = "atrium_session"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_NAME = "atrium_csrf"
CSRF_FAILURE_VIEW = "apps.core.views.csrf_failure"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

# Personal access tokens (SPEC 5.2): fixed prefix, shown once, stored as a hash, 90 days.
ACCESS_TOKEN_PREFIX = "atp"  # noqa: S105  (a prefix, not a secret)
ACCESS_TOKEN_LIFETIME_DAYS = 90
ATRIUM_DEMO_PASSWORD = env("ATRIUM_DEMO_PASSWORD", "atrium-demo")

# --- APIs ---------------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.accounts.authentication.AccessTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "apps.core.api.exceptions.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

# --- MCP endpoint (apps.mcp) --------------------------------------------------------------------

# Browser origins allowed besides the workspace's own hosts (DNS-rebinding protection); requests
# without an Origin header (non-browser clients) always pass.
MCP_ALLOWED_ORIGINS = env_list("ATRIUM_MCP_ALLOWED_ORIGINS", [])
# A session unused this long is over (404; the client initializes again).
MCP_SESSION_IDLE_SECONDS = int(env("ATRIUM_MCP_SESSION_IDLE_SECONDS", str(24 * 3600)))
# A live session is kept this long in each web process (ending it is seen at once everywhere:
# apps.mcp.sessions).
MCP_SESSION_CACHE_SECONDS = float(env("ATRIUM_MCP_SESSION_CACHE_SECONDS", "10"))
# A good credential is trusted this long in each web process before it is checked again.
MCP_CREDENTIAL_CACHE_SECONDS = float(env("ATRIUM_MCP_CREDENTIAL_CACHE_SECONDS", "5"))
MCP_KEEPALIVE_SECONDS = float(env("ATRIUM_MCP_KEEPALIVE_SECONDS", "15"))
# Server-to-client messages kept per session for Last-Event-ID, and for how long.
MCP_EVENT_BUFFER = 100
MCP_EVENT_BUFFER_SECONDS = 3600
MCP_TOOLS_PAGE_SIZE = int(env("ATRIUM_MCP_TOOLS_PAGE_SIZE", "100"))
MCP_ELICITATION_TIMEOUT_SECONDS = 600
MCP_MAX_BODY_BYTES = 4 * 1024 * 1024
# Threads per web process running the synchronous part of MCP requests (ORM, tools), in two pools
# (apps/mcp/consumers.py). Quick: every request but the calls below; few, because more threads
# only contend for the interpreter (bench/RESULTS.md). Waiting: calls of tools that may wait on
# someone else (the user's confirmation through an elicitation, an outside service); each waiting
# call holds one, and never a quick one, so the answer it waits for always finds a thread.
MCP_QUICK_THREADS = int(env("ATRIUM_MCP_QUICK_THREADS", "2"))
MCP_WORKER_THREADS = int(env("ATRIUM_MCP_WORKER_THREADS", "16"))

# --- background work ----------------------------------------------------------------------------

CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_IGNORE_RESULT = True
# A task is acknowledged once it has run, and handed back if its worker dies mid-way.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
# Two queues. The gateway's agent turns (`run_conversation`, routed by name) wait in `agent`, so a
# backlog of turns never delays what everything else sends to the default queue `celery`
# (webhook deliveries, the sweepers, clean-ups, a task's agent step finishing). A worker consumes
# every queue below unless told otherwise (`--queues`, ATRIUM_WORKER_QUEUES in deploy/). Kombu's
# Redis transport polls a worker's queues with one BRPOP over all of them and moves the queue it
# just took a message from to the back of the list (`queue_order_strategy` "round_robin", its
# default since kombu#168, set here so that nobody changes it unknowingly; "priority" would starve
# the later queues): with a long `agent` queue, the next free pool process takes from `celery`
# first. `celery` keeps Celery's default name, so tasks queued before the split are still consumed.
# docs/deploy.md, "Queues".
CELERY_TASK_DEFAULT_QUEUE = "celery"
GATEWAY_AGENT_QUEUE = "agent"
CELERY_TASK_QUEUES = (Queue(CELERY_TASK_DEFAULT_QUEUE), Queue(GATEWAY_AGENT_QUEUE))
CELERY_TASK_ROUTES = {"apps.gateway.tasks.run_conversation": {"queue": GATEWAY_AGENT_QUEUE}}
CELERY_BROKER_TRANSPORT_OPTIONS = {"queue_order_strategy": "round_robin"}
CELERY_BEAT_SCHEDULE = {
    "purge-expired-access-tokens": {
        "task": "apps.accounts.tasks.purge_expired_access_tokens",
        "schedule": crontab(minute=17, hour=3),
    },
    "purge-mcp-sessions": {
        "task": "apps.mcp.tasks.purge_mcp_sessions",
        "schedule": crontab(minute=37, hour=3),
    },
    "retry-data-team-notifications": {
        "task": "apps.datarights.tasks.retry_data_team_notifications",
        "schedule": crontab(minute="*/5"),
    },
}

# --- data-rights requests (apps.datarights; SPEC 1 rule 5, 2.6, 4.6, 5.4, 10) -------------------

# The bearer secret of POST /api/data-request. Empty: every request is refused.
DATA_REQUEST_SHARED_SECRET = env("DATA_REQUEST_SHARED_SECRET")
# Where the data team is notified. Never shown to a caller, never logged.
DATA_TEAM_EMAIL = env("DATA_TEAM_EMAIL")
# The public site's admin, for the link in the data team's e-mail.
DATA_REQUEST_ADMIN_URL = env(
    "DATA_REQUEST_ADMIN_URL", f"http://{ATRIUM_PUBLIC_DOMAINS[0]}:{env('ATRIUM_PORT', '8000')}/admin/"
)
# Requests per client address per window (every attempt counts, a wrong secret too).
DATA_REQUEST_RATE_LIMIT = int(env("DATA_REQUEST_RATE_LIMIT", "20"))
DATA_REQUEST_RATE_WINDOW_SECONDS = int(env("DATA_REQUEST_RATE_WINDOW_SECONDS", "60"))
# The same request sent again within this many seconds is recognised, not stored or notified again.
DATA_REQUEST_DUPLICATE_WINDOW_SECONDS = int(env("DATA_REQUEST_DUPLICATE_WINDOW_SECONDS", "600"))
DATA_REQUEST_DETAILS_MAX_LENGTH = 5000
DATA_REQUEST_MAX_BODY_BYTES = 64 * 1024
DATA_REQUEST_SMTP_TIMEOUT = 30

# --- tool catalogue (apps.catalogue) and contacts (apps.contacts) ---------------------------------

# Extra tool modules imported at start-up. Only the test settings list any (fixture tools, such as
# those the MCP conformance suite calls); production never loads tools from outside the apps.
ATRIUM_EXTRA_TOOL_MODULES: list[str] = []
# The tool-call log is written in batches, off the request path: every this many seconds, or
# sooner once ATRIUM_AUDIT_BATCH_SIZE calls wait. 0 writes each call at once (tests).
ATRIUM_AUDIT_FLUSH_SECONDS = float(env("ATRIUM_AUDIT_FLUSH_SECONDS", "1.0"))
ATRIUM_AUDIT_BATCH_SIZE = int(env("ATRIUM_AUDIT_BATCH_SIZE", "500"))
ATRIUM_AUDIT_RETENTION_DAYS = int(env("ATRIUM_AUDIT_RETENTION_DAYS", "180"))
# How long a confirmation token of a GATED / HIGH RISK / DESTRUCTIVE tool stays valid.
ATRIUM_CONFIRMATION_TTL_SECONDS = int(env("ATRIUM_CONFIRMATION_TTL_SECONDS", "600"))
# The credit bureau behind getContactCreditCheck (docs/catalogue.md); unset: the tool says so.
ATRIUM_CREDIT_BUREAU_URL = env("ATRIUM_CREDIT_BUREAU_URL")
ATRIUM_CREDIT_BUREAU_KEY = env("ATRIUM_CREDIT_BUREAU_KEY")
ATRIUM_CREDIT_BUREAU_TIMEOUT = float(env("ATRIUM_CREDIT_BUREAU_TIMEOUT", "10"))
CELERY_BEAT_SCHEDULE["purge-old-tool-calls"] = {
    "task": "apps.catalogue.tasks.purge_old_tool_calls",
    "schedule": crontab(minute=41, hour=3),
}

# --- tasks (apps.tasks) and notifications (apps.notifications) -----------------------------------

# Scheduled tasks are rows with a due time (`next_run_at`); this sweeper runs the due ones of every
# workspace each minute (so a rule may fire at most every 15 minutes: apps.tasks.schedules).
CELERY_BEAT_SCHEDULE["run-due-scheduled-tasks"] = {
    "task": "apps.tasks.tasks.run_due_scheduled_tasks",
    "schedule": crontab(minute="*"),
}
# Agent steps whose conversation ended without the end reaching the task (a broker that did not
# answer) are finished by this sweeper (apps.tasks.agents).
CELERY_BEAT_SCHEDULE["finish-ended-agent-steps"] = {
    "task": "apps.tasks.tasks.finish_ended_agent_steps",
    "schedule": crontab(minute="*"),
}

# --- files (apps.files) and documents (apps.documents); docs/files.md ---------------------------

# The STORAGES entry that holds the files' bytes. "default" is django-tenants' per-workspace
# prefix of MEDIA_ROOT; docs/files.md shows an S3-compatible entry that keeps the prefix.
ATRIUM_FILES_STORAGE = env("ATRIUM_FILES_STORAGE", "default")
# The largest file accepted, wherever bytes arrive (tools, other areas, exports).
ATRIUM_FILES_MAX_BYTES = int(env("ATRIUM_FILES_MAX_BYTES", str(25 * 1024 * 1024)))
# downloadFileEntity gives files up to this size inline (base64); larger ones only as a link.
ATRIUM_FILES_INLINE_MAX_BYTES = int(env("ATRIUM_FILES_INLINE_MAX_BYTES", str(256 * 1024)))
# How long a download link of downloadFileEntity works.
ATRIUM_FILES_DOWNLOAD_TTL_SECONDS = int(env("ATRIUM_FILES_DOWNLOAD_TTL_SECONDS", "600"))
# The largest file emailFileAsAttachment sends.
ATRIUM_FILES_EMAIL_MAX_BYTES = int(env("ATRIUM_FILES_EMAIL_MAX_BYTES", str(10 * 1024 * 1024)))
# Links made outside a request (download links) use the workspace's primary domain with this
# scheme and port (empty: the scheme's default).
ATRIUM_SITE_SCHEME = env("ATRIUM_SITE_SCHEME", "https")
ATRIUM_SITE_PORT = env("ATRIUM_SITE_PORT", "")
# The longest document body accepted (characters of sanitised HTML).
ATRIUM_DOCUMENTS_MAX_CHARS = int(env("ATRIUM_DOCUMENTS_MAX_CHARS", "1000000"))

# --- calendars, departments, group accounts (apps.calendars, ...); docs/calendars.md -------------

# How long the answer links in a calendar invitation work (default: 90 days).
ATRIUM_CALENDAR_RSVP_TTL_SECONDS = int(env("ATRIUM_CALENDAR_RSVP_TTL_SECONDS", str(90 * 24 * 3600)))
# (Links in e-mails use ATRIUM_SITE_SCHEME and ATRIUM_SITE_PORT, in the files block above.)

# --- OAuth 2.1 authorization server for MCP (apps.oauth, on django-oauth-toolkit) -------------

# Redirect URIs a client may register: https anywhere, http on loopback only (127.0.0.1, [::1],
# localhost; any port), and these custom schemes of desktop and editor clients.
OAUTH_REDIRECT_URI_SCHEMES = env_list(
    "ATRIUM_OAUTH_REDIRECT_SCHEMES", ["claude", "cursor", "vscode", "vscode-insiders", "windsurf", "zed"]
)
# Dynamic client registration is open, but each client address may register this many per hour.
OAUTH_REGISTRATIONS_PER_HOUR = int(env("ATRIUM_OAUTH_REGISTRATIONS_PER_HOUR", "20"))
# Clients that registered but never obtained a token are removed after this many hours.
OAUTH_UNUSED_CLIENT_HOURS = int(env("ATRIUM_OAUTH_UNUSED_CLIENT_HOURS", "24"))
# The toolkit's own client model (named so migrations can refer to it).
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
OAUTH2_PROVIDER = {
    "SCOPES": {
        "mcp": _("Use every tool your role allows: read, create, change and delete data"),
        "mcp:read": _("Read your workspace's data (read-only tools)"),
        "mcp:write": _("Use every tool your role allows, including those that change data"),
        "offline_access": _("Stay connected while you are away, until you disconnect it"),
    },
    # No `scope` on the authorization request: everything the role allows, no refresh token.
    "DEFAULT_SCOPES": ["mcp"],
    # Only authorization_code (PKCE S256) and refresh_token; tokens bound to {base_url}/api/mcp.
    "OAUTH2_SERVER_CLASS": "apps.oauth.server.Server",
    "OAUTH2_VALIDATOR_CLASS": "apps.oauth.validators.Validator",
    "OAUTH2_BACKEND_CLASS": "apps.oauth.server.OAuthLibCore",
    "PKCE_REQUIRED": True,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    # A refresh token dies this long after its last access token expired (it slides with use).
    "REFRESH_TOKEN_EXPIRE_SECONDS": 30 * 24 * 3600,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "REQUEST_APPROVAL_PROMPT": "force",
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https", "http", *OAUTH_REDIRECT_URI_SCHEMES],
    "ALLOW_LOCALHOST_LOOPBACK": True,
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "DCR_REGISTRATION_TOKEN_EXPIRE_SECONDS": 90 * 24 * 3600,
    # RFC 8414 metadata says only what is true.
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_basic", "client_secret_post"],
    # RFC 9700 (security best current practice), enforced. `http` stays an allowed redirect
    # scheme for loopback callbacks (RFC 8252), which the registration rules confine.
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
}
# CORS for browser-based MCP clients: the discovery documents, token, registration, revocation.
CORS_URLS_REGEX = (
    r"^/(\.well-known/oauth-(authorization-server|protected-resource)(/.*)?"
    r"|oauth/(token|revoke|register(/[^/]+)?))$"
)
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_HEADERS = (*cors_default_headers, "mcp-protocol-version")
CELERY_BEAT_SCHEDULE["sweep-oauth"] = {
    "task": "apps.oauth.tasks.sweep_oauth",
    "schedule": crontab(minute=23),
}

# --- API keys, budgets, webhooks' targets, the OpenAPI schema (apps.apikeys) ----------------------

# SPEC 5.2's X-Api-Key and the webhook signing secret: fixed prefixes (GitHub-style, scannable).
API_KEY_PREFIX = "atr"
SIGNING_SECRET_PREFIX = "atw"  # noqa: S105  (a prefix, not a secret)
# When a signing secret is rolled, the old one keeps signing (X-Signature-Previous) this long.
SIGNING_SECRET_ROLL_OVERLAP_HOURS = int(env("ATRIUM_SIGNING_SECRET_ROLL_OVERLAP_HOURS", "24"))
# A budget reservation not settled within this time belongs to a worker that died: the sweeper
# releases it. Longer than any model call.
BUDGET_RESERVATION_TTL_SECONDS = int(env("ATRIUM_BUDGET_RESERVATION_TTL_SECONDS", "900"))
# Webhook targets (an API key's response_url) must be https to a public address. Development may
# allow http to loopback (local.py and test.py turn it on; production leaves it off).
WEBHOOKS_ALLOW_LOOPBACK = env_bool("ATRIUM_WEBHOOKS_ALLOW_LOOPBACK", False)
# Fernet keys (urlsafe base64, 32 bytes) for secrets kept encrypted at rest; the first encrypts,
# all decrypt, so a new key is put first and the old one kept until everything is re-encrypted.
ATRIUM_ENCRYPTION_KEYS = env_list("ATRIUM_ENCRYPTION_KEYS", [])

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
CELERY_BEAT_SCHEDULE["release-stale-budget-reservations"] = {
    "task": "apps.apikeys.tasks.release_stale_reservations",
    "schedule": 60.0,
}

# --- message gateway (apps.gateway; SPEC 1 rule 3, 2.1, 3.1, 3.2, 4.4, 6.1, 8; docs/gateway.md) ---------

# The request (SPEC 4.4, 8): message length in characters, metadata size as compact JSON in bytes.
GATEWAY_MESSAGE_MAX_CHARS = 10_000
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "ConversationStatusEnum": "apps.gateway.api.serializers.CONVERSATION_STATUSES",
        "WebhookStatusEnum": "apps.gateway.api.serializers.WEBHOOK_STATUSES",
        "AcceptedStatusEnum": ["accepted"],
    }
)
GATEWAY_METADATA_MAX_BYTES = int(env("ATRIUM_GATEWAY_METADATA_MAX_BYTES", "16384"))
# Conversations are removed this long after creation (SPEC 3.1: 24 hours).
GATEWAY_CONVERSATION_TTL_HOURS = 24
# The poll's Retry-After while a conversation is unfinished.
GATEWAY_POLL_RETRY_AFTER_SECONDS = int(env("ATRIUM_GATEWAY_POLL_RETRY_AFTER_SECONDS", "1"))
# The service's agent. "" (default): the built-in agent, which needs no model and handles simple
# single-tool requests. "openai": an OpenAI-compatible chat-completions API with tool calling
# (also vLLM, Ollama, llama.cpp's server, LiteLLM, OpenRouter); "anthropic": the Anthropic
# Messages API. URL: the API's base ("https://host/v1" for chat completions, "https://host" for
# Messages). Prices per model, JSON: {"<model>": {"input": USD per million input tokens, "output":
# ..., "cache_read": ..., "cache_write": ...}}; a configured model without a price is refused.
GATEWAY_MODEL_BACKEND = env("ATRIUM_GATEWAY_MODEL_BACKEND", "")
GATEWAY_MODEL_URL = env("ATRIUM_GATEWAY_MODEL_URL", "")
GATEWAY_MODEL_API_KEY = env("ATRIUM_GATEWAY_MODEL_API_KEY", "")
GATEWAY_MODEL_NAME = env("ATRIUM_GATEWAY_MODEL_NAME", "")
GATEWAY_MODEL_PRICES = json.loads(env("ATRIUM_GATEWAY_MODEL_PRICES", "{}") or "{}")
GATEWAY_MODEL_MAX_TOKENS = int(env("ATRIUM_GATEWAY_MODEL_MAX_TOKENS", "1024"))
GATEWAY_MODEL_TIMEOUT_SECONDS = float(env("ATRIUM_GATEWAY_MODEL_TIMEOUT_SECONDS", "60"))
# The time-out bounds each network operation of a model call; the deadline the whole call (connect,
# send, the entire answer, however slowly it comes). 0: the same as the time-out.
GATEWAY_MODEL_DEADLINE_SECONDS = float(env("ATRIUM_GATEWAY_MODEL_DEADLINE_SECONDS", "0") or 0)
# A model call that fails transiently (429, 5xx, time-out) is tried again this many times.
GATEWAY_MODEL_RETRIES = int(env("ATRIUM_GATEWAY_MODEL_RETRIES", "2"))
GATEWAY_MODEL_RETRY_BASE_SECONDS = float(env("ATRIUM_GATEWAY_MODEL_RETRY_BASE_SECONDS", "1"))
# Model calls per conversation at most (the last one is asked to answer without tools).
GATEWAY_AGENT_MAX_MODEL_CALLS = int(env("ATRIUM_GATEWAY_AGENT_MAX_MODEL_CALLS", "8"))
# How many catalogue tools are offered to the model per conversation (besides searchTools and
# describeTool, through which it finds the rest).
GATEWAY_AGENT_OFFERED_TOOLS = int(env("ATRIUM_GATEWAY_AGENT_OFFERED_TOOLS", "12"))
# Runs of one conversation (a worker that died, an unexpected error) before it is failed.
GATEWAY_AGENT_MAX_ATTEMPTS = int(env("ATRIUM_GATEWAY_AGENT_MAX_ATTEMPTS", "3"))
# A worker's lease on a conversation lasts this long past each step's own time limit.
GATEWAY_LEASE_MARGIN_SECONDS = float(env("ATRIUM_GATEWAY_LEASE_MARGIN_SECONDS", "30"))
# An open conversation whose turn is not waiting in the agent's queue is queued again: one sent
# this long before the oldest turn still waiting there (or before now, when none waits) was lost
# (apps.gateway.backlog). A turn waiting behind a backlog, however long, is never queued twice.
GATEWAY_REQUEUE_AFTER_SECONDS = int(env("ATRIUM_GATEWAY_REQUEUE_AFTER_SECONDS", "120"))
# How often conversations whose task could not be sent (the broker was down) are sent again.
GATEWAY_UNSENT_SWEEP_SECONDS = float(env("ATRIUM_GATEWAY_UNSENT_SWEEP_SECONDS", "5"))
# Webhooks: delays in seconds after each failed attempt (Standard Webhooks' schedule, about 27.6
# hours in all), each stretched or shrunk by up to GATEWAY_WEBHOOK_JITTER (a fraction), so retries
# span more than 24 hours. Time limits per attempt, and how much of an answer is kept in the log.
GATEWAY_WEBHOOK_RETRY_SCHEDULE = [
    int(value)
    for value in env("ATRIUM_GATEWAY_WEBHOOK_RETRY_SCHEDULE", "5,300,1800,7200,18000,36000,36000").split(",")
    if value.strip()
]
GATEWAY_WEBHOOK_JITTER = float(env("ATRIUM_GATEWAY_WEBHOOK_JITTER", "0.1"))
GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS = float(env("ATRIUM_GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS", "5"))
GATEWAY_WEBHOOK_TIMEOUT_SECONDS = float(env("ATRIUM_GATEWAY_WEBHOOK_TIMEOUT_SECONDS", "10"))
GATEWAY_WEBHOOK_RESPONSE_EXCERPT = 1000
# Deliveries (with their log and body) are kept this long, then removed.
GATEWAY_WEBHOOK_RETENTION_DAYS = int(env("ATRIUM_GATEWAY_WEBHOOK_RETENTION_DAYS", "7"))
GATEWAY_WEBHOOK_SWEEP_SECONDS = float(env("ATRIUM_GATEWAY_WEBHOOK_SWEEP_SECONDS", "5"))
GATEWAY_STUCK_SWEEP_SECONDS = float(env("ATRIUM_GATEWAY_STUCK_SWEEP_SECONDS", "30"))
CELERY_BEAT_SCHEDULE["gateway-send-due-webhooks"] = {
    "task": "apps.gateway.tasks.send_due_webhooks",
    "schedule": GATEWAY_WEBHOOK_SWEEP_SECONDS,
}
CELERY_BEAT_SCHEDULE["gateway-recover-stuck-conversations"] = {
    "task": "apps.gateway.tasks.recover_stuck_conversations",
    "schedule": GATEWAY_STUCK_SWEEP_SECONDS,
}
CELERY_BEAT_SCHEDULE["gateway-send-unsent-conversations"] = {
    "task": "apps.gateway.tasks.send_unsent_conversations",
    "schedule": GATEWAY_UNSENT_SWEEP_SECONDS,
}
CELERY_BEAT_SCHEDULE["gateway-remove-expired"] = {
    "task": "apps.gateway.tasks.remove_expired",
    "schedule": crontab(minute="*/5"),
}

# --- language, time, e-mail, logs ---------------------------------------------------------------

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English"))]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "Atrium <no-reply@atrium.invalid>")
EMAIL_BACKEND = env("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = env("EMAIL_HOST", "localhost")
EMAIL_PORT = int(env("EMAIL_PORT", "25"))

# --- operators: metrics, request ids, logs (docs/deploy.md) ------------------------------------

# /metrics answers only with `Authorization: Bearer <this>`; unset, it does not exist (404).
ATRIUM_METRICS_TOKEN = env("ATRIUM_METRICS_TOKEN")
# The Celery worker's main process answers /healthz, /readyz and /metrics on this port (0: off).
ATRIUM_WORKER_HTTP_PORT = int(env("ATRIUM_WORKER_HTTP_PORT", "0"))
ATRIUM_WORKER_HTTP_ADDRESS = env("ATRIUM_WORKER_HTTP_ADDRESS", "0.0.0.0")  # noqa: S104  (probes come from outside)
# One log line per HTTP request (method, path without query, route, status, duration, request id).
ATRIUM_ACCESS_LOG = env_bool("ATRIUM_ACCESS_LOG", False)
# "console" (readable) or "json" (one object per line; production's default).
ATRIUM_LOG_FORMAT = env("ATRIUM_LOG_FORMAT", "console")
# migrate_workspaces --executor=multiprocessing: processes, and schemas handed to each at a time.
TENANT_MULTIPROCESSING_MAX_PROCESSES = int(env("ATRIUM_MIGRATION_PROCESSES", "4"))
TENANT_MULTIPROCESSING_CHUNKS = int(env("ATRIUM_MIGRATION_CHUNKS", "8"))
# Celery logs through the LOGGING below (request ids, JSON) instead of its own set-up.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_context": {"()": "apps.core.observability.RequestContextFilter"}},
    "formatters": {
        "console": {"()": "apps.core.observability.ConsoleFormatter"},
        "json": {"()": "apps.core.observability.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": ATRIUM_LOG_FORMAT,
            "filters": ["request_context"],
        }
    },
    "root": {"handlers": ["console"], "level": env("ATRIUM_LOG_LEVEL", "INFO")},
    "loggers": {
        # Django's own console handler (DEBUG only) would print every django.* line a second time.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.db.backends": {"level": "WARNING"},
        "django_tenants": {"level": "WARNING"},
    },
}
