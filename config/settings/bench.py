"""The benchmarks of bench/: production-like (no debug), on the embedded services."""

from .base import *  # noqa: F403
from .base import env

DEBUG = False
SECRET_KEY = env("DJANGO_SECRET_KEY", "benchmark-key-not-secret")
STORAGES = {
    "default": {"BACKEND": "django_tenants.files.storage.TenantFileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
LOGGING["root"]["level"] = env("ATRIUM_LOG_LEVEL", "WARNING")  # noqa: F405
ATRIUM_ENCRYPTION_KEYS = [env("ATRIUM_ENCRYPTION_KEYS", "YmVuY2htYXJrLWtleS1ub3QtYS1zZWNyZXQtMDAwMDA=")]
