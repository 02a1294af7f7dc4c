"""What operators watch: metrics, probes, request ids and logs (docs/deploy.md)."""

from typing import Any

from apps.core import env

# /metrics answers only with `Authorization: Bearer <this>`; unset, it does not exist (404).
ATRIUM_METRICS_TOKEN = env.str("ATRIUM_METRICS_TOKEN")
# The Celery worker's main process answers /healthz, /readyz and /metrics on this port (0: off).
ATRIUM_WORKER_HTTP_PORT = env.int("ATRIUM_WORKER_HTTP_PORT", 0, min=0, max=65535)
ATRIUM_WORKER_HTTP_ADDRESS = env.str("ATRIUM_WORKER_HTTP_ADDRESS", "0.0.0.0")  # noqa: S104  (probes come from outside)
# One log line per HTTP request (method, path without query, route, status, duration, request id).
ATRIUM_ACCESS_LOG = env.bool("ATRIUM_ACCESS_LOG", False)
# "console" (readable) or "json" (one object per line; production's default).
ATRIUM_LOG_FORMAT = env.str("ATRIUM_LOG_FORMAT", "console")

LOGGING: dict[str, Any] = {
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
    "root": {"handlers": ["console"], "level": env.str("ATRIUM_LOG_LEVEL", "INFO")},
    "loggers": {
        # Django's own console handler (DEBUG only) would print every django.* line a second time.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.db.backends": {"level": "WARNING"},
        "django_tenants": {"level": "WARNING"},
        # django-axes announces its configuration at INFO in every process that starts, every
        # manage.py command included (whose stderr is then its own message and nothing else).
        "axes.apps": {"level": "WARNING"},
        # HTTP clients log each request's full URL at INFO (httpx) or DEBUG (httpcore, urllib3): a
        # webhook's query string may hold its receiver's token. Their warnings still come through.
        "httpx": {"level": "WARNING"},
        "httpcore": {"level": "WARNING"},
        "urllib3": {"level": "WARNING"},
    },
}
