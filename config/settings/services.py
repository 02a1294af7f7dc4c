"""What Atrium keeps things in and sends them through: PostgreSQL, Redis (cache, Channels), file
storage, e-mail."""

from typing import Any

import dj_database_url

from apps.core import env

from .applications import BASE_DIR, DATA_DIR

# --- PostgreSQL ---------------------------------------------------------------------------------

# The ATRIUM_DATABASE_* variables were DATABASE_* before they followed the naming rule
# (apps.core.env); installations may still set the former names, which are read when the new
# ones are unset.
DATABASES = {
    "default": dj_database_url.parse(
        env.str("DATABASE_URL", "postgres://localhost/atrium"),
        engine="apps.core.dbbackend",
        conn_max_age=env.int("ATRIUM_DATABASE_CONN_MAX_AGE", 60, min=0, formerly="DATABASE_CONN_MAX_AGE"),
        conn_health_checks=True,
    )
}
# A database host that drops packets must not hold a request or a worker forever at connect time
# (a URL's own ?connect_timeout= wins).
DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
    "connect_timeout",
    env.int("ATRIUM_DATABASE_CONNECT_TIMEOUT", 5, min=0, formerly="DATABASE_CONNECT_TIMEOUT"),
)
# The hottest reads (apps.core.prepared) run bound on the server; psycopg prepares such a statement
# after this many runs on a connection, and PostgreSQL stops parsing it on every call. Django's own
# queries bind on the client and are never prepared. Empty: never prepare (behind a connection
# pooler in transaction mode that does not track prepared statements).
DATABASES["default"]["OPTIONS"].setdefault(
    "prepare_threshold",
    env.int("ATRIUM_DATABASE_PREPARE_THRESHOLD", 5, min=0, empty=None, formerly="DATABASE_PREPARE_THRESHOLD"),
)
# django-tenants' backend with a ceiling on the connections one process holds at once
# (apps/core/dbbackend): a thread past it waits this long for one to be given back, then the request
# is answered 503 UNAVAILABLE. The deployment's worst case is processes x ceiling (docs/deploy.md,
# Sizing). 0: no ceiling.
DATABASE_MAX_CONNECTIONS = env.int("ATRIUM_DATABASE_MAX_CONNECTIONS", 16, min=0)
DATABASE_CONNECTION_WAIT_SECONDS = env.float("ATRIUM_DATABASE_CONNECTION_WAIT_SECONDS", 10.0, min=0)
# More than one PostgreSQL server (apps.core.servers, docs/deploy.md): the servers besides the
# primary (DATABASES["default"], which holds the public schema of record) that workspace schemas
# may be placed on, as `key=URL` pairs separated by spaces or commas; and optionally how much of
# the workspaces each takes, `key=weight` (1 each by default; the primary's key is "default").
ATRIUM_DATABASE_SERVERS: dict[str, str] = dict(
    pair.split("=", 1)
    for pair in env.str("ATRIUM_DATABASE_SERVERS", "").replace(",", " ").split()
    if "=" in pair
)
ATRIUM_DATABASE_SERVER_WEIGHTS: dict[str, float] = {
    key: float(weight)
    for key, weight in (
        pair.split("=", 1)
        for pair in env.str("ATRIUM_DATABASE_SERVER_WEIGHTS", "").replace(",", " ").split()
        if "=" in pair
    )
}
# pg_dump and psql for moving a workspace between servers (empty: the embedded server's, else PATH).
ATRIUM_DATABASE_CLIENT_BIN = env.str("ATRIUM_DATABASE_CLIENT_BIN", "")
# The public-only models' routing to the primary (apps.core.servers.PublicRouter) is needed only
# with servers besides the primary: with one, no query asks it.
DATABASE_ROUTERS = [
    *(["apps.core.servers.PublicRouter"] if ATRIUM_DATABASE_SERVERS else []),
    "django_tenants.routers.TenantSyncRouter",
]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: the cache and the Channels layer (Celery's broker too: celery.py) ----------------------

REDIS_URL = env.str("REDIS_URL", "redis://127.0.0.1:6379/0")
CACHES: dict[str, dict[str, Any]] = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "atrium",
        # Keys carry the schema name: one workspace never reads another's cache entries.
        "KEY_FUNCTION": "django_tenants.cache.make_key",
    }
}
CHANNEL_LAYERS: dict[str, dict[str, Any]] = {
    "default": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL], "prefix": "atrium"},
    }
}

# --- files --------------------------------------------------------------------------------------

# Uploaded files: each workspace under its own prefix of MEDIA_ROOT.
MEDIA_ROOT = env.str("ATRIUM_MEDIA_ROOT", str(DATA_DIR / "media"))
MEDIA_URL = "/media/"
MULTITENANT_RELATIVE_MEDIA_ROOT = "workspaces/%s"
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django_tenants.files.storage.TenantFileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# --- e-mail -------------------------------------------------------------------------------------

DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", "Atrium <no-reply@atrium.invalid>")
# The service's operators (Platform's createSupportTicket): this address is told of each ticket.
# Empty: tickets are only kept, for the operators to read in the workspace's admin.
PLATFORM_SUPPORT_EMAIL = env.str("ATRIUM_PLATFORM_SUPPORT_EMAIL", "")
# Tickets one person may send the operators per hour, and a workspace per day.
PLATFORM_SUPPORT_TICKETS_PER_HOUR = env.int("ATRIUM_PLATFORM_SUPPORT_TICKETS_PER_HOUR", 5, min=1)
PLATFORM_SUPPORT_TICKETS_PER_DAY = env.int("ATRIUM_PLATFORM_SUPPORT_TICKETS_PER_DAY", 30, min=1)
EMAIL_BACKEND = env.str("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
# Bounces and complaints from an e-mail service provider's signed tracking webhooks (django-anymail),
# when mail goes out through one: anymail's settings as a JSON object, for example
# {"WEBHOOK_SECRET": "user:long-random-password", "MAILGUN_WEBHOOK_SIGNING_KEY": "..."}. Without a
# WEBHOOK_SECRET no webhook is served (apps.mail.esp).
ANYMAIL = env.json("ATRIUM_ANYMAIL", {}, expect=dict, empty={})
EMAIL_HOST = env.str("EMAIL_HOST", "localhost")
EMAIL_PORT = env.int("EMAIL_PORT", 25, min=0, max=65535)
