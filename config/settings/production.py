"""Production: every secret and host comes from the environment."""

from django.core.exceptions import ImproperlyConfigured

from apps.core import env

from .base import *  # noqa: F403
from .base import ATRIUM_ENCRYPTION_KEYS, LOGGING, SECRET_KEY

if not SECRET_KEY:
    raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set in production.")
if not ATRIUM_ENCRYPTION_KEYS:
    raise ImproperlyConfigured(
        "ATRIUM_ENCRYPTION_KEYS must be set in production (comma-separated Fernet keys; "
        "see docs/api-keys.md)."
    )

DEBUG = False
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", 31536000, min=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = False  # workspaces may live on unrelated customer domains
# Trust X-Forwarded-Proto only when a TLS-terminating proxy in front of us sets it.
if env.bool("ATRIUM_BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    USE_X_FORWARDED_HOST = env.bool("ATRIUM_USE_X_FORWARDED_HOST", False)
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

# Operators' logs: one JSON object per line, and an access line per request (docs/deploy.md).
LOGGING["handlers"]["console"]["formatter"] = env.str("ATRIUM_LOG_FORMAT", "json")
ATRIUM_ACCESS_LOG = env.bool("ATRIUM_ACCESS_LOG", True)
