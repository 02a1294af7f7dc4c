"""Production: every secret and host comes from the environment."""

from django.core.exceptions import ImproperlyConfigured

from apps.core import env

from .base import *  # noqa: F403
from .base import ATRIUM_ENCRYPTION_KEYS, ATRIUM_TRUSTED_PROXIES, LOGGING, SECRET_KEY

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
# The scheme and the client's address come from a trusted proxy's headers, or from the socket
# (apps.core.proxies, ATRIUM_TRUSTED_PROXIES); X-Forwarded-Host reaches Django only from one.
USE_X_FORWARDED_HOST = env.bool("ATRIUM_USE_X_FORWARDED_HOST", False)
if env.bool("ATRIUM_BEHIND_TLS_PROXY", False) and not ATRIUM_TRUSTED_PROXIES:
    # It believed the forwarding headers of any peer. Starting without saying so would take every
    # client for the proxy (one client address to lock out of sign-in) and HTTPS for HTTP.
    raise ImproperlyConfigured(
        "ATRIUM_BEHIND_TLS_PROXY is replaced by ATRIUM_TRUSTED_PROXIES: set it to the address or "
        "network (CIDR) of the TLS proxy in front of the web processes, e.g. 172.30.80.2 or "
        "10.0.0.0/8 (docs/deploy.md, Environment)."
    )
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

# Operators' logs: one JSON object per line, and an access line per request (docs/deploy.md).
LOGGING["handlers"]["console"]["formatter"] = env.str("ATRIUM_LOG_FORMAT", "json")
ATRIUM_ACCESS_LOG = env.bool("ATRIUM_ACCESS_LOG", True)
