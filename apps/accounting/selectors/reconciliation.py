"""A bank account's reconciliation at a statement date: the statement's closing balance beside the
ledger's, and what stands between them.

- The statement's balance is the figure given (what the bank's statement says), or the account's
  opening balance (its `opening:<id>` entry, the balance before the first line) plus its imported
  and entered lines up to the date: their running balance.
- The ledger's balance is the bank account's ledger account on that day, in its own currency.
- Reconciled: the lines matched (to documents, payments recorded first, or bank transactions);
  each match posted, or tied to postings of, exactly their amount.
- Unreconciled: the statement lines not matched yet (with the bank rules' suggestions), and the
  postings to the account no line reconciles yet (payments recorded without a line, money spent,
  received or transferred without one).
- The difference is the statement's balance less the ledger's: zero once every line is matched
  and every posting reconciled (with the lines' running balance, it is the unmatched lines less
  the unreconciled postings).
- Likely matches (`likely_matches`), per unmatched line: what the matching service would tie it to
  whole, of the same amount and direction: the open invoices and bills (`matching.unmatched_lines`,
  their open lines' sum, in the bank account's currency) and the unreconciled postings above;
  nearest in date first.
"""

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db.models import Exists, OuterRef, Sum

from apps.accounting.lib.money import round_money
from apps.accounting.models import (
    BankAccount,
    BankTransaction,
    Financial,
    JournalLine,
    MatchLine,
    Payment,
    PurchaseBill,
)
from apps.accounting.services import bank as bank_service
from apps.accounting.services import bankrules, matching
from apps.core.actors import Actor

ZERO = Decimal(0)


@dataclass(frozen=True)
class Posting:
    """A posting to the bank account that no statement line reconciles yet."""

    kind: str  # payment, spend, receive, transfer_out, transfer_in
    id: int
    date: date
    amount: Decimal  # signed, in the bank account's currency as far as it is known
    text: str


@dataclass(frozen=True)
class Reconciliation:
    bank: BankAccount
    as_of: date
    statement_balance: Decimal
    statement_given: bool
    opening_balance: Decimal
    ledger_balance: Decimal
    reconciled_lines: int
    reconciled_amount: Decimal
    unmatched: list[Financial]
    unmatched_amount: Decimal
    suggestions: dict[int, bankrules.Suggestion]
    postings: list[Posting]
    postings_amount: Decimal

    @property
    def difference(self) -> Decimal:
        return self.statement_balance - self.ledger_balance


def opening_balance(bank: BankAccount, as_of: date) -> Decimal:
    lines = JournalLine.objects.filter(
        account=bank.account, entry__source=f"opening:{bank.pk}", entry__date__lte=as_of
    )
    return round_money(lines.aggregate(total=Sum("amount"))["total"] or ZERO, bank.currency)


def unreconciled_postings(bank: BankAccount, as_of: date) -> list[Posting]:
    """Payments recorded without a bank line, and bank transactions, that no match ties yet."""
    found = []
    made_by_match = MatchLine.objects.filter(payment=OuterRef("pk"))
    payments = (
        Payment.objects.filter(bank_account=bank.account, removed_at__isnull=True, reconciled_by__isnull=True)
        .filter(date__lte=as_of)
        .exclude(Exists(made_by_match))
        .select_related("document", "bill", "entry")
    )
    for payment in payments.order_by("date", "id"):
        line = payment.entry.lines.filter(account=bank.account).first()
        if line is None:
            continue
        own = line.amount if payment.currency == bank.currency else line.base_amount
        found.append(
            Posting("payment", payment.pk, payment.date, round_money(own, bank.currency), payment.reference)
        )
    rows = BankTransaction.objects.filter(
        bank_account=bank, voided_at__isnull=True, match__isnull=True, date__lte=as_of
    ).order_by("date", "id")
    for row in rows:
        text = " ".join(part for part in (row.contact_name, row.reference) if part)
        found.append(Posting(row.kind, row.pk, row.date, round_money(row.amount, bank.currency), text))
    return found


def reconciliation(
    *, actor: Actor, bank: BankAccount, as_of: date, statement_balance: Decimal | None = None
) -> Reconciliation:
    lines = bank_service.financials(actor=actor, bank=bank, until=as_of)
    matched = lines.filter(match__isnull=False).aggregate(total=Sum("amount"))["total"] or ZERO
    count = lines.filter(match__isnull=False).count()
    unmatched = list(lines.filter(match__isnull=True).order_by("date", "id"))
    unmatched_amount = round_money(sum((line.amount for line in unmatched), ZERO), bank.currency)
    opening = opening_balance(bank, as_of)
    given = statement_balance is not None
    if statement_balance is None:
        statement_balance = opening + round_money(matched, bank.currency) + unmatched_amount
    postings = unreconciled_postings(bank, as_of)
    return Reconciliation(
        bank=bank,
        as_of=as_of,
        statement_balance=round_money(statement_balance, bank.currency),
        statement_given=given,
        opening_balance=opening,
        ledger_balance=bank_service._ledger_balance(bank, as_of),
        reconciled_lines=count,
        reconciled_amount=round_money(matched, bank.currency),
        unmatched=unmatched,
        unmatched_amount=unmatched_amount,
        suggestions=bankrules.suggestions(actor=actor, lines=unmatched),
        postings=postings,
        postings_amount=round_money(sum((posting.amount for posting in postings), ZERO), bank.currency),
    )


@dataclass(frozen=True)
class Likely:
    """What an unmatched line would be matched to whole (`target`, as the page's Match posts it)."""

    kind: str  # invoice, bill, payment, spend, receive, transfer_out, transfer_in
    id: int
    date: date
    amount: Decimal  # signed as the money it moves
    text: str

    @property
    def target(self) -> str:
        kind = self.kind if self.kind in ("invoice", "bill", "payment") else "transaction"
        return f"{kind}:{self.id}"


def line_day(lines: list[Financial]) -> date:
    return max(line.date for line in lines)


def likely_matches(
    *, actor: Actor, bank: BankAccount, lines: list[Financial], postings: list[Posting], limit: int = 5
) -> dict[int, list[Likely]]:
    """Per line (by id), up to `limit` documents and postings of exactly its amount and direction."""
    if not lines:
        return {}
    open_: dict[tuple[str, int], Decimal] = {}
    documents: dict[tuple[str, int], matching.Document] = {}
    for row in matching.unmatched_lines(actor=actor, invoice_id=None, customer=""):
        if row.document.currency != bank.currency:
            continue
        key = ("bill" if matching.is_bill(row.document) else "invoice", row.document.pk)
        documents[key] = row.document
        open_[key] = open_.get(key, ZERO) + row.open
    found = []
    for (kind, pk), amount in open_.items():
        document = documents[(kind, pk)]
        party = document.supplier_name if isinstance(document, PurchaseBill) else document.customer_name
        found.append(
            Likely(
                kind,
                pk,
                document.due_date or document.issue_date or line_day(lines),
                round_money(matching.flow(document) * amount, bank.currency),
                " ".join(part for part in (matching.label(document), party) if part),
            )
        )
    found += [Likely(p.kind, p.id, p.date, p.amount, p.text) for p in postings]
    answer = {}
    for line in lines:
        amount = round_money(line.amount, bank.currency)
        fitting = [likely for likely in found if likely.amount == amount]
        fitting.sort(key=lambda likely: (abs((likely.date - line.date).days), likely.kind, likely.id))
        answer[line.pk] = fitting[:limit]
    return answer
