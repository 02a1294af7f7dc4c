"""The benchmarks of bench/: production-like (no debug), on the embedded services."""

from apps.core import env

from .base import *  # noqa: F403
from .base import LOGGING

DEBUG = False
SECRET_KEY = env.str("DJANGO_SECRET_KEY", "benchmark-key-not-secret")
STORAGES = {
    "default": {"BACKEND": "django_tenants.files.storage.TenantFileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
LOGGING["root"]["level"] = env.str("ATRIUM_LOG_LEVEL", "WARNING")
ATRIUM_ENCRYPTION_KEYS = [env.str("ATRIUM_ENCRYPTION_KEYS", "YmVuY2htYXJrLWtleS1ub3QtYS1zZWNyZXQtMDAwMDA=")]
