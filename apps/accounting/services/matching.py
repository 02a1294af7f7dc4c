"""Matching bank lines (financials) to the lines of invoices and bills, and undoing it.

A match ties one or more financials of one bank account to one or more document lines: one
financial paying several invoices or bills, several financials paying one, or both. The amounts
must tie exactly: the financials' sum equals what the match takes of the lines, invoices counting
as money in and bills as money out (a supplier's credit, a bill with a negative total, as money
in: a refund). A line is taken whole by default, or in part (`amount`); what is left of it can be
matched later. What a match takes of one document is posted as one payment of the match's date:
for an invoice through the area's payment function (`sales.record_payment`), for a bill here
(`_pay_bill`); both post through `ledger.post` (the bank account's ledger account against the
receivable or payable, cleared at the document's rate, the FX difference realised). Matched
financials and documents are locked (a matched financial is not changed or deleted, a paid
invoice is not voided) until `unmatch` reverses the match's entries, takes its payments off the
documents and frees the financials.

A bank line also reconciles a payment recorded without one (recordPayment, a refund, a bill paid
with recordBillPayment): the match names the payment (`payment_ids`), which counts towards the
sums as the money it moved, and posts nothing again; so a document is never paid twice by the
two paths. Undoing such a match leaves the payment, unreconciled.

Candidates (`candidates`) are the unmatched financials of the document's currency and direction,
ranked by amount (equal, or a part of what is due), date (near the due or issue date) and
reference (the document's number or reference, or the other party, named in the line's text).
"""

import logging
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any, cast

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import BankTransactionVoided, NotTied, PaymentRemoved
from apps.accounting.lib import ledger
from apps.accounting.lib.money import round_money
from apps.accounting.models import (
    Account,
    BankAccount,
    BankMatch,
    BankTransaction,
    Financial,
    JournalEntry,
    MatchLine,
    Payment,
    PurchaseBill,
    PurchaseBillLine,
    SalesDocument,
    SalesLine,
)
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import payments, sales, sync
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import RecordNotFound, invalid

logger = logging.getLogger(__name__)
ZERO = Decimal(0)
Status = SalesDocument.Status
BillStatus = PurchaseBill.Status
Document = SalesDocument | PurchaseBill
Line = SalesLine | PurchaseBillLine


@dataclass(frozen=True)
class Item:
    """What to match of one document: `line` (1-based position) or all its open lines, and up to
    `amount` of them (default: all that is open)."""

    kind: str  # invoice | bill
    document_id: int
    line: int | None = None
    amount: Decimal | None = None


@dataclass
class OpenLine:
    line: Line
    gross: Decimal  # signed as the document (a credit's lines are negative)
    matched: Decimal  # a magnitude
    # Settled otherwise (a payment recorded without a bank line, a credit note), a magnitude.
    settled: Decimal = ZERO

    @property
    def open(self) -> Decimal:
        return abs(self.gross) - self.matched - self.settled


def is_bill(document: Document) -> bool:
    return isinstance(document, PurchaseBill)


def label(document: Document) -> str:
    if isinstance(document, PurchaseBill):
        return f"bill {document.reference or document.pk}"
    return str(document.number)


def flow(document: Document) -> int:
    """+1 when matching the document brings money in (an invoice, a supplier's credit), -1 out."""
    if is_bill(document):
        return 1 if document.total < 0 else -1
    return 1


def open_lines(document: Document) -> list[OpenLine]:
    """The document's lines with their gross (net + tax; the last line takes what document-level
    tax rounding leaves) and what matches took of them so far."""
    lines: list[Any] = list(document.lines.all())
    gross = {line.pk: round_money(line.net + line.tax, document.currency) for line in lines}
    if lines:
        gross[lines[-1].pk] += document.total - sum(gross.values(), ZERO)
    column = "bill_line" if is_bill(document) else "sales_line"
    taken: dict[int, Decimal] = dict(
        MatchLine.objects.filter(**{f"{column}__in": lines})
        .values_list(column)
        .annotate(total=Sum("amount"))
        .values_list(column, "total")
    )
    found = [
        OpenLine(line, gross[line.pk], round_money(taken.get(line.pk) or ZERO, document.currency))
        for line in lines
    ]
    # What is still due caps what is open: what was settled without a match (recordPayment, a
    # credit note) takes the lines in their order.
    left = sum((line.open for line in found), ZERO) - max(abs(document.amount_due), ZERO)
    for line in found:
        if left <= 0:
            break
        line.settled = min(line.open, left)
        left -= line.settled
    return found


def document_of(actor: Actor, item: Item, action: Any = "change") -> Document:
    if item.kind == "bill":
        rows = PurchaseBill.objects.all()
        bill: PurchaseBill = rows.fetch(actor, item.document_id, action, lock=action != "view")
        if bill.status not in (BillStatus.POSTED, BillStatus.PART_PAID) or bill.rate is None:
            raise sales.WrongStatus(
                label=_("Purchase bill"),
                id=bill.pk,
                status=bill.get_status_display(),
                wanted=_("posted, with an amount due"),
            )
        return bill
    document = sales.document_get(actor=actor, kind="invoice", document_id=item.document_id, action=action)
    if document.kind != SalesDocument.Kind.INVOICE or document.status not in sales.OPEN:
        raise sales.WrongStatus(
            label=sales.LABELS[document.kind],
            id=document.pk,
            status=document.get_status_display(),
            wanted=_("an approved or sent invoice with an amount due"),
        )
    return document


def _allocate(document: Document, item: Item) -> list[tuple[Line, Decimal]]:
    lines = [line for line in open_lines(document) if line.open > 0]
    if item.line is not None:
        lines = [line for line in lines if line.line.position == item.line - 1]
        if not lines:
            raise invalid(
                "line",
                _("{number} has no open line {line} (getUnmatchedInvoiceLines lists them)"),
                number=label(document),
                line=item.line,
            )
    if not lines:
        raise invalid("lines", _("{number} has nothing left to match"), number=label(document))
    available = sum((line.open for line in lines), ZERO)
    left = available if item.amount is None else item.amount
    if left <= 0:
        raise invalid("amount", _("must be more than zero"))
    if left > available:
        raise invalid(
            "amount",
            _("{amount} is more than the {open} {currency} open on {number}"),
            amount=left,
            open=available,
            currency=document.currency,
            number=label(document),
        )
    taken = []
    for line in lines:
        part = min(line.open, left)
        if part > 0:
            taken.append((line.line, part))
            left -= part
    return taken


def _recorded(actor: Actor, payment_ids: list[int], bank: BankAccount) -> list[Payment]:
    """The payments recorded without a bank line (recordPayment, a refund, a bill paid) that the
    bank lines reconcile: live, not reconciled yet, on the bank lines' account."""
    found = []
    for pk in dict.fromkeys(payment_ids):
        payment = payments.payment_get(actor=actor, payment_id=pk, action="change")
        if payment.removed_at is not None:
            raise PaymentRemoved(id=payment.pk, day=timezone.localdate(payment.removed_at).isoformat())
        match_id = payments.reconciled_by(payment)
        if match_id is not None:
            raise invalid(
                "paymentIds",
                _("payment {id} is reconciled already (bank match {match})"),
                id=payment.pk,
                match=match_id,
            )
        if payment.bank_account_id != bank.account_id:
            raise invalid(
                "paymentIds",
                _("payment {id} went to account {code}, not to bank account {bank}"),
                id=payment.pk,
                code=payment.bank_account.code,
                bank=bank.name,
            )
        # A payment in another currency reached a base-currency account at what arrived in base
        # (bank_flow); an account in a foreign currency takes its own currency only.
        if payment.currency != bank.currency and bank.currency != ledger.books().base_currency:
            raise invalid(
                "paymentIds",
                _("payment {id} is in {currency}, bank account {bank} in {bank_currency}"),
                id=payment.pk,
                currency=payment.currency,
                bank=bank.name,
                bank_currency=bank.currency,
            )
        found.append(payment)
    return found


def _transactions(actor: Actor, transaction_ids: list[int], bank: BankAccount) -> list[BankTransaction]:
    """The bank transactions (money spent, received, a transfer's side) the bank lines reconcile:
    live, not voided, not reconciled yet, on the bank lines' bank account."""
    found = []
    for pk in dict.fromkeys(transaction_ids):
        row = BankTransaction.objects.fetch(actor, pk, "change", lock=True)
        if row.voided_at is not None:
            raise BankTransactionVoided(id=row.pk, day=timezone.localdate(row.voided_at).isoformat())
        if row.match_id is not None:
            raise invalid(
                "transactionIds",
                _("bank transaction {id} is reconciled already (bank match {match})"),
                id=row.pk,
                match=row.match_id,
            )
        if row.bank_account_id != bank.pk:
            raise invalid(
                "transactionIds",
                _("bank transaction {id} is on another bank account than {bank}"),
                id=row.pk,
                bank=bank.name,
            )
        found.append(row)
    return found


def match(
    *,
    actor: Actor,
    financial_ids: list[int],
    items: list[Item],
    payment_ids: list[int] | None = None,
    transaction_ids: list[int] | None = None,
) -> BankMatch:
    """Ties the financials to the items' lines, to payments already recorded (`payment_ids`) and
    to money spent, received or transferred without a document (`transaction_ids`, bank
    transactions): those are reconciled, nothing is posted again (see the module). Or raises and
    changes nothing."""
    require(actor, AccountingPerm.POST)
    if not items and not payment_ids and not transaction_ids:
        raise invalid(
            "lines",
            _("name at least one invoice or bill line, a recorded payment or a bank transaction"),
        )
    with transaction.atomic():
        rows = Financial.objects.select_related("bank_account__account")
        found = [rows.fetch(actor, pk, "change", lock=True) for pk in dict.fromkeys(financial_ids)]
        bank = found[0].bank_account
        for financial in found:
            if financial.match_id is not None:
                raise sales.WrongStatus(
                    label=_("Bank line"),
                    id=financial.pk,
                    status=_("matched"),
                    wanted=_("unmatched (unmatchPurchaseInvoiceLine undoes a match)"),
                )
            if financial.bank_account_id != bank.pk:
                raise invalid("financialIds", _("all bank lines of a match are on one bank account"))
        documents: dict[tuple[str, int], Document] = {}
        taken: dict[tuple[str, int], list[tuple[Line, Decimal]]] = defaultdict(list)
        base = ledger.books().base_currency
        for item in items:
            key = (item.kind, item.document_id)
            document = documents.get(key) or document_of(actor, item)
            documents[key] = document
            amount = None if item.amount is None else round_money(item.amount, document.currency)
            item = Item(item.kind, item.document_id, item.line, amount)
            # A document in another currency is paid into a base-currency account at what arrived.
            if document.currency != bank.currency and bank.currency != base:
                raise invalid(
                    "lines",
                    _("{number} is in {currency}, the bank account in {bank}"),
                    number=label(document),
                    currency=document.currency,
                    bank=bank.currency,
                )
            already = {line.pk for line, _part in taken[key]}
            for line, part in _allocate(document, item):
                if line.pk in already:
                    raise invalid("lines", _("a line is named twice"))
                taken[key].append((line, part))
        recorded = _recorded(actor, payment_ids or [], bank)
        spent = _transactions(actor, transaction_ids or [], bank)
        in_bank = round_money(sum((financial.amount for financial in found), ZERO), bank.currency)
        on_lines = sum(
            (flow(documents[key]) * part for key, parts in taken.items() for _l, part in parts), ZERO
        ) + sum((payments.bank_flow(payment, bank.currency) for payment in recorded), ZERO)
        on_lines += sum((round_money(row.amount, bank.currency) for row in spent), ZERO)
        foreign = [key for key, document in documents.items() if document.currency != bank.currency]
        if foreign:
            _foreign_check(documents, foreign, in_bank, bool(recorded or spent))
        elif in_bank != on_lines:
            raise NotTied(financials=str(in_bank), lines=str(on_lines), currency=bank.currency)
        received = in_bank if foreign else None
        day = max(financial.date for financial in found)
        made = BankMatch.objects.create(
            date=day, currency=bank.currency, total=in_bank, created_by_id=actor_id(actor)
        )
        texts = [f.reference or f.description[:40] for f in found if f.reference or f.description]
        reference = f"bank match {made.pk} {' '.join(dict.fromkeys(texts))}".strip()[:100]
        for key, parts in taken.items():
            document = documents[key]
            total = sum((part for _line, part in parts), ZERO)
            if isinstance(document, PurchaseBill):
                entry = _pay_bill(
                    actor=actor,
                    bill=document,
                    magnitude=total,
                    day=day,
                    bank=bank,
                    memo=reference,
                    received=received,
                )
                MatchLine.objects.bulk_create(
                    MatchLine(match=made, bill_line=cast(PurchaseBillLine, line), amount=part, entry=entry)
                    for line, part in parts
                )
            else:
                payment = sales.record_payment(
                    actor=actor,
                    document=document,
                    amount=total,
                    day=day,
                    reference=reference,
                    bank_account=bank.account.code,
                    received=received,
                )
                MatchLine.objects.bulk_create(
                    MatchLine(
                        match=made,
                        sales_line=cast(SalesLine, line),
                        amount=part,
                        payment=payment,
                        entry=payment.entry,
                    )
                    for line, part in parts
                )
        Financial.objects.filter(pk__in=[financial.pk for financial in found]).update(match=made)
        Payment.objects.filter(pk__in=[payment.pk for payment in recorded]).update(reconciled_by=made)
        BankTransaction.objects.filter(pk__in=[row.pk for row in spent]).update(match=made)
    logger.info("bank match %s: %s bank line(s), %s document(s)", made.pk, len(found), len(taken))
    return made


def _foreign_check(
    documents: dict[tuple[str, int], Document], foreign: list[tuple[str, int]], in_bank: Decimal, others: bool
) -> None:
    """A document in another currency than the (base-currency) bank account is matched alone: the
    bank lines are what arrived or left for it, in the direction it moves money."""
    document = documents[foreign[0]]
    if len(documents) > 1 or others:
        raise invalid(
            "lines",
            _("{number} is in {currency}: match it alone, the bank lines being what arrived for it"),
            number=label(document),
            currency=document.currency,
        )
    if in_bank * flow(document) <= 0:
        raise invalid(
            "financialIds",
            _("the bank lines move money the other way than {number}"),
            number=label(document),
        )


def _pay_bill(
    *,
    actor: Actor,
    bill: PurchaseBill,
    magnitude: Decimal,
    day: date,
    bank: BankAccount,
    memo: str,
    received: Decimal | None = None,
) -> JournalEntry:
    """Posts what a match pays of a bill (or receives of a supplier's credit): the payable cleared
    at the bill's rate against the bank at the day's (or at `received`, what the base-currency
    bank lines moved, signed), the difference to the FX account."""
    signed = -flow(bill) * magnitude  # what is paid towards the bill's total (a credit: negative)
    if abs(signed) > abs(bill.amount_due):
        raise invalid(
            "amount",
            _("{amount} is more than the {due} {currency} due on {bill}"),
            amount=magnitude,
            due=abs(bill.amount_due),
            currency=bill.currency,
            bill=label(bill),
        )
    if bill.issue_date and day < bill.issue_date:
        raise invalid("financialIds", _("the bank line is before the bill's issue date"))
    assert bill.rate is not None
    base = ledger.books().base_currency
    entry = ledger.post(
        journal="BNK",
        day=day,
        currency=bill.currency,
        legs=[
            ledger.Leg(
                ledger.account(Account.Role.PAYABLE),
                signed,
                label(bill),
                base_amount=round_money(signed * bill.rate, base),
            ),
            ledger.Leg(bank.account, -signed, f"Payment {label(bill)}", base_amount=received),
        ],
        actor=actor,
        memo=memo,
        source=f"billpayment:{bill.pk}",
        residual_to=ledger.account(Account.Role.FX),
    )
    _bill_paid(bill, signed)
    sync.queue(entry)
    return entry


def _bill_paid(bill: PurchaseBill, signed: Decimal) -> None:
    bill.amount_paid += signed
    if bill.amount_due == 0:
        bill.status = BillStatus.PAID
    else:
        bill.status = BillStatus.PART_PAID if bill.amount_paid else BillStatus.POSTED
    bill.save(update_fields=["amount_paid", "status", "updated_at"])


def match_get(*, actor: Actor, match_id: int) -> BankMatch:
    """A match the actor may see (its bank lines are theirs to see)."""
    visible = Financial.objects.restrict(actor).filter(match_id=match_id)
    if not visible.exists():
        raise RecordNotFound(label=_("Bank match"), id=match_id, find_with="getMatchedFinancialLines")
    return BankMatch.objects.get(pk=match_id)


def unmatch(*, actor: Actor, made: BankMatch, day: date | None = None) -> list[int]:
    """Undoes a match: each payment it posted is reversed and taken off its document, whose status
    goes back; its financials are unmatched. Answers the freed financials' ids.

    The reversal is dated `day` if given (never before the match), else the match's own date, so
    that a wrong match undone later leaves its month as if it had never been made; when that month
    is locked, the first day after the lock date (the books of a closed month stay as they were
    reported)."""
    require(actor, AccountingPerm.DELETE)
    with transaction.atomic():
        made = BankMatch.objects.select_for_update().get(pk=made.pk)
        if day is not None:
            when = max(day, made.date)
        else:
            lock = ledger.books().lock_date
            when = made.date if lock is None or made.date > lock else lock + timedelta(days=1)
        lines = list(made.lines.select_related("entry", "bill_line"))
        payment_ids = {line.payment_id for line in lines if line.payment_id}
        for payment in Payment.objects.filter(pk__in=payment_ids).select_related("entry"):
            ledger.reverse(payment.entry, actor=actor, day=when, memo=f"Unmatched bank match {made.pk}")
            assert payment.document_id is not None  # a match pays invoices
            document = SalesDocument.objects.select_for_update().get(pk=payment.document_id)
            document.amount_paid -= payment.amount
            if document.amount_paid > 0:
                document.status = Status.PART_PAID
            else:
                document.status = Status.SENT if document.sent_at else Status.APPROVED
            document.save(update_fields=["amount_paid", "status", "updated_at"])
        bills: dict[int, Decimal] = defaultdict(Decimal)
        entries: dict[int, JournalEntry] = {}
        for line in lines:
            if line.bill_line is not None and line.entry is not None:
                bills[line.bill_line.bill_id] += line.amount
                entries[line.entry.pk] = line.entry
        for entry in entries.values():
            ledger.reverse(entry, actor=actor, day=when, memo=f"Unmatched bank match {made.pk}")
        for bill_id, magnitude in bills.items():
            bill = PurchaseBill.objects.select_for_update().get(pk=bill_id)
            _bill_paid(bill, flow(bill) * magnitude)
        # Payments recorded before and reconciled by the match stay, unreconciled.
        Payment.objects.filter(reconciled_by=made).update(reconciled_by=None)
        freed = list(made.financials.values_list("pk", flat=True))
        made.financials.update(match=None)
        made.lines.all().delete()
        Payment.objects.filter(pk__in=payment_ids).delete()
        made.delete()
    logger.info("bank match undone; %s bank line(s) freed", len(freed))
    return freed


# --- reads ----------------------------------------------------------------------------------------


def matches(
    *, actor: Actor, financial_id: int | None, invoice_id: int | None, bank: BankAccount | None
) -> Any:
    rows = BankMatch.objects.filter(financials__in=Financial.objects.restrict(actor)).distinct()
    if financial_id is not None:
        rows = rows.filter(financials__pk=financial_id)
    if invoice_id is not None:
        rows = rows.filter(lines__sales_line__document_id=invoice_id)
    if bank is not None:
        rows = rows.filter(financials__bank_account=bank)
    return rows.order_by("-date", "-id")


@dataclass(frozen=True)
class UnmatchedLine:
    document: Document
    line: Line
    gross: Decimal
    open: Decimal


def unmatched_lines(*, actor: Actor, invoice_id: int | None, customer: str) -> list[UnmatchedLine]:
    """Open lines of issued invoices (approved, sent, part paid) and of posted bills, oldest due
    first; `customer` words are looked for in the customer's or supplier's name."""
    invoices = SalesDocument.objects.restrict(actor).filter(
        kind=SalesDocument.Kind.INVOICE, status__in=sales.OPEN
    )
    bills = PurchaseBill.objects.restrict(actor).filter(status__in=(BillStatus.POSTED, BillStatus.PART_PAID))
    if invoice_id is not None:
        invoices = invoices.filter(pk=invoice_id)
        bills = bills.none()
    for word in customer.split():
        invoices = invoices.filter(customer_name__icontains=word)
        bills = bills.filter(supplier_name__icontains=word)
    documents: list[Any] = [*invoices.order_by("id")[:200], *bills.order_by("id")[:200]]
    documents.sort(key=lambda d: (d.due_date or d.issue_date or date.max, d.issue_date or date.max, d.pk))
    found = []
    for document in documents:
        for line in open_lines(document):
            if line.open > 0:
                found.append(UnmatchedLine(document, line.line, line.gross, line.open))
    return found


@dataclass
class Candidate:
    financial: Financial
    score: float
    reasons: list[str] = field(default_factory=list)


def _words(text: str) -> set[str]:
    return {word for word in re.split(r"[^0-9a-z]+", text.lower()) if len(word) > 2}


def candidates(
    *,
    actor: Actor,
    amount: Decimal,
    currency: str,
    on: date,
    references: list[str],
    names: list[str],
    limit: int,
) -> list[Candidate]:
    """Unmatched financials in `currency` with the sign of `amount`, best first (see the module)."""
    rows = Financial.objects.restrict(actor).filter(match__isnull=True, bank_account__currency=currency)
    rows = rows.filter(amount__gt=0) if amount > 0 else rows.filter(amount__lt=0)
    references = [reference.lower() for reference in references if reference]
    name_words = set().union(*(_words(name) for name in names)) if names else set()
    ranked = []
    for financial in rows.select_related("bank_account").order_by("-date", "-id")[:1000]:
        reasons = []
        difference = abs(abs(financial.amount) - abs(amount))
        if difference == 0:
            amount_score = 1.0
            reasons.append("amount equal")
        elif abs(financial.amount) < abs(amount):
            amount_score = 0.6 * float(abs(financial.amount) / abs(amount))
            reasons.append("part of the amount")
        else:
            amount_score = max(0.0, 0.3 - float(difference / abs(amount)))
        days = abs((financial.date - on).days)
        date_score = max(0.0, 1 - days / 60)
        if days <= 60:
            reasons.append(f"{days} day(s) from {on.isoformat()}")
        text = f"{financial.description} {financial.reference} {financial.counterparty}".lower()
        reference_score = 0.0
        named = [reference for reference in references if reference in text]
        if named:
            reference_score = 1.0
            reasons.append(f"names {named[0].upper()}")
        elif name_words:
            share = len(name_words & _words(text)) / len(name_words)
            if share:
                reference_score = 0.6 * share
                reasons.append("names the customer")
        score = round(0.5 * amount_score + 0.2 * date_score + 0.3 * reference_score, 3)
        if score > 0.1:
            ranked.append(Candidate(financial, score, reasons))
    ranked.sort(key=lambda candidate: (-candidate.score, candidate.financial.date, candidate.financial.pk))
    return ranked[:limit]
