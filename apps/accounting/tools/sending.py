"""Credit control: sending invoices, reminders and statements, and snoozing the chase."""

import datetime
from typing import Annotated, Any

from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field

from apps.accounting.lib import ledger
from apps.accounting.lib.money import currency_code
from apps.accounting.models import SalesDocument
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import sales, sending
from apps.accounting.shapes import Amount
from apps.accounting.tools.common import Currency, DocumentRef
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Out, id_field
from apps.core.errors import invalid

InvoiceId = Annotated[int, id_field("searchInvoices")]
Email = Annotated[str | None, Field(max_length=254, description="Default: the customer's")]


class SentOut(Out):
    recipient: str
    subject: str
    attachment: str
    document: DocumentRef | None


@tool("sendInvoice", permission=AccountingPerm.SEND, title="Send an invoice", markers=Marker.HIGH_RISK)
def send_invoice(
    ctx: ToolContext,
    *,
    invoice_id: InvoiceId,
    to: Email = None,
    note: Annotated[str, Field(max_length=2000, description="Text above the standard message")] = "",
) -> SentOut:
    """E-mail an approved invoice or credit note to the customer with its PDF attached."""
    found = sales.document_get(actor=ctx.actor, kind="invoice", document_id=invoice_id, action="change")
    sent = sending.send_document(actor=ctx.actor, document=found, to=to, note=note)
    return SentOut(
        recipient=sent.recipient,
        subject=sent.subject,
        attachment=sent.attachment,
        document=DocumentRef.of_record(found),
    )


class RemindersOut(Out):
    sent: list[SentOut]
    due: int = Field(description="Reminders due, sent or (dry run) not")


def _sends(ctx: ToolContext, *, dry_run: bool = False, **_arguments: Any) -> bool:
    """A dry run sends nothing: it is not confirmed (confirm_if of the sending tools)."""
    return not dry_run


@tool(
    "sendInvoiceReminders",
    permission=AccountingPerm.SEND,
    title="Send overdue reminders",
    markers=Marker.HIGH_RISK,
    confirm_if=_sends,
)
def send_invoice_reminders(
    ctx: ToolContext,
    *,
    invoice_ids: Annotated[
        list[int] | None, Field(max_length=100, description="Default: every invoice due one")
    ] = None,
    dry_run: Annotated[bool, Field(description="Only say which are due")] = False,
) -> RemindersOut:
    """E-mail reminders for overdue invoices whose next reminder is due (not disputed or snoozed)."""
    today = timezone.localdate()
    rows = SalesDocument.objects.restrict(ctx.actor, "change")
    if invoice_ids:
        rows = rows.filter(pk__in=invoice_ids)
    due = sending.chase_candidates(rows.select_for_update(of=("self",)), today)
    sent = (
        [] if dry_run else [sending.send_reminder(actor=ctx.actor, document=doc, today=today) for doc in due]
    )
    documents = {doc.pk: doc for doc in due}
    return RemindersOut(
        sent=[
            SentOut(
                recipient=s.recipient,
                subject=s.subject,
                attachment=s.attachment,
                document=DocumentRef.of_record(documents[s.document_id]),
            )
            for s in sent
            if s.document_id is not None
        ],
        due=len(due),
    )


class SnoozedOut(Out):
    document: DocumentRef
    snoozed_until: datetime.date | None


@tool(
    "snoozeInvoiceChase", permission=AccountingPerm.EDIT, title="Snooze chasing an invoice", idempotent=True
)
def snooze_invoice_chase(
    ctx: ToolContext,
    *,
    invoice_id: InvoiceId,
    until: Annotated[
        datetime.date | None, Field(description="No reminders up to this day; null: chase again")
    ],
) -> SnoozedOut:
    """Pause (or resume) reminders for one invoice, e.g. while a payment plan is agreed."""
    found = sales.document_get(actor=ctx.actor, kind="invoice", document_id=invoice_id, action="change")
    sending.snooze(actor=ctx.actor, document=found, until=until)
    return SnoozedOut(document=DocumentRef.of_record(found), snoozed_until=found.snoozed_until)


class AgeingOut(Out):
    bucket: str = Field(description="Days past due")
    amount: Amount


class StatementOut(Out):
    customer: str
    currency: str
    balance: Amount
    ageing: list[AgeingOut]
    documents: list[DocumentRef]
    sent_to: str | None = Field(description="Null on a dry run")


@tool(
    "sendContactStatement",
    permission=AccountingPerm.SEND,
    title="Send a statement",
    markers=Marker.HIGH_RISK,
    confirm_if=_sends,
)
def send_contact_statement(
    ctx: ToolContext,
    *,
    contact_id: Annotated[int | None, Field(ge=1, description="From searchContacts")] = None,
    customer_name: Annotated[str | None, Field(max_length=200, description="Or the name on invoices")] = None,
    currency: Currency | None = None,
    to: Email = None,
    dry_run: Annotated[bool, Field(description="Only show the statement")] = False,
) -> StatementOut:
    """E-mail a customer's statement: open invoices and balance aged current/30/60/90+, as a PDF."""
    if not contact_id and not customer_name:
        raise invalid("contactId", _("give a contactId or a customerName"))
    code = currency_code(currency) if currency else ledger.books().base_currency
    rows = SalesDocument.objects.restrict(ctx.actor)
    found = sending.statement(
        rows=rows, customer=customer_name or "", contact_id=contact_id, currency=code, on=timezone.localdate()
    )
    customer = found.documents[0].customer_name if found.documents else (customer_name or "")
    address = to or next((d.customer_email for d in found.documents if d.customer_email), "")
    if not found.documents:
        raise invalid("customerName", _("no open invoices in {code} for that customer"), code=code)
    if not dry_run:
        sending.send_statement(actor=ctx.actor, found=found, to=address)
    return StatementOut(
        customer=customer,
        currency=code,
        balance=found.balance,
        ageing=[AgeingOut(bucket=label, amount=amount) for label, amount in found.ageing],
        documents=[DocumentRef.of_record(document) for document in found.documents],
        sent_to=None if dry_run else address,
    )
