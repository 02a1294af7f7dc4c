"""Payments beyond recordPayment: credit applied to another invoice, credit paid back (a refund),
bills paid without a bank line, and a payment removed.

- **Credit applied** (`allocate`): what is left on an approved credit note settles an open
  invoice of the same customer (the same contact, or the same name where either has none) in
  the same currency; both count it as paid (a `CreditAllocation`). Both are on the receivable
  already, so nothing moves in the document's currency; where the note and the invoice were
  posted at different rates, one entry moves the receivable between them in base currency and
  realises the difference as FX.
- **Refund** (`refund`): credit paid back to the customer, money out of a bank account: the
  receivable debited at the note's rate, the bank credited at the day's, the difference realised
  as FX (as recordPayment does the other way). It is a `Payment` of the credit note.
- **A bill paid** (`pay_bill`) without a bank line: the payable debited at the bill's rate, the
  bank credited at the day's (a supplier's credit refunded: the other way). A `Payment` of the
  bill. A bank line reconciles it afterwards (apps.accounting.services.matching, `payment_ids`).
- **Removed** (`remove`): a payment's entry is reversed (never edited), the row kept with its
  reversal, the document's amount due goes back up. A payment a bank line reconciles is not
  removed: the match is undone first (unmatchPurchaseInvoiceLine).

The checks (`*_check`) run before a HIGH RISK tool asks its confirmation, and again as it runs.
"""

import logging
from datetime import date
from decimal import Decimal
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import (
    CreditNoteCurrency,
    CreditOtherCustomer,
    PaymentReconciled,
    PaymentRemoved,
    WrongStatus,
)
from apps.accounting.lib import ledger, rates
from apps.accounting.lib.money import round_money
from apps.accounting.models import (
    Account,
    CreditAllocation,
    MatchLine,
    Payment,
    PurchaseBill,
    SalesDocument,
)
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import sales, sync
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import RecordNotFound, invalid

logger = logging.getLogger(__name__)
ZERO = Decimal(0)
Kind = SalesDocument.Kind
Status = SalesDocument.Status
BillStatus = PurchaseBill.Status
Paid = SalesDocument | PurchaseBill


def follow_sales(document: SalesDocument) -> None:
    """Sets an issued document's status from what is paid of it, and saves it."""
    if document.amount_due == 0:
        document.status = Status.PAID
    elif document.amount_paid:
        document.status = Status.PART_PAID
    else:
        document.status = Status.SENT if document.sent_at else Status.APPROVED
    document.save(update_fields=["amount_paid", "status", "updated_at"])


def follow_bill(bill: PurchaseBill) -> None:
    if bill.amount_due == 0:
        bill.status = BillStatus.PAID
    else:
        bill.status = BillStatus.PART_PAID if bill.amount_paid else BillStatus.POSTED
    bill.save(update_fields=["amount_paid", "status", "updated_at"])


def label(document: Paid) -> str:
    if isinstance(document, PurchaseBill):
        return f"bill {document.reference or document.pk}"
    return str(document.number)


def _control(document: Paid) -> tuple[Account, int]:
    """The control account a payment of the document clears, and the sign of what is posted there
    per unit paid: an invoice's payment credits the receivable, a credit note's refund debits it,
    a bill's payment debits the payable (a supplier credit's refund, a negative amount, credits it)."""
    if isinstance(document, PurchaseBill):
        return ledger.account(Account.Role.PAYABLE), 1
    if document.kind == Kind.CREDIT_NOTE:
        return ledger.account(Account.Role.RECEIVABLE), 1
    return ledger.account(Account.Role.RECEIVABLE), -1


def bank_flow(payment: Payment, currency: str | None = None) -> Decimal:
    """What the payment moved into its bank account, signed (money out negative), in its own
    currency; or in `currency`, the base currency of a base-currency account that took a payment
    in another one: what its entry booked on that account."""
    if currency is None or currency == payment.currency:
        _account, sign = _control(payment.paid)
        return -sign * round_money(payment.amount, payment.currency)
    booked = payment.entry.lines.filter(account_id=payment.bank_account_id)
    return round_money(sum((line.base_amount for line in booked), ZERO), currency)


def _post(
    *, actor: Actor, document: Paid, amount: Decimal, day: date, reference: str, bank: Account
) -> Payment:
    """Posts a payment of `amount` (what it adds to the document's amount paid) and keeps it."""
    account, sign = _control(document)
    assert document.rate is not None
    base = ledger.books().base_currency
    moved = sign * amount
    what = label(document)
    entry = ledger.post(
        journal="BNK",
        day=day,
        currency=document.currency,
        legs=[
            ledger.Leg(account, moved, what, base_amount=round_money(moved * document.rate, base)),
            ledger.Leg(bank, -moved, f"Payment {what}"),
        ],
        actor=actor,
        memo=f"Payment {what} {reference}".strip()[:300],
        source=f"payment:{'bill' if isinstance(document, PurchaseBill) else document.kind}:{document.pk}",
        residual_to=ledger.account(Account.Role.FX),
    )
    fx = sum((line.base_amount for line in entry.lines.filter(account__role=Account.Role.FX)), ZERO)
    payment = Payment.objects.create(
        document=document if isinstance(document, SalesDocument) else None,
        bill=document if isinstance(document, PurchaseBill) else None,
        date=day,
        amount=amount,
        currency=document.currency,
        reference=reference,
        bank_account=bank,
        entry=entry,
        fx_gain=-fx,
        recorded_by_id=actor_id(actor),
    )
    document.amount_paid += amount
    if isinstance(document, PurchaseBill):
        follow_bill(document)
    else:
        follow_sales(document)
    sync.queue(payment)
    logger.info("payment %s posted on %s", payment.pk, what)
    return payment


def _positive(amount: Decimal, currency: str) -> Decimal:
    amount = round_money(amount, currency)
    if amount <= 0:
        raise invalid("amount", _("must be more than zero"))
    return amount


def _at_most(amount: Decimal, most: Decimal, currency: str) -> None:
    if amount > most:
        raise invalid(
            "amount",
            _("{amount} is more than the {due} {currency} due"),
            amount=amount,
            due=most,
            currency=currency,
        )


# --- refunds of credit -----------------------------------------------------------------------------


def _credit_left(note: SalesDocument) -> None:
    if note.kind != Kind.CREDIT_NOTE or note.status not in sales.OPEN or note.amount_due <= 0:
        raise sales.wrong_status(note, _("an approved credit note with credit left"))


def refund_check(
    *, note: SalesDocument, amount: Decimal, day: date, bank_account: str | None
) -> tuple[Decimal, Account]:
    """The refund's amount (in minor units) and bank account, or the refusal."""
    _credit_left(note)
    amount = _positive(amount, note.currency)
    _at_most(amount, note.amount_due, note.currency)
    if day < note.issue_date:
        raise invalid(
            "on", _("is before the credit note's issue date {day}"), day=note.issue_date.isoformat()
        )
    return amount, sales.bank_account_of(bank_account)


def refund(
    *,
    actor: Actor,
    note: SalesDocument,
    amount: Decimal,
    day: date,
    reference: str = "",
    bank_account: str | None = None,
) -> Payment:
    """Pays a credit note's credit back to the customer out of a bank account (see the module)."""
    require(actor, AccountingPerm.POST)
    amount, bank = refund_check(note=note, amount=amount, day=day, bank_account=bank_account)
    return _post(actor=actor, document=note, amount=amount, day=day, reference=reference, bank=bank)


# --- credit applied to another invoice ---------------------------------------------------------------


def _same_customer(note: SalesDocument, invoice: SalesDocument) -> bool:
    if note.contact_id and invoice.contact_id:
        return note.contact_id == invoice.contact_id
    return note.customer_name.strip().casefold() == invoice.customer_name.strip().casefold()


def allocation_check(
    *, note: SalesDocument, invoice: SalesDocument, amount: Decimal | None, day: date
) -> Decimal:
    """What of the note's credit goes to the invoice (default: as much as both allow)."""
    _credit_left(note)
    if invoice.kind != Kind.INVOICE or invoice.status not in sales.OPEN or invoice.amount_due <= 0:
        raise sales.wrong_status(invoice, _("an approved or sent invoice with an amount due"))
    if note.currency != invoice.currency:
        raise CreditNoteCurrency(
            id=note.number, invoice=invoice.number, currency=invoice.currency, given=note.currency
        )
    if not _same_customer(note, invoice):
        raise CreditOtherCustomer(
            id=note.number,
            invoice=invoice.number,
            customer=note.customer_name,
            other=invoice.customer_name,
        )
    if amount is None:
        amount = min(note.amount_due, invoice.amount_due)
    amount = _positive(amount, note.currency)
    if amount > note.amount_due:
        raise invalid(
            "amount",
            _("{amount} is more than the {left} {currency} of credit left on {number}"),
            amount=amount,
            left=note.amount_due,
            currency=note.currency,
            number=note.number,
        )
    _at_most(amount, invoice.amount_due, invoice.currency)
    latest = max(note.issue_date, invoice.issue_date)
    if day < latest:
        raise invalid(
            "on",
            _("is before {day}, when both the credit note and the invoice exist"),
            day=latest.isoformat(),
        )
    return amount


def allocate(
    *,
    actor: Actor,
    note: SalesDocument,
    invoice: SalesDocument,
    amount: Decimal | None = None,
    day: date | None = None,
) -> CreditAllocation:
    """Applies a credit note's credit to an open invoice of its customer (see the module)."""
    require(actor, AccountingPerm.POST)
    day = day or timezone.localdate()
    amount = allocation_check(note=note, invoice=invoice, amount=amount, day=day)
    entry = None
    base = ledger.books().base_currency
    assert note.rate is not None and invoice.rate is not None
    on_note = round_money(amount * note.rate, base)
    on_invoice = round_money(amount * invoice.rate, base)
    if on_note != on_invoice:
        receivable = ledger.account(Account.Role.RECEIVABLE)
        entry = ledger.post(
            journal="GEN",
            day=day,
            currency=note.currency,
            legs=[
                ledger.Leg(receivable, amount, note.number, base_amount=on_note),
                ledger.Leg(receivable, -amount, invoice.number, base_amount=-on_invoice),
            ],
            actor=actor,
            memo=f"Credit {note.number} applied to {invoice.number}"[:300],
            source=f"allocation:{note.pk}",
            rate=rates.Rate(invoice.rate, day, "documents"),
            residual_to=ledger.account(Account.Role.FX),
        )
    made = CreditAllocation.objects.create(
        note=note, invoice=invoice, date=day, amount=amount, entry=entry, created_by_id=actor_id(actor)
    )
    for document in (note, invoice):
        document.amount_paid += amount
        follow_sales(document)
    logger.info("credit %s applied to %s: %s", note.pk, invoice.pk, amount)
    return made


# --- bills paid without a bank line ------------------------------------------------------------------


def bill_payment_check(
    *, bill: PurchaseBill, amount: Decimal, day: date, bank_account: str | None
) -> tuple[Decimal, Account]:
    """What the payment adds to the bill's amount paid (a supplier credit's refund: negative) and
    its bank account, or the refusal."""
    if bill.status not in (BillStatus.POSTED, BillStatus.PART_PAID) or bill.amount_due == 0:
        raise WrongStatus(
            label=_("Bill"),
            id=bill.pk,
            status=bill.get_status_display(),
            wanted=_("posted, with an amount due"),
        )
    amount = _positive(amount, bill.currency)
    _at_most(amount, abs(bill.amount_due), bill.currency)
    if bill.issue_date and day < bill.issue_date:
        raise invalid("on", _("is before the bill's issue date {day}"), day=bill.issue_date.isoformat())
    signed = amount if bill.amount_due > 0 else -amount
    return signed, sales.bank_account_of(bank_account)


def pay_bill(
    *,
    actor: Actor,
    bill: PurchaseBill,
    amount: Decimal,
    day: date,
    reference: str = "",
    bank_account: str | None = None,
) -> Payment:
    """Records a bill paid (or a supplier's credit refunded) without a bank line (see the module)."""
    require(actor, AccountingPerm.POST)
    signed, bank = bill_payment_check(bill=bill, amount=amount, day=day, bank_account=bank_account)
    return _post(actor=actor, document=bill, amount=signed, day=day, reference=reference, bank=bank)


# --- removing a payment ------------------------------------------------------------------------------


def payment_get(*, actor: Actor, payment_id: int, action: Any = "view") -> Payment:
    """A payment of a document the actor may see (and, for "change", change)."""
    payment = Payment.objects.select_related("entry").filter(pk=payment_id).first()
    try:
        if payment is None:
            raise RecordNotFound(label=_("Payment"), id=payment_id, find_with="getInvoice")
        if payment.document_id:
            payment.document = sales.document_get(
                actor=actor, kind=Kind.INVOICE, document_id=payment.document_id, action=action
            )
        else:
            rows = PurchaseBill.objects.all()
            payment.bill = rows.fetch(actor, payment.bill_id, action, lock=action != "view")
    except RecordNotFound:
        raise RecordNotFound(label=_("Payment"), id=payment_id, find_with="getInvoice") from None
    return payment


def reconciled_by(payment: Payment) -> int | None:
    """The bank match that reconciles the payment (made it, or was tied to it), if any."""
    made = MatchLine.objects.filter(payment=payment).values_list("match_id", flat=True).first()
    return made or payment.reconciled_by_id


def removal_check(*, payment: Payment) -> None:
    if payment.removed_at is not None:
        raise PaymentRemoved(id=payment.pk, day=timezone.localdate(payment.removed_at).isoformat())
    match_id = reconciled_by(payment)
    if match_id is not None:
        raise PaymentReconciled(id=payment.pk, match=match_id)


def remove(*, actor: Actor, payment: Payment, day: date | None = None) -> Payment:
    """Removes a payment (see the module): its entry reversed on `day` (default today, never
    before the payment), the document's amount due up again."""
    require(actor, AccountingPerm.DELETE)
    removal_check(payment=payment)
    when = max(day or timezone.localdate(), payment.date)
    payment.reversal = ledger.reverse(
        payment.entry, actor=actor, day=when, memo=f"Removed payment {payment.pk} {payment.reference}".strip()
    )
    payment.removed_at = timezone.now()
    payment.save(update_fields=["reversal", "removed_at"])
    document = payment.paid
    document.amount_paid -= round_money(payment.amount, document.currency)
    if isinstance(document, PurchaseBill):
        follow_bill(document)
    else:
        follow_sales(document)
    sync.queue(payment)
    logger.info("payment %s removed", payment.pk)
    return payment
