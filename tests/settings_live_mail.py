"""Settings of the server processes that tests/test_datarights_live.py starts: the test settings,
with e-mail over SMTP to the test's own server on loopback, and a Celery queue of the test's own
(a worker of `make up` sharing the Redis must not take its tasks)."""

from apps.core import env
from config.settings.test import *  # noqa: F403

EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = "127.0.0.1"
EMAIL_PORT = env.int("ATRIUM_TEST_SMTP_PORT", 25, min=0, max=65535)
CELERY_TASK_DEFAULT_QUEUE = env.str("ATRIUM_TEST_CELERY_QUEUE", "celery")
