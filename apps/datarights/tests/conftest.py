import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.test import Client

from config.celery import app as celery_app

SECRET = "dr-test-secret-7f3c1b9e0a2d4e6f8a1b3c5d7e9f0a2b"
DATA_TEAM = "privacy-desk@atrium.invalid"


def new_address() -> str:
    """A client address of its own (the IPv6 documentation range): the rate limiter counts per
    address in the real Redis, and tests must not share a window."""
    return "2001:db8::" + ":".join(secrets.token_hex(2) for _ in range(4))


def valid_body(**changes: Any) -> dict[str, Any]:
    body = {
        "kind": "data_rights_request",
        "type": "access",
        "name": "Ada Quillfeather",
        "email": "ada.quillfeather@example.org",
        "account": "acct-93817",
        "details": "Please send me a copy of everything you hold about me.",
        "locale": "en-GB",
        "country": "GB",
        "received_at": "2025-03-14T09:26:53Z",
    }
    body.update(changes)
    return {key: value for key, value in body.items() if value is not ...}


@pytest.fixture
def configured(settings):  # type: ignore[no-untyped-def]
    """The secret and the data team's address are configured; mail goes to locmem's outbox."""
    settings.DATA_REQUEST_SHARED_SECRET = SECRET
    settings.DATA_TEAM_EMAIL = DATA_TEAM
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    return settings


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    """Celery tasks run in this process, at once (the real worker is exercised in tests/).
    Errors are not propagated, so that a task's retries run as they would in a worker."""
    previous = celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = False
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


@pytest.fixture
def post(db, configured, eager_tasks, django_capture_on_commit_callbacks) -> Callable[..., Any]:  # type: ignore[no-untyped-def]
    """POST /api/data-request on Acme's host from a client address of this test's own, running
    what the request schedules after its commit (the notification)."""
    address = new_address()

    def send(
        body: Any = None,
        *,
        secret: str | None = SECRET,
        authorization: str | None = None,
        host: str = "127.0.0.1",
        content_type: str = "application/json",
        raw: bytes | str | None = None,
        remote_addr: str | None = None,
    ) -> Any:
        client = Client(HTTP_HOST=host, REMOTE_ADDR=remote_addr or address)
        headers = {}
        if authorization is not None:
            headers["HTTP_AUTHORIZATION"] = authorization
        elif secret is not None:
            headers["HTTP_AUTHORIZATION"] = f"Bearer {secret}"
        payload = raw if raw is not None else (valid_body() if body is None else body)
        with django_capture_on_commit_callbacks(execute=True):
            return client.post("/api/data-request", payload, content_type=content_type, **headers)

    return send
