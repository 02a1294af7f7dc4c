"""How the Accounting area sends e-mail: one function, `deliver`, through Django's e-mail backend.

Invoices, reminders and statements all go out through it, so that the mail app (the Email Inbox
area, with accounts, threads and unsubscribes) can take sending over in this one place.
"""

import logging
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import EmailMessage, get_connection

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Attachment:
    filename: str
    content: bytes
    mimetype: str = "application/pdf"


def deliver(
    *, to: str, subject: str, body: str, reply_to: str = "", attachments: tuple[Attachment, ...] = ()
) -> None:
    message = EmailMessage(
        subject=subject,
        body=body,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        reply_to=[reply_to] if reply_to else None,
    )
    for attachment in attachments:
        message.attach(attachment.filename, attachment.content, attachment.mimetype)
    with get_connection() as connection:
        connection.send_messages([message])
    logger.info("accounting e-mail sent with %s attachment(s)", len(attachments))
