from collections.abc import Iterator

import pytest

from config.celery import app as celery_app


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    """The worker's tasks (the e-mails accounts sends) run in this process, at once (Django's
    locmem outbox)."""
    previous = celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous
