"""The mail tests' own local mail server: Dovecot and the SMTP submission server, as bootstrap.py
starts them for `make run`, in a folder of the test process's own under .data/ (not the system's
temporary folder: pytest keeps that closed to the unprivileged user Dovecot runs as)."""

import os
import shutil
from collections.abc import Iterator

import pytest
from django.test.utils import override_settings

import bootstrap


@pytest.fixture(scope="session")
def mail_server() -> Iterator[dict[str, str]]:
    root = bootstrap.DATA / "test-mail" / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-{os.getpid()}"
    server = bootstrap.MailServer(root)
    env = server.start()
    settings = override_settings(**env)
    settings.enable()
    try:
        yield env
    finally:
        settings.disable()
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
