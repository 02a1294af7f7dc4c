"""Delivery reports among the mail a mailbox receives: a bounce (an RFC 3464 delivery status
notification: `multipart/report; report-type=delivery-status`, a recipient's `Action: failed` with
its `Status`, 5.x.x permanent and 4.x.x transient) or a complaint (an RFC 5965 abuse report:
`report-type=feedback-report`). Read with the standard library's email package.

The sync (apps.mail.sync) hands each new one, once (and apps.mail.esp each an ESP's webhook
reports), to the handlers other areas registered with
`apps.mail.api.on_delivery_report(handler)`: a handler gets a `DeliveryReport` (who, how, and the
original message's Message-ID and headers, among them its signed List-Unsubscribe link, read back
here) and decides what it means for its own mail (Marketing: the suppression list). A handler that
fails is logged and skipped; the message is stored all the same.

Nothing about a message is logged: the mailbox's id and the report's kind only."""

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage, Message
from email.parser import HeaderParser
from email.policy import default as default_policy
from typing import Any

from django.db import DatabaseError, transaction

from apps.core.errors import AppError
from apps.mail import addresses, content, suppression

logger = logging.getLogger(__name__)

BOUNCE, COMPLAINT = "bounce", "complaint"
STATUS = re.compile(r"\b([245])\.\d{1,3}\.\d{1,3}\b")
MESSAGE_ID = re.compile(r"<[^<>\s]+>")
UNSUBSCRIBE_TOKEN = re.compile(r"/([^/<>\s]+)/?>?\s*$")


@dataclass(frozen=True)
class Failure:
    """One recipient a report is about."""

    address: str  # lower case
    permanent: bool  # a bounce's 5.x.x, and every complaint
    status: str = ""  # "5.1.1"; "" for a complaint


@dataclass(frozen=True)
class DeliveryReport:
    kind: str  # BOUNCE or COMPLAINT
    # The mailbox it was read from; None for an ESP's webhook (apps.mail.esp).
    mailbox_id: int | None
    failures: tuple[Failure, ...]
    # The original message's Message-IDs (its own, and the report's pointers to it).
    message_ids: tuple[str, ...] = ()
    # The original message's headers as the report quotes them (lower-case names).
    headers: dict[str, str] = field(default_factory=dict)
    # {"a": address, "src": what it was sent for} from the original's signed List-Unsubscribe
    # link (apps.mail.suppression), when it carried one of this workspace's.
    unsubscribe: dict[str, str] | None = None
    # Where it came from: "mailbox", or the ESP whose webhook told it ("esp:mailgun").
    source: str = "mailbox"


Handler = Callable[[DeliveryReport], Any]
_handlers: list[Handler] = []


def on_delivery_report(handler: Handler) -> Handler:
    """Registers `handler` (once) for every delivery report a sync reads; usable as a decorator."""
    if handler not in _handlers:
        _handlers.append(handler)
    return handler


def _address(value: str) -> str:
    """An address of a report's field ("rfc822; Name@Example.org"), lower case, or ""."""
    _kind, _, rest = value.rpartition(";")
    found = addresses.of_header(rest.strip().strip("<>"))
    return found[0].lower() if found else ""


def _headers_of(part: Message) -> Message | None:
    """The original message (or its headers) a report carries."""
    kind = part.get_content_type()
    if kind in ("message/rfc822", "message/global"):
        payload = part.get_payload()
        if isinstance(payload, list) and payload and isinstance(payload[0], Message):
            return payload[0]
    if kind in ("text/rfc822-headers", "text/global-headers"):
        text = part.get_payload(decode=True)
        if isinstance(text, bytes):
            return HeaderParser(policy=default_policy).parsestr(text.decode("utf-8", "replace"))
    return None


def _fields(part: Message) -> list[Message]:
    """The blocks of fields of a message/delivery-status or message/feedback-report part."""
    payload = part.get_payload()
    if isinstance(payload, list):
        return [block for block in payload if isinstance(block, Message)]
    if isinstance(payload, str):
        return [HeaderParser(policy=default_policy).parsestr(block) for block in payload.split("\n\n")]
    return []


def read(message: EmailMessage, *, mailbox_id: int) -> DeliveryReport | None:
    """The delivery report `message` is, or None."""
    if message.get_content_type() != "multipart/report":
        return None
    report_type = str(message.get_param("report-type", "") or "").lower()
    if report_type not in ("delivery-status", "feedback-report"):
        return None
    parts = [part for part in message.walk() if part is not message]
    original = next((found for part in parts if (found := _headers_of(part)) is not None), None)
    headers = content.headers(original) if original else {}
    failures: list[Failure] = []
    pointers: list[str] = []
    if report_type == "delivery-status":
        status_part = next((p for p in parts if p.get_content_type() == "message/delivery-status"), None)
        for block in _fields(status_part)[1:] if status_part is not None else []:
            action = content.header(block, "Action").lower()
            code = STATUS.search(content.header(block, "Status"))
            if action not in ("failed", "delayed") or code is None:
                continue  # delivered, relayed, expanded: nothing went wrong
            who = _address(content.header(block, "Final-Recipient")) or _address(
                content.header(block, "Original-Recipient")
            )
            if who:
                failures.append(Failure(who, permanent=code[1] == "5" and action == "failed", status=code[0]))
        kind = BOUNCE
    else:
        feedback = next((p for p in parts if p.get_content_type() == "message/feedback-report"), None)
        blocks = _fields(feedback) if feedback is not None else []
        fields = blocks[0] if blocks else None
        who = ""
        if fields is not None:
            who = _address(content.header(fields, "Original-Rcpt-To"))
            pointers = MESSAGE_ID.findall(content.header(fields, "Original-Message-ID"))
        who = who or (addresses.of_header(headers.get("to", "")) or [""])[0].lower()
        if who:
            failures.append(Failure(who, permanent=True))
        kind = COMPLAINT
    unsubscribe = _unsubscribe(headers.get("list-unsubscribe", ""))
    if not failures and unsubscribe is not None:
        failures.append(Failure(unsubscribe["a"], permanent=kind == COMPLAINT))
    if not failures:
        return None
    own = MESSAGE_ID.findall(headers.get("message-id", ""))
    return DeliveryReport(
        kind=kind,
        mailbox_id=mailbox_id,
        failures=tuple(failures),
        message_ids=tuple(dict.fromkeys([*own, *pointers])),
        headers=headers,
        unsubscribe=unsubscribe,
    )


def _unsubscribe(value: str) -> dict[str, str] | None:
    """The signed one-click link's address and source, when it is this workspace's."""
    for link in re.findall(r"<([^<>]+)>", value):
        match = UNSUBSCRIBE_TOKEN.search(link)
        if match and (payload := suppression.read_token(match[1])) is not None:
            return payload
    return None


def received(message: EmailMessage, *, mailbox_id: int) -> DeliveryReport | None:
    """Hands the report `message` is (if it is one) to every handler; the report, or None."""
    report = read(message, mailbox_id=mailbox_id)
    if report is not None:
        hand_over(report)
    return report


def hand_over(report: DeliveryReport) -> None:
    """Gives `report` to every handler, each in its own savepoint (one that fails is logged)."""
    where = f"mailbox {report.mailbox_id}" if report.mailbox_id is not None else report.source
    logger.info("%s: a %s report received", where, report.kind)
    for handler in list(_handlers):
        try:
            with transaction.atomic():
                handler(report)
        except (AppError, DatabaseError, ValueError, LookupError):
            logger.exception("%s: a delivery report handler failed", where)
