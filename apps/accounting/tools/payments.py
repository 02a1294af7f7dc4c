"""Credit applied and refunded, bills paid without a bank line, payments removed
(apps.accounting.services.payments)."""

from datetime import date
from decimal import Decimal
from typing import Annotated

from django.utils import timezone
from pydantic import Field

from apps.accounting.lib import ledger
from apps.accounting.lib.money import round_money
from apps.accounting.models import Account, Payment, PurchaseBill, SalesDocument
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import bills, payments, sales
from apps.accounting.shapes import Amount
from apps.accounting.tools.bills import BillId, BillRef
from apps.accounting.tools.common import Decimalish, DocumentRef, PaymentRef
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Out, id_field

Kind = SalesDocument.Kind
CreditNoteId = Annotated[int, id_field("searchInvoices", description="An approved credit note")]
On = Annotated[date | None, Field(description="Default today")]
Reference = Annotated[str, Field(max_length=100, description="Bank reference")]
BankCode = Annotated[str | None, Field(max_length=10, description="Bank account code")]
PaymentId = Annotated[int, id_field("getInvoice", description="A payment's id, from its document")]


class AllocationOut(Out):
    amount: Amount
    date: date
    fx_gain: Amount
    credit_note: DocumentRef
    invoice: DocumentRef


@tool("allocateCreditNote", permission=AccountingPerm.POST, title="Apply credit to an invoice")
def allocate_credit_note(
    ctx: ToolContext,
    *,
    credit_note_id: CreditNoteId,
    invoice_id: Annotated[int, id_field("searchInvoices", description="Open, same customer and currency")],
    amount: Annotated[Decimalish | None, Field(description="Default: all the invoice takes")] = None,
    on: On = None,
) -> AllocationOut:
    """Apply a credit note's credit to another open invoice of its customer; refundCreditNote pays it."""
    note = sales.document_get(actor=ctx.actor, kind=Kind.INVOICE, document_id=credit_note_id, action="change")
    invoice = sales.document_get(actor=ctx.actor, kind=Kind.INVOICE, document_id=invoice_id, action="change")
    made = payments.allocate(
        actor=ctx.actor, note=note, invoice=invoice, amount=amount, day=on or timezone.localdate()
    )
    base = ledger.books().base_currency
    fx = Decimal(0)
    if made.entry is not None:
        fx = sum((line.base_amount for line in made.entry.lines.filter(account__role=Account.Role.FX)), fx)
    return AllocationOut(
        amount=made.amount,
        date=made.date,
        fx_gain=round_money(-fx, base),
        credit_note=DocumentRef.of_record(note),
        invoice=DocumentRef.of_record(invoice),
    )


class PaidOut(Out):
    payment: PaymentRef
    currency: str
    rate: Amount
    fx_gain: Amount


class RefundOut(PaidOut):
    credit_note: DocumentRef


def _paid(payment: Payment) -> dict[str, object]:
    return {
        "payment": PaymentRef.of(payment),
        "currency": payment.currency,
        "rate": payment.entry.rate,
        "fx_gain": round_money(payment.fx_gain, ledger.books().base_currency),
    }


def _refund_checked(
    ctx: ToolContext,
    *,
    credit_note_id: int,
    amount: Decimalish,
    on: date | None,
    reference: str,
    bank_account: str | None,
) -> bool:
    """refundCreditNote's confirmation, asked once the refund is known to be possible."""
    note = sales.document_get(actor=ctx.actor, kind=Kind.INVOICE, document_id=credit_note_id)
    payments.refund_check(note=note, amount=amount, day=on or timezone.localdate(), bank_account=bank_account)
    return True


@tool(
    "refundCreditNote",
    permission=AccountingPerm.POST,
    title="Refund a credit note",
    markers=Marker.HIGH_RISK,
    confirm_if=_refund_checked,
)
def refund_credit_note(
    ctx: ToolContext,
    *,
    credit_note_id: CreditNoteId,
    amount: Annotated[Decimalish, Field(description="In the note's currency")],
    on: On = None,
    reference: Reference = "",
    bank_account: BankCode = None,
) -> RefundOut:
    """Pay a credit note's credit back to the customer from a bank account; allocateCreditNote applies it."""
    note = sales.document_get(actor=ctx.actor, kind=Kind.INVOICE, document_id=credit_note_id, action="change")
    payment = payments.refund(
        actor=ctx.actor,
        note=note,
        amount=amount,
        day=on or timezone.localdate(),
        reference=reference,
        bank_account=bank_account,
    )
    return RefundOut(**_paid(payment), credit_note=DocumentRef.of_record(note))  # type: ignore[arg-type]


class BillPaidOut(PaidOut):
    bill: BillRef


def _bill_payment_checked(
    ctx: ToolContext,
    *,
    bill_id: int,
    amount: Decimalish,
    on: date | None,
    reference: str,
    bank_account: str | None,
) -> bool:
    """recordBillPayment's confirmation, asked once the payment is known to be possible."""
    bill = bills.bill_get(actor=ctx.actor, bill_id=bill_id)
    payments.bill_payment_check(
        bill=bill, amount=amount, day=on or timezone.localdate(), bank_account=bank_account
    )
    return True


@tool(
    "recordBillPayment",
    permission=AccountingPerm.POST,
    title="Record a bill payment",
    markers=Marker.HIGH_RISK,
    confirm_if=_bill_payment_checked,
)
def record_bill_payment(
    ctx: ToolContext,
    *,
    bill_id: BillId,
    amount: Annotated[Decimalish, Field(description="In the bill's currency")],
    on: On = None,
    reference: Reference = "",
    bank_account: BankCode = None,
) -> BillPaidOut:
    """Record a bill paid (or a supplier credit refunded) with no bank line yet; recordPayment for sales."""
    bill = bills.bill_get(actor=ctx.actor, bill_id=bill_id, action="change")
    payment = payments.pay_bill(
        actor=ctx.actor,
        bill=bill,
        amount=amount,
        day=on or timezone.localdate(),
        reference=reference,
        bank_account=bank_account,
    )
    return BillPaidOut(**_paid(payment), bill=BillRef.of_record(bill))  # type: ignore[arg-type]


class RemovedOut(Out):
    payment: PaymentRef
    invoice: DocumentRef | None
    bill: BillRef | None


def _removal_checked(ctx: ToolContext, *, payment_id: int) -> bool:
    """removePayment's confirmation, asked once the payment is known to be removable."""
    payments.removal_check(payment=payments.payment_get(actor=ctx.actor, payment_id=payment_id))
    return True


@tool(
    "removePayment",
    permission=AccountingPerm.DELETE,
    title="Remove a payment",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_removal_checked,
)
def remove_payment(ctx: ToolContext, *, payment_id: PaymentId) -> RemovedOut:
    """Remove a recorded payment or refund: its posting is reversed and the amount is due again."""
    found = payments.payment_get(actor=ctx.actor, payment_id=payment_id, action="change")
    payments.remove(actor=ctx.actor, payment=found)
    document = found.paid
    return RemovedOut(
        payment=PaymentRef.of(found),
        invoice=DocumentRef.of_record(document) if isinstance(document, SalesDocument) else None,
        bill=BillRef.of_record(document) if isinstance(document, PurchaseBill) else None,
    )
