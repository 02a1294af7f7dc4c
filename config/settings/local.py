"""Development: what `make run` and `make up` use."""

from apps.core import env

from .base import *  # noqa: F403
from .base import DATA_DIR

DEBUG = env.bool("DJANGO_DEBUG", True)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", "insecure-development-key-do-not-use-in-production")
# E-mails are written as files under .data/mail/, not to the console: the console is the log, and
# no log line may carry an address or a message's personal data (SPEC 10.3).
EMAIL_BACKEND = env.str("EMAIL_BACKEND", "django.core.mail.backends.filebased.EmailBackend")
EMAIL_FILE_PATH = env.str("EMAIL_FILE_PATH", str(DATA_DIR / "mail"))
DATA_TEAM_EMAIL = env.str("DATA_TEAM_EMAIL", "data-team@atrium.invalid")

# API keys (development): webhooks may go to http on loopback; a fixed encryption key that is not secret.
WEBHOOKS_ALLOW_LOOPBACK = env.bool("ATRIUM_WEBHOOKS_ALLOW_LOOPBACK", True)
ATRIUM_ENCRYPTION_KEYS = env.list("ATRIUM_ENCRYPTION_KEYS", ["ZGV2ZWxvcG1lbnQta2V5LW5vdC1hLXNlY3JldC0wMDA="])

# Links made outside a request (file downloads, calendar invitations) point at the development server.
ATRIUM_SITE_SCHEME = env.str("ATRIUM_SITE_SCHEME", "http")
ATRIUM_SITE_PORT = env.str("ATRIUM_SITE_PORT", env.str("ATRIUM_PORT", "8000"))
