"""Revaluation of open foreign-currency balances (Xero's "FX revaluation"), a write of period close.

At a day's rate, every open invoice and bill in another currency than the books' (issued on or
before the day, what was open on it on that day: payments, credit allocated and credit notes dated
after it do not count, so a month revalued late sees the month's end) and every bank account kept in
another currency (its balance in that currency up to the day) is worth another amount of base
currency than the ledger carries it at (a document at its own rate, a bank account at the rates
its postings had). The difference is an *unrealised* gain or loss: one entry on the general
journal (GEN, source `fx-revaluation`, in base currency alone: its lines move no foreign money)
moves each control or bank account by it against the FX account, and its reversal is posted on
the next day at once, so the documents' own rates stay what payments realise against. A dry run
lists what would be posted; a day already revalued answers its entries again (idempotent); the
day and the next must both be open (PERIOD_LOCKED).
"""

import logging
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from django.db.models import QuerySet, Sum

from apps.accounting.lib import ledger
from apps.accounting.lib import rates as rates_
from apps.accounting.lib.money import round_money
from apps.accounting.models import (
    Account,
    BankAccount,
    CreditAllocation,
    JournalEntry,
    JournalLine,
    Payment,
    PurchaseBill,
    SalesDocument,
)
from apps.accounting.permissions import AccountingPerm
from apps.core.actors import Actor, require

logger = logging.getLogger(__name__)
ZERO = Decimal(0)
SOURCE = "fx-revaluation"
JOURNAL = "GEN"
# Posted and not void: what may have been open on an earlier day, paid since or not.
POSTED_INVOICES = (
    SalesDocument.Status.APPROVED,
    SalesDocument.Status.SENT,
    SalesDocument.Status.PART_PAID,
    SalesDocument.Status.PAID,
)
POSTED_BILLS = (PurchaseBill.Status.POSTED, PurchaseBill.Status.PART_PAID, PurchaseBill.Status.PAID)


def _sum(rows: "QuerySet[Payment] | QuerySet[CreditAllocation]") -> Decimal:
    return rows.aggregate(total=Sum("amount"))["total"] or ZERO


def invoice_open_on(invoice: SalesDocument, day: date) -> Decimal:
    """What was due on an invoice on `day`: what is due now, with what settled it after the day
    added back (payments not removed, credit allocated from other notes, and the credit notes
    dated after the day that settled it on their approval: what such a note counts as paid that
    is neither allocated elsewhere nor refunded)."""
    later = _sum(invoice.payments.filter(date__gt=day, removed_at__isnull=True))
    later += _sum(invoice.credits_applied.filter(date__gt=day))
    notes = SalesDocument.objects.filter(
        kind=SalesDocument.Kind.CREDIT_NOTE, origin=invoice, issue_date__gt=day, status__in=POSTED_INVOICES
    )
    for note in notes:
        elsewhere = _sum(note.allocations.all()) + _sum(note.payments.filter(removed_at__isnull=True))
        later += max(note.amount_paid - elsewhere, ZERO)
    return round_money(invoice.amount_due + later, invoice.currency)


def bill_open_on(bill: PurchaseBill, day: date) -> Decimal:
    """What was due on a bill on `day`: `invoice_open_on` for payables (payments not removed and
    the supplier credits dated after the day that settled it, less what those refunded)."""
    later = _sum(bill.payments.filter(date__gt=day, removed_at__isnull=True))
    credits = PurchaseBill.objects.filter(
        origin=bill, issue_date__gt=day, status__in=POSTED_BILLS, total__lt=0, deleted_at__isnull=True
    )
    for credit in credits:
        refunded = _sum(credit.payments.filter(removed_at__isnull=True))
        later += max(refunded - credit.amount_paid, ZERO)
    return round_money(bill.amount_due + later, bill.currency)


@dataclass(frozen=True)
class Item:
    """One balance revalued: its open amount in its currency, what the ledger carries it at in
    base currency (signed, debit positive), what it is worth at the day's rate, the difference."""

    kind: str  # invoice, bill, bank
    id: int
    name: str  # an invoice's number, a bill's supplier and reference, a bank account's name
    currency: str
    open_amount: Decimal
    carried: Decimal
    revalued: Decimal
    account: Account

    @property
    def difference(self) -> Decimal:
        return self.revalued - self.carried


@dataclass
class Revaluation:
    day: date
    base_currency: str
    rates: dict[str, rates_.Rate] = field(default_factory=dict)
    items: list[Item] = field(default_factory=list)
    entry: JournalEntry | None = None
    reversal: JournalEntry | None = None
    already: bool = False  # the day was revalued before: its entries, nothing posted again

    @property
    def gain(self) -> Decimal:
        """The unrealised gain (a loss negative) in base currency: what the balances gained."""
        return sum((item.difference for item in self.items), ZERO)


def _rate(found: Revaluation, currency: str) -> Decimal:
    if currency not in found.rates:
        found.rates[currency] = rates_.rate(source=currency, target=found.base_currency, on=found.day)
    return found.rates[currency].value


def _add_open(
    found: Revaluation, document: SalesDocument | PurchaseBill, name: str, due: Decimal, account: Account
) -> None:
    """An invoice or bill still `due` at the day, carried at its own rate and revalued at the
    day's; a bill is owed, so its balances are credits (negative)."""
    if due <= 0 or document.rate is None:
        return
    base = found.base_currency
    carried = round_money(due * document.rate, base)
    revalued = round_money(due * _rate(found, document.currency), base)
    kind = "invoice"
    if isinstance(document, PurchaseBill):
        kind, carried, revalued = "bill", -carried, -revalued
    found.items.append(Item(kind, document.pk, name, document.currency, due, carried, revalued, account))


def plan(*, day: date) -> Revaluation:
    """What revaluing at `day` moves (see the module): the open foreign-currency documents and bank
    accounts with what each is carried at and worth; a currency without a rate is NO_EXCHANGE_RATE."""
    base = ledger.books().base_currency
    found = Revaluation(day=day, base_currency=base)
    receivable, payable = ledger.account(Account.Role.RECEIVABLE), ledger.account(Account.Role.PAYABLE)
    invoices = (
        SalesDocument.objects.filter(
            kind=SalesDocument.Kind.INVOICE,
            status__in=POSTED_INVOICES,
            issue_date__lte=day,
            deleted_at__isnull=True,
        )
        .exclude(currency=base)
        .order_by("currency", "issue_date", "pk")
    )
    for invoice in invoices:
        _add_open(found, invoice, invoice.number, invoice_open_on(invoice, day), receivable)
    bills = (
        PurchaseBill.objects.filter(
            status__in=POSTED_BILLS, issue_date__lte=day, total__gt=0, deleted_at__isnull=True
        )
        .exclude(currency=base)
        .order_by("currency", "issue_date", "pk")
    )
    for bill in bills:
        _add_open(
            found, bill, f"{bill.supplier_name} {bill.reference}".strip(), bill_open_on(bill, day), payable
        )
    banks = (
        BankAccount.objects.filter(deleted_at__isnull=True).exclude(currency=base).select_related("account")
    )
    for bank in banks.order_by("currency", "pk"):
        lines = JournalLine.objects.filter(
            account=bank.account, entry__currency=bank.currency, entry__date__lte=day
        )
        sums = lines.aggregate(amount=Sum("amount"), base=Sum("base_amount"))
        balance = round_money(sums["amount"] or ZERO, bank.currency)
        if balance == 0 and not sums["base"]:
            continue
        found.items.append(
            Item(
                "bank",
                bank.pk,
                bank.name,
                bank.currency,
                balance,
                round_money(sums["base"] or ZERO, base),
                round_money(balance * _rate(found, bank.currency), base),
                bank.account,
            )
        )
    return found


def check(*, actor: Actor, day: date) -> None:
    """What revalue refuses before anything (and before its confirmation): the permission, and the
    day or the next in a locked period."""
    require(actor, AccountingPerm.POST)
    ledger.check_open(day)
    ledger.check_open(day + timedelta(days=1))


def revalue(*, actor: Actor, day: date, dry_run: bool = False) -> Revaluation:
    """Revalues at `day` (see the module): posts the entry and its reversal on the next day, or,
    `dry_run`, only says what it would post; a day revalued already answers its entries."""
    check(actor=actor, day=day)
    done = JournalEntry.objects.filter(source=SOURCE, date=day, reverses__isnull=True).first()
    if done is not None:
        found = Revaluation(day=day, base_currency=ledger.books().base_currency, already=True)
        found.entry = done
        found.reversal = JournalEntry.objects.filter(reverses=done).first()
        return found
    found = plan(day=day)
    moved = [item for item in found.items if item.difference]
    if dry_run or not moved:
        return found
    legs = [
        ledger.Leg(
            item.account,
            ZERO,
            f"{item.name} {item.open_amount} {item.currency} at {found.rates[item.currency].value}"[:300],
            base_amount=item.difference,
        )
        for item in moved
    ]
    fx = ledger.account(Account.Role.FX)
    legs.append(ledger.Leg(fx, ZERO, "Unrealised FX gain or loss", base_amount=-found.gain))
    memo = f"Unrealised FX revaluation at {day.isoformat()}"
    found.entry = ledger.post(
        journal=JOURNAL,
        day=day,
        currency=found.base_currency,
        legs=legs,
        actor=actor,
        memo=memo,
        source=SOURCE,
        residual_to=fx,
    )
    found.reversal = ledger.reverse(
        found.entry, actor=actor, day=day + timedelta(days=1), memo=f"Reversal of {memo}"
    )
    logger.info("FX revaluation at %s posted as entry %s", day, found.entry.pk)
    return found
