"""The test suite (pytest-django creates its own database next to DATABASE_URL's)."""

import os
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

# Parallel test processes (pytest-xdist: "gw0", "gw1"...) each have their own test database
# (pytest-django adds the worker to its name), their own Redis database (queues, caches, channels:
# one process's Celery worker never takes another's tasks) and their own media folder. Chosen
# here, in the process pytest starts, and handed to the servers a test starts through the
# environment (a test that gives a server a Redis or a folder of its own still can).
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker and not os.environ.get("ATRIUM_TEST_WORKER"):
    os.environ["ATRIUM_TEST_WORKER"] = _worker
    _redis = urlsplit(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    os.environ["REDIS_URL"] = urlunsplit(_redis._replace(path=f"/{1 + int(_worker.removeprefix('gw'))}"))
    _data = Path(os.environ.get("ATRIUM_DATA_DIR", Path(__file__).resolve().parents[2] / ".data"))
    os.environ.setdefault("ATRIUM_MEDIA_ROOT", str(_data / f"test-media-{_worker}"))
# Each test process's browsers (apps.browser) in a folder of its own, which it sweeps when it ends
# (conftest.py): a session whose row a test rolled back leaves its Chromium to nobody else.
os.environ.setdefault(
    "ATRIUM_BROWSER_DIR", str(Path(tempfile.gettempdir()) / f"atrium-browser-test-{_worker or 'main'}")
)

from apps.core import env  # noqa: E402

from .base import *  # noqa: E402, F403
from .base import ANYMAIL, CACHES, CHANNEL_LAYERS, DATA_DIR, LOGGING  # noqa: E402

DEBUG = False
SECRET_KEY = "test-secret-key"  # noqa: S105
# Tests create many users; the slow hasher would only measure itself.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# Workspaces are copied when created; the pool's own tests turn it on (apps.tenancy.spares).
ATRIUM_SPARE_SCHEMAS = env.int("ATRIUM_SPARE_SCHEMAS", 0, min=0)
MEDIA_ROOT = env.str("ATRIUM_MEDIA_ROOT", str(DATA_DIR / "test-media"))
STORAGES = {
    "default": {"BACKEND": "django_tenants.files.storage.TenantFileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Redis pub/sub channels belong to the server, not to a database: the worker in the prefix keeps
# one test process from being told (sessions ended, credentials revoked) what another did.
_prefix = "-".join(filter(None, ("atrium-test", os.environ.get("ATRIUM_TEST_WORKER"))))
CACHES["default"]["KEY_PREFIX"] = _prefix
CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = _prefix
LOGGING["root"]["level"] = env.str("ATRIUM_LOG_LEVEL", "WARNING")
# No ceiling on a test process's database connections (tests run servers and threads of their
# own in it); the servers a test starts get the variable when it is set (the soak sets it).
DATABASE_MAX_CONNECTIONS = env.int("ATRIUM_DATABASE_MAX_CONNECTIONS", 0, min=0)
# Tool calls are logged at once, inside the test's transaction (set the variable to try batching).
ATRIUM_AUDIT_FLUSH_SECONDS = env.float("ATRIUM_AUDIT_FLUSH_SECONDS", 0.0, min=0)
# The suite registers many OAuth clients from 127.0.0.1; the rate-limit test starts its own
# server with a small limit (ATRIUM_OAUTH_REGISTRATIONS_PER_HOUR).
OAUTH_REGISTRATIONS_PER_HOUR = env.int("ATRIUM_OAUTH_REGISTRATIONS_PER_HOUR", 100000, min=0)

# A tool's model call meters its key inside the test's transaction (apps.apikeys.apart's tests
# commit and turn this on): the ledger's own connection would not see the test's keys.
ATRIUM_LEDGER_APART = env.bool("ATRIUM_LEDGER_APART", False)
# API keys (tests): webhooks may go to http on loopback; a fixed encryption key that is not secret.
WEBHOOKS_ALLOW_LOOPBACK = env.bool("ATRIUM_WEBHOOKS_ALLOW_LOOPBACK", True)
# The ESP webhooks the tests sign (apps/mail/tests/test_esp_webhooks.py).
ANYMAIL = {
    "WEBHOOK_SECRET": "esp-test:webhook-secret-for-tests",
    "MAILGUN_WEBHOOK_SIGNING_KEY": "mailgun-signing-key-for-tests",
    **ANYMAIL,
}
ATRIUM_ENCRYPTION_KEYS = env.list("ATRIUM_ENCRYPTION_KEYS", ["ZGV2ZWxvcG1lbnQta2V5LW5vdC1hLXNlY3JldC0wMDA="])
# Serve static files from the source folders: a fresh clone has no collectstatic output, and pages
# whose script 404s would not behave as they do in a real deployment.
WHITENOISE_USE_FINDERS = True
# ...and never from STATIC_ROOT: a test that runs `make up` from this checkout collects into it, and
# another worker's middleware scanning that folder meanwhile met files being replaced.
STATIC_ROOT = None  # type: ignore[assignment]

# Links (files, calendars) point at the loopback test server; a small size limit keeps tests cheap.
ATRIUM_SITE_SCHEME = "http"
ATRIUM_FILES_MAX_BYTES = env.int("ATRIUM_FILES_MAX_BYTES", 2 * 1024 * 1024, min=0)

# A typical release's migration added to the contacts app, for a `migrate_workspaces` that a test
# runs in another process (apps/tenancy/tests/test_migrate_workspaces.py).
if env.bool("ATRIUM_TEST_TYPICAL_MIGRATION", False):
    MIGRATION_MODULES = {"contacts": "apps.tenancy.tests.typical_migration"}
