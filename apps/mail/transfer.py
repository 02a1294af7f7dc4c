"""Mail as a spreadsheet (apps.core.transfer): the headers of the messages in the mailboxes a
person owns or is a member of (what getInboxMessages reads: an administrator sees no other
person's mail), each its mailbox, folder, date, sender, recipients, subject, size and number of
attachments, not its text. Export only: a message is the mail server's, copied here by the
mailbox's synchronisation; a row of a table would be a message no server ever held."""

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.core import transfer
from apps.mail.models import Message
from apps.mail.permissions import MailPerm


def _addresses(values: Any) -> str:
    return "; ".join(str(value) for value in values or [])


transfer.exportable(
    transfer.Exportable(
        kind="mailMessage",
        label=_("Mail message"),
        permission=MailPerm.VIEW,
        columns=(
            ("id", lambda message: message.pk),
            ("mailbox", lambda message: message.mailbox.address),
            ("folder", lambda message: message.folder.name),
            ("date", lambda message: message.date),
            ("from", lambda message: message.sender),
            ("fromAddress", lambda message: message.from_address),
            ("to", lambda message: _addresses(message.to)),
            ("cc", lambda message: _addresses(message.cc)),
            ("subject", lambda message: message.subject),
            ("size", lambda message: message.size),
            ("attachments", lambda message: len(message.attachments or [])),
            ("unread", lambda message: message.unread),
            ("messageId", lambda message: message.message_id),
        ),
        rows=lambda actor: (
            Message.objects.restrict(actor, "view")
            .select_related("mailbox", "folder")
            .defer("text", "html", "references")
            .order_by("date", "id")
        ),
        search=("subject", "sender", "from_address"),
    )
)
