"""Writing messages and sending them through the outbox.

`compose` builds an RFC 5322 message (stdlib email, policy.default: UTF-8 headers as RFC 6532
allows, IDNA domains): From only an address the mailbox may send as, a new Message-ID and Date,
In-Reply-To and References for a reply, the signature once above any quoted text, a forward
inline or as an attached message/rfc822. `queue` checks the size limit and keeps one outbox row
per message (apps.mail.models.Outgoing); `deliver` claims the row, sends it once by SMTP
submission and stores the sent message in the Sent folder (IMAP APPEND).
"""

import email.message
import imaplib
import logging
import smtplib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import person
from apps.core import outbound
from apps.core.actors import Actor
from apps.core.errors import AppError, EmailNotSent
from apps.mail import addresses, content, errors, servers, sync
from apps.mail.models import Folder, Mailbox, Message, Outgoing
from apps.mail.sync import message_ids, quoted

logger = logging.getLogger(__name__)
SIGNATURE_SEPARATOR = "-- "


@dataclass
class Letter:
    sender: str
    to: list[str]
    cc: list[str] = field(default_factory=list)
    bcc: list[str] = field(default_factory=list)
    subject: str = ""
    text: str = ""
    # An HTML alternative of the text (a marketing campaign's, with its open pixel); empty: none.
    html: str = ""
    signature: str = ""
    reply_to: Message | None = None
    # A reply's threading headers when the message answered is no longer here (a draft's, kept
    # with it): In-Reply-To and References without the quote.
    in_reply_to: str = ""
    references: str = ""
    forward: Message | None = None
    forward_raw: bytes | None = None  # the forwarded message itself, attached as message/rfc822
    files: list[tuple[str, str, bytes]] = field(default_factory=list)  # (name, type, bytes)
    # Further headers (a campaign's List-Unsubscribe and List-Unsubscribe-Post, RFC 8058).
    headers: dict[str, str] = field(default_factory=dict)


def new_message_id(address: str) -> str:
    return make_msgid(domain=address.rpartition("@")[2].encode("idna").decode("ascii") or "localhost")


def with_signature(text: str, signature: str) -> str:
    """The text with the signature once at its end (not again if the text already ends so)."""
    text, signature = text.rstrip(), signature.strip()
    if not signature or text.endswith(signature):
        return text
    return f"{text}\n\n{SIGNATURE_SEPARATOR}\n{signature}"


def quote_of(message: Message) -> str:
    said = message.text.strip() or "(no text)"
    header = f"On {format_datetime(message.date)}, {message.sender} wrote:"
    return header + "\n" + "\n".join(f"> {line}" if line else ">" for line in said.splitlines())


def forwarded_inline(message: Message) -> str:
    lines = [
        "---------- Forwarded message ----------",
        f"From: {message.sender}",
        f"Date: {format_datetime(message.date)}",
        f"Subject: {message.subject}",
        f"To: {', '.join(message.to)}",
    ]
    if message.cc:
        lines.append(f"Cc: {', '.join(message.cc)}")
    return "\n".join(lines) + "\n\n" + message.text.strip()


def threading_of(original: Message) -> tuple[str, str]:
    """In-Reply-To and References of a reply to `original` (RFC 5322 3.6.4): its Message-ID, and
    its References (else its In-Reply-To) followed by its Message-ID."""
    chain = message_ids(original.references) or message_ids(original.in_reply_to)
    chain = [*chain, original.message_id]
    return original.message_id, " ".join(dict.fromkeys(value for value in chain if value))


def compose(mailbox: Mailbox, letter: Letter) -> EmailMessage:
    sender = addresses.one(letter.sender, field="from")
    if not mailbox.may_send_as(sender):
        raise errors.NotAllowedSender(address=sender, mailbox=mailbox.pk)
    message = EmailMessage()
    # One line whatever an older row holds: a line break in a header value is refused (ValueError).
    name = " ".join(mailbox.name.split()) if sender == mailbox.address.lower() else ""
    message["From"] = addresses.header(sender, name)
    if letter.to:
        message["To"] = ", ".join(addresses.header(address) for address in letter.to)
    if letter.cc:
        message["Cc"] = ", ".join(addresses.header(address) for address in letter.cc)
    message["Subject"] = letter.subject
    message["Date"] = format_datetime(timezone.now())
    message["Message-ID"] = new_message_id(sender)
    for name, value in letter.headers.items():
        message[name] = value
    text = with_signature(letter.text, letter.signature)
    in_reply_to, references = letter.in_reply_to, letter.references
    if letter.reply_to is not None:
        in_reply_to, references = threading_of(letter.reply_to)
        text = f"{text}\n\n{quote_of(letter.reply_to)}"
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
    if references:
        message["References"] = references
    if letter.forward is not None and letter.forward_raw is None:
        text = f"{text}\n\n{forwarded_inline(letter.forward)}"
    message.set_content(text.strip() + "\n")
    if letter.html:
        message.add_alternative(letter.html, subtype="html")
    if letter.forward_raw is not None:
        # Attached as a parsed message: its lines are written out again, folded and with one
        # line ending (the server's CRLF copy as bytes would reach SMTP with CR CR LF).
        message.add_attachment(sync.parse(letter.forward_raw))
    for name, mime, data in letter.files:
        maintype, _, subtype = (mime or "application/octet-stream").partition("/")
        if (maintype, subtype) == ("message", "rfc822"):
            # A message stays one (RFC 2046 5.2.1: never base64), as a forward as an attachment is.
            message.add_attachment(sync.parse(data), filename=name or None)
            continue
        message.add_attachment(data, maintype=maintype, subtype=subtype or "octet-stream", filename=name)
    return message


def attachments_of(raw: bytes) -> list[tuple[str, str, bytes]]:
    """The attachments of a message as the server holds it (name, type, bytes): what an inline
    forward carries on, as mail programs forward them."""
    found = []
    for part in sync.parse(raw).iter_attachments():
        mime = part.get_content_type()
        if part.get_content_maintype() == "message":
            inner = part.get_payload()
            first = inner[0] if isinstance(inner, list) and inner else None
            data = first.as_bytes() if isinstance(first, email.message.Message) else b""
            mime = "message/rfc822" if data else mime
        else:
            payload = part.get_payload(decode=True)
            data = payload if isinstance(payload, bytes) else b""
        found.append((content.storable(part.get_filename() or ""), mime, data))
    return found


def recipients_of(letter: Letter) -> list[str]:
    return addresses.many([*letter.to, *letter.cc, *letter.bcc])


def envelope(recipients: list[str]) -> list[str]:
    """The SMTP envelope's recipients: international domains in IDNA form (no server needs
    SMTPUTF8 for them). BadAddress names one that has no such form."""
    found = []
    for recipient in recipients:
        try:
            found.append(addresses.ascii(recipient))
        except UnicodeError as error:
            raise errors.BadAddress(address=recipient, field="to") from error
    return found


def queue(
    *,
    mailbox: Mailbox,
    actor: Actor | None,
    message: EmailMessage,
    recipients: list[str],
    kind: str,
    draft_id: int | None = None,
) -> Outgoing:
    """The outbox row of `message` (committed before anything is sent). MessageTooLarge when its
    encoded size is over ATRIUM_MAIL_MAX_BYTES: then nothing is kept."""
    if not recipients:
        raise errors.BadAddress(address="", field="to")
    recipients = envelope(recipients)
    # CRLF line endings: smtplib sends bytes as they are, and SMTP's lines end in CRLF.
    raw = message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
    limit = int(settings.ATRIUM_MAIL_MAX_BYTES)
    if len(raw) > limit:
        raise errors.MessageTooLarge(size=len(raw), limit=limit)
    sender = addresses.of_header(str(message["From"]))[0]
    with transaction.atomic():
        return Outgoing.objects.create(
            mailbox=mailbox,
            draft_id=draft_id,
            created_by=person(actor),
            kind=kind,
            message_id=str(message["Message-ID"]),
            subject=str(message["Subject"] or ""),
            sender=sender,
            recipients=recipients,
            raw=raw,
        )


def send(
    mailbox: Mailbox,
    letter: Letter,
    *,
    actor: Actor | None,
    kind: str,
    on_queued: Callable[[Outgoing], None] | None = None,
) -> Outgoing:
    """`letter` from `mailbox` at once: composed, kept in the outbox (`on_queued(row)` runs in the
    transaction that keeps it: what a caller records of the message is never apart from it), then
    sent."""
    composed = compose(mailbox, letter)
    with transaction.atomic():
        row = queue(
            mailbox=mailbox, actor=actor, message=composed, recipients=recipients_of(letter), kind=kind
        )
        if on_queued is not None:
            on_queued(row)
    return deliver(row)


def claim(outgoing_id: int) -> Outgoing | None:
    """Marks a row `sending` if it is queued or failed (one process wins); None otherwise."""
    with transaction.atomic():
        row = (
            Outgoing.objects.select_for_update(skip_locked=True)
            .filter(pk=outgoing_id, status__in=[Outgoing.Status.QUEUED, Outgoing.Status.FAILED])
            .first()
        )
        if row is None:
            return None
        row.status, row.attempts = Outgoing.Status.SENDING, row.attempts + 1
        row.save(update_fields=["status", "attempts"])
        return row


def deliver(outgoing: Outgoing) -> Outgoing:
    """Sends an outbox row once (AlreadySent-safe: a row another process claimed, or already
    sent, is returned as it is), then stores it in Sent. A failure marks it failed and raises
    the mail error that names the problem."""
    row = claim(outgoing.pk)
    if row is None:
        outgoing.refresh_from_db()
        return outgoing
    mailbox = row.mailbox
    try:
        # Rows kept before envelopes were written in IDNA form may still name a Unicode domain.
        recipients = envelope(list(row.recipients))
        with servers.smtp(mailbox) as client:
            outbound.reached("SMTP")
            refused = client.sendmail(addresses.ascii(row.sender), recipients, bytes(row.raw))
    except AppError as error:
        _failed(row, str(error.message))
        raise
    except smtplib.SMTPRecipientsRefused as error:
        _failed(row, "every recipient was refused")
        raise EmailNotSent(reason="every recipient was refused") from error
    except smtplib.SMTPResponseException as error:
        reason = f"SMTP {error.smtp_code}"
        if error.smtp_code == 552:
            reason += ": the message is too large for the server"
        _failed(row, reason)
        raise EmailNotSent(reason=reason) from error
    except UnicodeError as error:
        # smtplib writes commands in ASCII: nothing of the message went.
        _failed(row, "an address cannot be written in ASCII")
        raise errors.BadAddress(address=row.sender, field="from") from error
    except (OSError, smtplib.SMTPException) as error:
        _failed(row, "the server stopped answering")
        raise errors.ServerDown(mailbox=mailbox.pk, server="SMTP") from error
    row.status, row.sent_at = Outgoing.Status.SENT, timezone.now()
    row.problem = f"{len(refused)} recipients refused" if refused else ""
    row.save(update_fields=["status", "sent_at", "problem"])
    logger.info("outgoing %s sent from mailbox %s to %s recipients", row.pk, mailbox.pk, len(row.recipients))
    store_in_sent(row)
    return row


def _failed(row: Outgoing, problem: str) -> None:
    Outgoing.objects.filter(pk=row.pk).update(status=Outgoing.Status.FAILED, problem=problem[:300])
    row.status, row.problem = Outgoing.Status.FAILED, problem[:300]
    logger.warning("outgoing %s from mailbox %s not sent", row.pk, row.mailbox_id)


def store_in_sent(row: Outgoing) -> bool:
    """Appends the sent message to the mailbox's Sent folder (the message is sent whatever
    happens here: a failure is logged and left, never a second send)."""
    sent = Folder.objects.filter(mailbox=row.mailbox, role=Folder.Role.SENT).first()
    name = sent.name if sent else "Sent"
    try:
        with servers.imap(row.mailbox) as client:
            answer = client.append(
                quoted(name), "(\\Seen)", imaplib.Time2Internaldate(time.time()), bytes(row.raw)
            )
        status = answer[0]
    except AppError:
        status = "NO"
    if status != "OK":
        logger.warning("outgoing %s: not stored in Sent", row.pk)
        return False
    Outgoing.objects.filter(pk=row.pk).update(stored_in_sent=True)
    row.stored_in_sent = True
    return True


def fetch_raw(message: Message) -> bytes:
    """The message as the server holds it (to forward as an attachment, or to resend)."""
    with servers.imap(message.mailbox) as client:
        status, _data = client.select(quoted(message.folder.name), readonly=True)
        if status == "OK":
            status, data = client.uid("FETCH", str(message.uid), "(BODY.PEEK[])")
            for item in data if status == "OK" else []:
                if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], bytes):
                    return item[1]
    raise errors.MessageGone(message=message.pk)


def stale_sending(minutes: int = 10) -> int:
    """Rows left `sending` by a process that died: never sent again (they may have gone)."""
    cutoff = timezone.now() - timedelta(minutes=minutes)
    return Outgoing.objects.filter(status=Outgoing.Status.SENDING, created_at__lt=cutoff).update(
        status=Outgoing.Status.UNKNOWN, problem="interrupted while sending; it may have been sent"
    )
