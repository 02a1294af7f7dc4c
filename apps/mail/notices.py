"""The messages the service sends for any area: an invitation with its iCalendar part, a file
e-mailed, an invoice with its PDF (apps.mail.api.send).

From the service's address (`DEFAULT_FROM_EMAIL`), through Django's e-mail backend, all the
messages of one call through one connection: this is the mail app serving the whole service, so
it works whether or not a workspace has the Email Inbox area (whose tools are the people's
mailboxes). A backend failure is raised as the backend raised it; the caller's transaction, and
its wording of the failure, decide the rest.

With `sender` (a person) and the Email Inbox area installed, each message goes from that
person's own mailbox instead, through its outbox (sent once, kept in their Sent folder), and the
mail app's errors say what went wrong.
"""

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from email.mime.text import MIMEText

from django.conf import settings
from django.core.mail import EmailMessage, get_connection

from apps.core import workspaces
from apps.core.actors import Actor

logger = logging.getLogger(__name__)
AREA = "emailinbox"


@dataclass(frozen=True)
class Attachment:
    filename: str
    content: bytes
    mime_type: str = "application/octet-stream"
    # An iCalendar part's METHOD (RFC 6047: REQUEST, CANCEL), also a parameter of its Content-Type.
    method: str = ""


@dataclass(frozen=True)
class Notice:
    to: list[str]
    subject: str
    text: str
    # Where replies go (the person the message is from): the service's address takes none.
    reply_to: str = ""
    attachments: tuple[Attachment, ...] = ()


def send(notices: Sequence[Notice], *, sender: Actor | None = None) -> None:
    """Sends each notice (see the module): from the service's address, or from `sender`'s own
    mailbox where the Email Inbox area is installed."""
    if sender is not None and workspaces.has_area(AREA):
        for notice in notices:
            _from_mailbox(sender, notice)
        return
    with get_connection() as connection:
        connection.send_messages([_message(notice) for notice in notices])
    logger.info("%s message(s) sent from the service's address", len(notices))


def _message(notice: Notice) -> EmailMessage:
    message = EmailMessage(
        subject=notice.subject,
        body=notice.text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=notice.to,
        reply_to=[notice.reply_to] if notice.reply_to else None,
    )
    for attachment in notice.attachments:
        if attachment.method:
            # A text part built by hand: the method must be a parameter of its own Content-Type,
            # which is what calendar programs read to offer their answer buttons.
            part = MIMEText(attachment.content.decode(), attachment.mime_type.removeprefix("text/"), "utf-8")
            part.set_param("method", attachment.method)
            part.add_header("Content-Disposition", "attachment", filename=attachment.filename)
            message.attach(part)
        else:
            message.attach(attachment.filename, attachment.content, attachment.mime_type)
    return message


def _from_mailbox(actor: Actor, notice: Notice) -> None:
    from apps.mail import selectors, services

    mailbox = selectors.default_mailbox(actor=actor)
    services.file_send(
        actor=actor,
        mailbox=mailbox,
        to=notice.to,
        subject=notice.subject,
        text=notice.text,
        files=[(item.filename, item.mime_type, item.content) for item in notice.attachments],
    )
