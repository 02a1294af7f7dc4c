"""Sending to customers: an invoice as a PDF attached to an e-mail, reminders on a schedule, and
statements with ageing. Everything goes out through `_deliver` (the mail app's `send`), and each
e-mail is recorded (SentMail) in the tool call's transaction.

Reminders follow REMINDER_DAYS (days after the due date): the first one day late, then a week,
two weeks and a month late, one at a time. They stop when the invoice is paid or voided,
disputed, snoozed (until the snooze ends), or has no e-mail address to go to.
"""

import logging
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounting.lib import ledger, pdf
from apps.accounting.lib.money import round_money
from apps.accounting.models import SalesDocument, SentMail
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services.sales import OPEN, wrong_status
from apps.core.actors import Actor, actor_id, can, require
from apps.core.errors import invalid
from apps.mail import api as mail

logger = logging.getLogger(__name__)

REMINDER_DAYS = (1, 7, 14, 30)
AGEING = (("current", 0), ("1-30", 30), ("31-60", 60), ("61-90", 90), ("90+", None))
Status = SalesDocument.Status


def _seller() -> str:
    from apps.core.workspaces import brand

    return brand()


def _deliver(to: str, subject: str, body: str, actor: Actor | None, filename: str, content: bytes) -> None:
    """One e-mail with its PDF from the service's address, replies going to the person sending."""
    attachment = mail.Attachment(filename, content, "application/pdf")
    reply_to = getattr(actor, "email", "")
    mail.send(
        [mail.Notice(to=[to], subject=subject, text=body, reply_to=reply_to, attachments=(attachment,))]
    )


def _recipient(document: SalesDocument, to: str | None) -> str:
    address = (to or document.customer_email or "").strip()
    if not address or "@" not in address:
        raise invalid("to", _("the customer has no e-mail address; give one"))
    return address


def send_document(
    *, actor: Actor, document: SalesDocument, to: str | None = None, note: str = ""
) -> SentMail:
    """E-mails an approved invoice or credit note with its PDF; an approved invoice becomes sent."""
    require(actor, AccountingPerm.SEND)
    if document.status in (Status.DRAFT, Status.VOID):
        raise wrong_status(document, _("approved (approveInvoice gives it its number)"))
    recipient = _recipient(document, to)
    seller = _seller()
    kind = document.get_kind_display().capitalize()
    subject = f"{kind} {document.number} from {seller}"[:300]
    body = "\n\n".join(
        part
        for part in (
            note.strip(),
            f"Please find {kind.lower()} {document.number} attached: {document.total} {document.currency}"
            + (f", due by {document.due_date.isoformat()}." if document.due_date else "."),
            seller,
        )
        if part
    )
    filename = f"{document.number}.pdf"
    record = SentMail.objects.create(
        kind=SentMail.Kind.DOCUMENT,
        document=document,
        recipient=recipient,
        subject=subject,
        attachment=filename,
        sent_by_id=actor_id(actor),
    )
    if document.status == Status.APPROVED:
        document.status = Status.SENT
    document.sent_at = timezone.now()
    document.save(update_fields=["status", "sent_at", "updated_at"])
    _deliver(recipient, subject, body, actor, filename, pdf.document_pdf(document, seller=seller))
    return record


def snooze(*, actor: Actor, document: SalesDocument, until: date | None) -> None:
    require(actor, AccountingPerm.EDIT)
    if until is not None and until <= timezone.localdate():
        raise invalid("until", _("must be a day after today"))
    document.snoozed_until = until
    document.save(update_fields=["snoozed_until", "updated_at"])


def reminder_due(document: SalesDocument, today: date) -> bool:
    if document.status not in OPEN or document.disputed or document.due_date is None:
        return False
    if document.snoozed_until is not None and document.snoozed_until >= today:
        return False
    if document.reminders_sent >= len(REMINDER_DAYS) or not document.customer_email:
        return False
    if document.last_reminded_on is not None and document.last_reminded_on >= today:
        return False  # one reminder a day at most, however late the invoice
    return today >= document.due_date + timedelta(days=REMINDER_DAYS[document.reminders_sent])


def chase_candidates(rows: Any, today: date) -> list[SalesDocument]:
    open_and_late = rows.filter(kind=SalesDocument.Kind.INVOICE, status__in=OPEN, due_date__lt=today)
    return [
        document for document in open_and_late.order_by("due_date", "id") if reminder_due(document, today)
    ]


def send_reminder(*, actor: Actor, document: SalesDocument, today: date) -> SentMail:
    require(actor, AccountingPerm.SEND)
    recipient = _recipient(document, None)
    seller = _seller()
    late = (today - document.due_date).days if document.due_date else 0
    subject = f"Reminder: invoice {document.number} is {late} days overdue"[:300]
    body = (
        f"Invoice {document.number} of {document.issue_date.isoformat()} for {document.total} "
        f"{document.currency} was due on {document.due_date}. {document.amount_due} {document.currency} "
        f"is still open. If you have paid it, thank you, please ignore this reminder.\n\n{seller}"
    )
    record = SentMail.objects.create(
        kind=SentMail.Kind.REMINDER,
        document=document,
        recipient=recipient,
        subject=subject,
        attachment=f"{document.number}.pdf",
        sent_by_id=actor_id(actor),
    )
    document.reminders_sent += 1
    document.last_reminded_on = today
    document.save(update_fields=["reminders_sent", "last_reminded_on", "updated_at"])
    _deliver(
        recipient, subject, body, actor, f"{document.number}.pdf", pdf.document_pdf(document, seller=seller)
    )
    return record


def chase_automatically(*, actor: Actor, on: bool) -> None:
    """Switches automatic reminders on (sent each morning as `actor`) or off."""
    require(actor, AccountingPerm.SEND)
    books = ledger.books()
    books.chase_as_id = actor_id(actor) if on else None
    books.save(update_fields=["chase_as"])


def chase_due(*, today: date | None = None) -> int:
    """The morning round of the current workspace: each overdue invoice whose next reminder is due
    (not paid, disputed or snoozed) gets it, as the person who switched chasing on, while they may
    still send. Returns how many went. One invoice failing to send does not stop the others."""
    person = ledger.books().chase_as
    if person is None or not person.is_active or not can(person, AccountingPerm.SEND):
        return 0
    today = today or timezone.localdate()
    sent = 0
    for candidate in chase_candidates(SalesDocument.objects.all(), today):
        try:
            with transaction.atomic():
                document = SalesDocument.objects.select_for_update().get(pk=candidate.pk)
                if reminder_due(document, today):
                    send_reminder(actor=person, document=document, today=today)
                    sent += 1
        except Exception:
            logger.exception("the reminder of invoice %s was not sent", candidate.pk)
    if sent:
        logger.info("automatic reminders: %s sent", sent)
    return sent


@dataclass(frozen=True)
class Statement:
    customer: str
    currency: str
    on: date
    documents: list[SalesDocument]
    ageing: list[tuple[str, Decimal]]
    balance: Decimal


def statement(*, rows: Any, customer: str, contact_id: int | None, currency: str, on: date) -> Statement:
    """The customer's open invoices and credit notes in `currency` on `on`, aged by days past due."""
    documents = rows.filter(status__in=OPEN, currency=currency)
    documents = (
        documents.filter(contact_id=contact_id)
        if contact_id
        else documents.filter(customer_name__iexact=customer)
    )
    found = list(documents.order_by("issue_date", "id"))
    buckets = {label: Decimal(0) for label, _limit in AGEING}
    for document in found:
        sign = -1 if document.kind == SalesDocument.Kind.CREDIT_NOTE else 1
        late = (on - (document.due_date or document.issue_date)).days
        label = next(label for label, limit in AGEING if limit is None or late <= limit)
        buckets[label] += sign * document.amount_due
    ageing = [(label, round_money(amount, currency)) for label, amount in buckets.items()]
    return Statement(
        customer, currency, on, found, ageing, round_money(sum(buckets.values(), Decimal(0)), currency)
    )


def send_statement(*, actor: Actor, found: Statement, to: str) -> SentMail:
    require(actor, AccountingPerm.SEND)
    if not to or "@" not in to:
        raise invalid("to", _("give the address to send the statement to"))
    seller = _seller()
    subject = f"Statement of account from {seller} at {found.on.isoformat()}"[:300]
    body = f"Your balance with {seller} is {found.balance} {found.currency}; the statement is attached."
    body += f"\n\n{seller}"
    content = pdf.statement_pdf(
        seller=seller,
        customer=found.customer,
        currency=found.currency,
        on=found.on,
        rows=[
            [
                d.number,
                d.issue_date.isoformat(),
                d.due_date.isoformat() if d.due_date else "",
                d.total,
                d.amount_due,
            ]
            for d in found.documents
        ],
        ageing=found.ageing,
    )
    record = SentMail.objects.create(
        kind=SentMail.Kind.STATEMENT,
        recipient=to,
        subject=subject,
        attachment="statement.pdf",
        sent_by_id=actor_id(actor),
    )
    _deliver(to, subject, body, actor, "statement.pdf", content)
    return record
