"""For tests only: the local mail server of a test process (Dovecot and the SMTP submission
server as bootstrap.py starts them), started once, in a folder of the process's own under .data/
(not the system's temporary folder: pytest keeps that closed to the user Dovecot runs as), and
stopped when the process ends."""

import atexit
import contextlib
import os
import shutil
from collections.abc import Iterator

from django.test.utils import override_settings

_env: dict[str, str] = {}


def local_server() -> dict[str, str]:
    """The settings that point the mail app at this process's local mail server."""
    if not _env:
        import bootstrap

        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        root = bootstrap.DATA / "test-mail" / f"{worker}-{os.getpid()}"
        server = bootstrap.MailServer(root)
        _env.update(server.start())

        def stop() -> None:
            server.stop()
            shutil.rmtree(root, ignore_errors=True)

        atexit.register(stop)
    return dict(_env)


@contextlib.contextmanager
def using_local_server() -> Iterator[dict[str, str]]:
    env = local_server()
    with override_settings(**env):
        yield env
