"""The test suite (pytest-django creates its own database next to DATABASE_URL's)."""

from apps.core import env

from .base import *  # noqa: F403
from .base import CACHES, CHANNEL_LAYERS, DATA_DIR, LOGGING

DEBUG = False
SECRET_KEY = "test-secret-key"  # noqa: S105
# Tests create many users; the slow hasher would only measure itself.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
MEDIA_ROOT = env.str("ATRIUM_MEDIA_ROOT", str(DATA_DIR / "test-media"))
STORAGES = {
    "default": {"BACKEND": "django_tenants.files.storage.TenantFileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
CACHES["default"]["KEY_PREFIX"] = "atrium-test"
CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = "atrium-test"
LOGGING["root"]["level"] = env.str("ATRIUM_LOG_LEVEL", "WARNING")
# Tool calls are logged at once, inside the test's transaction (set the variable to try batching).
ATRIUM_AUDIT_FLUSH_SECONDS = env.float("ATRIUM_AUDIT_FLUSH_SECONDS", 0.0, min=0)
# The suite registers many OAuth clients from 127.0.0.1; the rate-limit test starts its own
# server with a small limit (ATRIUM_OAUTH_REGISTRATIONS_PER_HOUR).
OAUTH_REGISTRATIONS_PER_HOUR = env.int("ATRIUM_OAUTH_REGISTRATIONS_PER_HOUR", 100000, min=0)

# API keys (tests): webhooks may go to http on loopback; a fixed encryption key that is not secret.
WEBHOOKS_ALLOW_LOOPBACK = env.bool("ATRIUM_WEBHOOKS_ALLOW_LOOPBACK", True)
ATRIUM_ENCRYPTION_KEYS = env.list("ATRIUM_ENCRYPTION_KEYS", ["ZGV2ZWxvcG1lbnQta2V5LW5vdC1hLXNlY3JldC0wMDA="])
# Serve static files from the source folders: a fresh clone has no collectstatic output, and pages
# whose script 404s would not behave as they do in a real deployment.
WHITENOISE_USE_FINDERS = True

# Links (files, calendars) point at the loopback test server; a small size limit keeps tests cheap.
ATRIUM_SITE_SCHEME = "http"
ATRIUM_FILES_MAX_BYTES = env.int("ATRIUM_FILES_MAX_BYTES", 2 * 1024 * 1024, min=0)
