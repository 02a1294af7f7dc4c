"""The test suite (pytest-django creates its own database next to DATABASE_URL's)."""

from .base import *  # noqa: F403
from .base import CACHES, CHANNEL_LAYERS, DATA_DIR, env

DEBUG = False
SECRET_KEY = "test-secret-key"  # noqa: S105
# Tests create many users; the slow hasher would only measure itself.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
MEDIA_ROOT = env("ATRIUM_MEDIA_ROOT", str(DATA_DIR / "test-media"))
STORAGES = {
    "default": {"BACKEND": "django_tenants.files.storage.TenantFileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
CACHES["default"]["KEY_PREFIX"] = "atrium-test"
CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = "atrium-test"
LOGGING["root"]["level"] = env("ATRIUM_LOG_LEVEL", "WARNING")  # noqa: F405
# Tool calls are logged at once, inside the test's transaction (set the variable to try batching).
ATRIUM_AUDIT_FLUSH_SECONDS = float(env("ATRIUM_AUDIT_FLUSH_SECONDS", "0"))
