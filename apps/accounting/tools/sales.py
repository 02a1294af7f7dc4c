"""Sales invoices, credit notes and quotes: drafts, approval (the number), voids, payments."""

from datetime import date
from typing import Annotated, Any, Literal

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field

from apps.accounting.lib import ledger
from apps.accounting.lib.money import round_money
from apps.accounting.models import SalesDocument
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import banking, sales
from apps.accounting.shapes import Amount
from apps.accounting.tools.common import (
    Currency,
    Decimalish,
    DocumentOut,
    DocumentRef,
    InvoiceOut,
    LineIn,
    Lines,
    Rounded,
)
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, Limit, Offset, Out, Page, id_field, paginate
from apps.core.clean import plain
from apps.core.errors import invalid

Kind = SalesDocument.Kind
InvoiceId = Annotated[int, id_field("searchInvoices")]
QuoteId = Annotated[int, id_field("searchQuotes")]
Email = Annotated[str, Field(max_length=254)]
Text = Annotated[str, Field(max_length=2000)]


class DocumentFields(Changes):
    contact_id: Annotated[int | None, Field(ge=1, description="From searchContacts")] = None
    customer_name: Annotated[str | None, Field(max_length=200, description="Default: the contact's")] = None
    customer_email: Email | None = None
    customer_address: Text | None = None
    customer_vat_number: Annotated[str | None, Field(max_length=30, description="Checked")] = None
    reference: Annotated[str | None, Field(max_length=100, description="e.g. their PO number")] = None
    currency: Currency | None = None
    prices_include_tax: bool | None = None
    issue_date: date | None = None
    due_date: date | None = None
    notes: Text | None = None


def _lines(lines: list[LineIn] | None) -> list[sales.LineData] | None:
    if lines is None:
        return None
    return [
        sales.LineData(
            line.description,
            line.unit_price,
            line.tax_type,
            line.quantity,
            line.discount_percent,
            line.account,
        )
        for line in lines
    ]


def _create(ctx: ToolContext, kind: str, document: DocumentFields, lines: list[LineIn]) -> DocumentOut:
    created = sales.document_create(
        actor=ctx.actor, kind=kind, fields=document.given(), lines=_lines(lines) or []
    )
    return DocumentOut.of(created)


class UpdatedOut(Out):
    document: DocumentOut
    changed: list[str]


def _update(
    ctx: ToolContext, kind: str, document_id: int, document: DocumentFields | None, lines: list[LineIn] | None
) -> UpdatedOut:
    found = sales.document_get(actor=ctx.actor, kind=kind, document_id=document_id, action="change")
    changed = sales.document_update(
        actor=ctx.actor, document=found, fields=document.given() if document else {}, lines=_lines(lines)
    )
    return UpdatedOut(document=DocumentOut.of(found), changed=changed)


class DeletedOut(Out):
    id: int
    deleted: bool = True


def _search(
    ctx: ToolContext,
    kinds: tuple[str, ...],
    query: str,
    status: str | None,
    contact_id: int | None,
    overdue: bool,
    limit: int,
    offset: int,
) -> Page[DocumentRef]:
    rows = SalesDocument.objects.restrict(ctx.actor).filter(kind__in=kinds)
    for word in query.split():
        rows = rows.filter(
            Q(number__icontains=word)
            | Q(customer_name__icontains=word)
            | Q(reference__icontains=word)
            | Q(lines__description__icontains=word)
        ).distinct()
    if status:
        rows = rows.filter(status=status)
    if contact_id:
        rows = rows.filter(contact_id=contact_id)
    if overdue:
        rows = rows.filter(status__in=sales.OPEN, due_date__lt=timezone.localdate())
    return paginate(
        rows.order_by("-issue_date", "-id"), limit=limit, offset=offset, item=DocumentRef.of_record
    )


Query = Annotated[str, Field(max_length=200, description="Words in number, customer, reference or lines")]


# --- invoices ---------------------------------------------------------------------------------------


@tool("createInvoice", permission=AccountingPerm.EDIT, title="Create a draft invoice")
def create_invoice(
    ctx: ToolContext,
    *,
    invoice: Annotated[DocumentFields, Field(description="Customer, currency, dates")],
    lines: Lines,
) -> DocumentOut:
    """Create a draft sales invoice; approveInvoice numbers and posts it. From a quote: manageQuote."""
    return _create(ctx, Kind.INVOICE, invoice, lines)


@tool("getInvoice", permission=AccountingPerm.VIEW, title="Get an invoice", read_only=True)
def get_invoice(ctx: ToolContext, *, invoice_id: InvoiceId) -> InvoiceOut:
    """One invoice or credit note with its lines, totals, rate, payments and what is due."""
    return InvoiceOut.of(sales.document_get(actor=ctx.actor, kind=Kind.INVOICE, document_id=invoice_id))


@tool("updateInvoice", permission=AccountingPerm.EDIT, title="Update a draft invoice", idempotent=True)
def update_invoice(
    ctx: ToolContext,
    *,
    invoice_id: InvoiceId,
    invoice: Annotated[DocumentFields | None, Field(description="Fields to change")] = None,
    lines: Lines | None = None,
) -> UpdatedOut:
    """Change a draft invoice or credit note; an approved one is corrected with a credit note."""
    return _update(ctx, Kind.INVOICE, invoice_id, invoice, lines)


@tool(
    "deleteInvoice",
    permission=AccountingPerm.DELETE,
    title="Delete a draft invoice",
    markers=Marker.DESTRUCTIVE,
)
def delete_invoice(ctx: ToolContext, *, invoice_id: InvoiceId) -> DeletedOut:
    """Delete a draft invoice; an approved one cannot be deleted (void it with manageInvoice)."""
    found = sales.document_get(actor=ctx.actor, kind=Kind.INVOICE, document_id=invoice_id, action="delete")
    sales.document_delete(actor=ctx.actor, document=found)
    return DeletedOut(id=invoice_id)


@tool("duplicateInvoice", permission=AccountingPerm.EDIT, title="Duplicate an invoice")
def duplicate_invoice(ctx: ToolContext, *, invoice_id: InvoiceId) -> DocumentOut:
    """Copy any invoice into a new draft dated today, with the same customer and lines."""
    found = sales.document_get(actor=ctx.actor, kind=Kind.INVOICE, document_id=invoice_id)
    return DocumentOut.of(sales.document_duplicate(actor=ctx.actor, document=found))


@tool("approveInvoice", permission=AccountingPerm.POST, title="Approve an invoice")
def approve_invoice(ctx: ToolContext, *, invoice_id: InvoiceId) -> DocumentOut:
    """Approve a draft invoice or credit note: it gets the next number and is posted to the ledger."""
    found = sales.document_get(actor=ctx.actor, kind=Kind.INVOICE, document_id=invoice_id, action="change")
    return DocumentOut.of(sales.document_approve(actor=ctx.actor, document=found))


InvoiceStatus = Literal["draft", "approved", "sent", "part_paid", "paid", "void"]


@tool("searchInvoices", permission=AccountingPerm.VIEW, title="Search invoices", read_only=True)
def search_invoices(
    ctx: ToolContext,
    *,
    query: Query = "",
    status: Annotated[InvoiceStatus | None, Field(description="Only this state")] = None,
    contact_id: Annotated[int | None, Field(ge=1, description="From searchContacts")] = None,
    overdue: Annotated[bool, Field(description="Only issued ones past their due date")] = False,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[DocumentRef]:
    """Find invoices and credit notes by words, status, customer or overdue."""
    return _search(ctx, (Kind.INVOICE, Kind.CREDIT_NOTE), query, status, contact_id, overdue, limit, offset)


class ManagedOut(Out):
    action: str
    document: DocumentOut
    created: DocumentOut | None = Field(description="What it made: credit note, invoice or copy")


@tool("manageInvoice", permission=AccountingPerm.POST, title="Void, dispute or credit an invoice")
def manage_invoice(
    ctx: ToolContext,
    *,
    invoice_id: InvoiceId,
    action: Annotated[
        Literal["void", "dispute", "undispute", "credit"],
        Field(description="void reverses its posting; credit drafts a credit note for it"),
    ],
    on: Annotated[
        date | None,
        Field(description="void: day of the reversal, default today; not locked, not before issue"),
    ] = None,
) -> ManagedOut:
    """Void an unpaid issued invoice, mark it disputed (stops chasing), or draft its credit note."""
    found = sales.document_get(actor=ctx.actor, kind=Kind.INVOICE, document_id=invoice_id, action="change")
    created = None
    if action == "void":
        sales.document_void(actor=ctx.actor, document=found, day=on)
    elif action in ("dispute", "undispute"):
        sales.document_dispute(actor=ctx.actor, document=found, disputed=action == "dispute")
    else:
        created = DocumentOut.of(sales.credit_note_for(actor=ctx.actor, invoice=found))
    return ManagedOut(action=action, document=DocumentOut.of(found), created=created)


class PaymentOut(Out):
    id: int
    amount: Amount
    currency: str
    date: date
    rate: Amount = Field(description="Of the payment's day")
    fx_gain: Amount = Field(description="Realised, base currency; negative: a loss")
    invoice: DocumentRef
    rounded: Rounded


def _payment_checked(
    ctx: ToolContext,
    *,
    invoice_id: int,
    amount: Decimalish,
    on: date | None,
    reference: str,
    bank_account: str | None,
    amount_received: Decimalish | None = None,
) -> bool:
    """recordPayment's confirmation, asked once the payment is known to be possible."""
    found = sales.document_get(actor=ctx.actor, kind=Kind.INVOICE, document_id=invoice_id)
    day = on or timezone.localdate()
    checked, bank = sales.payment_check(document=found, amount=amount, day=day, bank_account=bank_account)
    banking.received_check(currency=found.currency, amount=checked, bank=bank, received=amount_received)
    return True


@tool(
    "recordPayment",
    permission=AccountingPerm.POST,
    title="Record a payment",
    markers=Marker.HIGH_RISK,
    confirm_if=_payment_checked,
)
def record_payment(
    ctx: ToolContext,
    *,
    invoice_id: InvoiceId,
    amount: Annotated[Decimalish, Field(description="In the invoice's currency")],
    on: Annotated[date | None, Field(description="Day received; default today")] = None,
    reference: Annotated[str, Field(max_length=100, description="Bank reference")] = "",
    bank_account: Annotated[str | None, Field(max_length=10, description="Bank account code")] = None,
    amount_received: Annotated[
        Decimalish | None, Field(description="What the base-currency bank got, if another")
    ] = None,
) -> PaymentOut:
    """Record money received against an approved invoice; posts it with any realised FX gain or loss."""
    found = sales.document_get(actor=ctx.actor, kind=Kind.INVOICE, document_id=invoice_id, action="change")
    payment = sales.record_payment(
        actor=ctx.actor,
        document=found,
        amount=amount,
        day=on or timezone.localdate(),
        reference=reference,
        bank_account=bank_account,
        received=amount_received,
    )
    return PaymentOut.of_record(
        payment,
        rate=payment.entry.rate,
        # Kept to four places like every ledger amount; answered in the base currency's minor units.
        fx_gain=round_money(payment.fx_gain, ledger.books().base_currency),
        invoice=DocumentRef.of_record(found),
        rounded=(
            []
            if payment.amount == amount
            else [
                _("amount %(given)s rounded to %(amount)s %(currency)s")
                % {
                    "given": str(plain(amount)),
                    "amount": payment.amount,
                    "currency": payment.currency,
                }
            ]
        ),
    )


# --- quotes -----------------------------------------------------------------------------------------


@tool("createQuote", permission=AccountingPerm.EDIT, title="Create a draft quote")
def create_quote(
    ctx: ToolContext,
    *,
    quote: Annotated[DocumentFields, Field(description="Customer, currency, dates (dueDate: valid until)")],
    lines: Lines,
) -> DocumentOut:
    """Create a draft quote (estimate) for a customer; manageQuote sends, accepts or invoices it."""
    return _create(ctx, Kind.QUOTE, quote, lines)


@tool("getQuote", permission=AccountingPerm.VIEW, title="Get a quote", read_only=True)
def get_quote(ctx: ToolContext, *, quote_id: QuoteId) -> DocumentOut:
    """One quote with its lines and totals."""
    return DocumentOut.of(sales.document_get(actor=ctx.actor, kind=Kind.QUOTE, document_id=quote_id))


@tool("updateQuote", permission=AccountingPerm.EDIT, title="Update a draft quote", idempotent=True)
def update_quote(
    ctx: ToolContext,
    *,
    quote_id: QuoteId,
    quote: Annotated[DocumentFields | None, Field(description="Fields to change")] = None,
    lines: Lines | None = None,
) -> UpdatedOut:
    """Change a draft quote; once approved it is fixed (duplicate it with manageQuote to revise)."""
    return _update(ctx, Kind.QUOTE, quote_id, quote, lines)


@tool(
    "deleteQuote", permission=AccountingPerm.DELETE, title="Delete a draft quote", markers=Marker.DESTRUCTIVE
)
def delete_quote(ctx: ToolContext, *, quote_id: QuoteId) -> DeletedOut:
    """Delete a draft quote; an approved one is declined with manageQuote instead."""
    found = sales.document_get(actor=ctx.actor, kind=Kind.QUOTE, document_id=quote_id, action="delete")
    sales.document_delete(actor=ctx.actor, document=found)
    return DeletedOut(id=quote_id)


@tool("searchQuotes", permission=AccountingPerm.VIEW, title="Search quotes", read_only=True)
def search_quotes(
    ctx: ToolContext,
    *,
    query: Query = "",
    status: Annotated[
        Literal["draft", "approved", "accepted", "declined", "invoiced"] | None,
        Field(description="Only this state"),
    ] = None,
    contact_id: Annotated[int | None, Field(ge=1, description="From searchContacts")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[DocumentRef]:
    """Find quotes (estimates) by words, status or customer."""
    return _search(ctx, (Kind.QUOTE,), query, status, contact_id, False, limit, offset)


@tool("manageQuote", permission=AccountingPerm.POST, title="Approve, accept or invoice a quote")
def manage_quote(
    ctx: ToolContext,
    *,
    quote_id: QuoteId,
    action: Annotated[
        Literal["approve", "accept", "decline", "invoice", "duplicate"],
        Field(description="approve numbers it; invoice drafts an invoice from it"),
    ],
) -> ManagedOut:
    """Approve (number) a quote, record the customer's answer, turn it into a draft invoice, or copy it."""
    found = sales.document_get(actor=ctx.actor, kind=Kind.QUOTE, document_id=quote_id, action="change")
    created: Any = None
    if action == "approve":
        sales.document_approve(actor=ctx.actor, document=found)
    elif action in ("accept", "decline"):
        sales.quote_answer(actor=ctx.actor, quote=found, accepted=action == "accept")
    elif action == "invoice":
        created = sales.quote_invoice(actor=ctx.actor, quote=found)
    elif action == "duplicate":
        created = sales.document_duplicate(actor=ctx.actor, document=found)
    else:  # pragma: no cover (the enum)
        raise invalid("action", _("unknown action {action!r}"), action=action)
    return ManagedOut(
        action=action, document=DocumentOut.of(found), created=created and DocumentOut.of(created)
    )
