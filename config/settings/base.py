"""Settings every environment shares. Environments differ only through environment variables."""

import os
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

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
    "daphne",
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.admin",
    "django.contrib.staticfiles",
    "rest_framework",
    "channels",
    "apps.core",
    "apps.tenancy",
    "apps.accounts",
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
]
INSTALLED_APPS = SHARED_APPS + [app for app in TENANT_APPS if app not in SHARED_APPS]

TENANT_MODEL = "tenancy.Workspace"
TENANT_DOMAIN_MODEL = "tenancy.Domain"
# New workspaces are cloned from this migrated schema instead of running every migration.
TENANT_BASE_SCHEMA = "workspace_template"
TENANT_CREATION_FAKES_MIGRATIONS = True
PUBLIC_SCHEMA_URLCONF = "config.urls_public"
ROOT_URLCONF = "config.urls_tenant"
# Hosts of the public site (operators' admin); `migrate_workspaces` keeps them in the domain table.
ATRIUM_PUBLIC_DOMAINS = env_list("ATRIUM_PUBLIC_DOMAINS", ["admin.localhost"])

MIDDLEWARE = [
    "apps.tenancy.middleware.WorkspaceMiddleware",
    "apps.core.observability.RequestRouteMiddleware",
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
}

# --- background work ----------------------------------------------------------------------------

CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_IGNORE_RESULT = True
# A task is acknowledged once it has run, and handed back if its worker dies mid-way.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE = {
    "purge-expired-access-tokens": {
        "task": "apps.accounts.tasks.purge_expired_access_tokens",
        "schedule": crontab(minute=17, hour=3),
    },
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
        "django.db.backends": {"level": "WARNING"},
        "django_tenants": {"level": "WARNING"},
    },
}
