"""For tests only: the local mail server of a test process (Dovecot and the SMTP submission
server as bootstrap.py starts them), started once, in a folder of the process's own under .data/
(not the system's temporary folder: pytest keeps that closed to the user Dovecot runs as), and
stopped when the process ends."""

import atexit
import contextlib
import imaplib
import os
import shutil
import uuid
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


# --- delivery reports as mail servers and mailbox providers write them (apps.mail.reports) ----------


def dsn(to: str, recipient: str, *, status: str, original: str, action: str = "failed") -> bytes:
    """A delivery status notification as Postfix writes one, quoting the original's headers."""
    return (
        f"From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\n"
        f"To: {to}\r\nSubject: Undelivered Mail Returned to Sender\r\n"
        f"Message-ID: <dsn-{uuid.uuid4().hex[:12]}@mx.example.org>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"\r\n\r\n'
        "--b1\r\nContent-Type: text/plain\r\n\r\nI'm sorry to have to inform you that your message "
        "could not be delivered.\r\n\r\n"
        "--b1\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\n"
        f"Final-Recipient: rfc822; {recipient.upper()}\r\nOriginal-Recipient: rfc822;{recipient}\r\n"
        f"Action: {action}\r\nStatus: {status}\r\nDiagnostic-Code: smtp; 550 {status} no such user\r\n\r\n"
        f"--b1\r\nContent-Type: text/rfc822-headers\r\n\r\n{original}\r\n--b1--\r\n"
    ).encode()


def complaint(to: str, original: EmailMessage, *, recipient: str = "") -> bytes:
    """An abuse report (ARF) as a mailbox provider's feedback loop sends one, with the message."""
    rcpt = f"Original-Rcpt-To: {recipient}\r\n" if recipient else ""
    return (
        (
            f"From: feedback@isp.example.net\r\nTo: {to}\r\nSubject: Abuse report\r\n"
            f"Message-ID: <arf-{uuid.uuid4().hex[:12]}@isp.example.net>\r\nMIME-Version: 1.0\r\n"
            'Content-Type: multipart/report; report-type=feedback-report; boundary="b2"\r\n\r\n'
            "--b2\r\nContent-Type: text/plain\r\n\r\nThis is an abuse report.\r\n\r\n"
            "--b2\r\nContent-Type: message/feedback-report\r\n\r\nFeedback-Type: abuse\r\n"
            f"User-Agent: ExampleFBL/1.0\r\nVersion: 1\r\n{rcpt}\r\n"
            "--b2\r\nContent-Type: message/rfc822\r\n\r\n"
        ).encode()
        + original.as_bytes()
        + b"\r\n--b2--\r\n"
    )
