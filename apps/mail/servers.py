"""Connections to a mailbox's servers: IMAP (stdlib imaplib, IMAP4rev1) for reading and SMTP
submission (stdlib smtplib, RFC 6409) for sending, over TLS, STARTTLS or (loopback) plain TCP.
A mailbox on the local server takes its address and password from the settings bootstrap.py
sets; another has its own host, port, user name and encrypted password.

Failures become the mail errors: a server that does not answer is ServerDown, a refused login
LoginRefused; the server's own words are not passed on (they can quote addresses).
"""

import contextlib
import imaplib
import smtplib
import socket
import ssl
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings

from apps.core import encryption
from apps.mail import errors
from apps.mail.models import Mailbox


@dataclass(frozen=True)
class Endpoint:
    host: str
    port: int
    security: str
    username: str
    password: str


def _local(value: str, mailbox: Mailbox) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise errors.NotConnected(mailbox=mailbox.pk)
    return host, int(port)


def endpoint(mailbox: Mailbox, which: str) -> Endpoint:
    """Where and how mailbox's `which` ("imap" or "smtp") server is reached."""
    if mailbox.server == Mailbox.Server.LOCAL:
        host, port = _local(getattr(settings, f"ATRIUM_MAIL_LOCAL_{which.upper()}", ""), mailbox)
        return Endpoint(host, port, "none", mailbox.address, settings.ATRIUM_MAIL_LOCAL_PASSWORD)
    try:
        password = encryption.decrypt(mailbox.secret) if mailbox.secret else ""
    except encryption.DecryptionFailed as error:
        raise errors.LoginRefused(mailbox=mailbox.pk, server=which.upper()) from error
    return Endpoint(
        host=getattr(mailbox, f"{which}_host"),
        port=getattr(mailbox, f"{which}_port"),
        security=getattr(mailbox, f"{which}_security"),
        username=mailbox.username or mailbox.address,
        password=password,
    )


def _timeout() -> int:
    return int(settings.ATRIUM_MAIL_TIMEOUT_SECONDS)


@contextlib.contextmanager
def imap(mailbox: Mailbox) -> Iterator[imaplib.IMAP4]:
    """A logged-in IMAP connection to the mailbox, logged out afterwards."""
    where = endpoint(mailbox, "imap")
    try:
        if where.security == "tls":
            client: imaplib.IMAP4 = imaplib.IMAP4_SSL(
                where.host, where.port, ssl_context=ssl.create_default_context(), timeout=_timeout()
            )
        else:
            client = imaplib.IMAP4(where.host, where.port, timeout=_timeout())
            if where.security == "starttls":
                client.starttls(ssl.create_default_context())
    except (OSError, imaplib.IMAP4.error) as error:
        raise errors.ServerDown(mailbox=mailbox.pk, server="IMAP") from error
    try:
        try:
            client.login(where.username, where.password)
        except imaplib.IMAP4.error as error:
            raise errors.LoginRefused(mailbox=mailbox.pk, server="IMAP") from error
        except OSError as error:
            raise errors.ServerDown(mailbox=mailbox.pk, server="IMAP") from error
        yield client
    except (OSError, imaplib.IMAP4.abort) as error:
        raise errors.ServerDown(mailbox=mailbox.pk, server="IMAP") from error
    finally:
        with contextlib.suppress(Exception):
            client.logout()


@contextlib.contextmanager
def smtp(mailbox: Mailbox) -> Iterator[smtplib.SMTP]:
    """A logged-in SMTP submission connection, closed afterwards."""
    where = endpoint(mailbox, "smtp")
    try:
        if where.security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                where.host, where.port, timeout=_timeout(), context=ssl.create_default_context()
            )
        else:
            client = smtplib.SMTP(where.host, where.port, timeout=_timeout())
            if where.security == "starttls":
                client.starttls(context=ssl.create_default_context())
    except (OSError, smtplib.SMTPException) as error:
        raise errors.ServerDown(mailbox=mailbox.pk, server="SMTP") from error
    try:
        try:
            client.login(where.username, where.password)
        except smtplib.SMTPAuthenticationError as error:
            raise errors.LoginRefused(mailbox=mailbox.pk, server="SMTP") from error
        except (OSError, smtplib.SMTPException) as error:
            raise errors.ServerDown(mailbox=mailbox.pk, server="SMTP") from error
        yield client
    finally:
        with contextlib.suppress(Exception):
            client.quit()


def is_unreachable(error: BaseException) -> bool:
    return isinstance(error, (socket.timeout, ConnectionError, OSError))
