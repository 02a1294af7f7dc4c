"""For tests only: the local mail server of a test process (Dovecot and the SMTP submission
server as bootstrap.py starts them), started once, in a folder of the process's own under .data/
(not the system's temporary folder: pytest keeps that closed to the user Dovecot runs as), and
stopped when the process ends."""

import atexit
import contextlib
import imaplib
import os
import shutil
from collections.abc import Iterator
from email.message import EmailMessage

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


def inbox_of(env: dict[str, str], address: str) -> list[EmailMessage]:
    """The messages the local server holds in the INBOX of `address`, parsed, oldest first."""
    from apps.mail import sync

    host, _, port = env["ATRIUM_MAIL_LOCAL_IMAP"].rpartition(":")
    client = imaplib.IMAP4(host, int(port))
    client.login(address, env["ATRIUM_MAIL_LOCAL_PASSWORD"])
    client.select("INBOX", readonly=True)
    _status, data = client.uid("SEARCH", "ALL")
    found = []
    for uid in (data[0] or b"").split():
        _status, fetched = client.uid("FETCH", uid.decode(), "(BODY.PEEK[])")
        found.append(sync.parse(fetched[0][1]))
    client.logout()
    return found
