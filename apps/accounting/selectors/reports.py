"""The books' reports, read from the journal lines (never from counters), in base currency: profit
and loss for a period (optionally beside an earlier one), the balance sheet at a date, receivables
and payables aged at a date, the general ledger (the lines behind any figure, with their running
balance) and the UK VAT return (apps.accounting.lib.vat_return).

Every posted line counts, voids and corrections included as they were posted: a reversing entry
takes its figures back on the day it is dated. The caller checked accounting.view.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django.db.models import F, QuerySet, Sum, Window
from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import VatReturnNotUk, VatSchemeNotSupported
from apps.accounting.lib import ledger, vat_return
from apps.accounting.lib.money import round_money
from apps.accounting.models import (
    Account,
    CreditAllocation,
    JournalLine,
    Payment,
    PurchaseBill,
    SalesDocument,
)
from apps.core.actors import Actor
from apps.core.errors import invalid

ZERO = Decimal(0)
A = Account.Type
# How far back a period may reach, and how long it may be: enough for any year's books.
LONGEST_PERIOD_DAYS = 366 * 10


def check_period(start: date, end: date) -> None:
    """Refuses a period that ends before it starts, or is longer than ten years."""
    if end < start:
        raise invalid("toDate", _("must be on or after {start}"), start=start.isoformat())
    if (end - start).days > LONGEST_PERIOD_DAYS:
        raise invalid("toDate", _("the period may be at most ten years long"))


def previous_period(start: date, end: date, how: str) -> tuple[date, date]:
    """The period to compare with: the same number of days just before (`period`), or the same
    days a year earlier (`year`; 29 February is the 28th)."""
    if how == "year":

        def year_before(day: date) -> date:
            try:
                return day.replace(year=day.year - 1)
            except ValueError:
                return day.replace(year=day.year - 1, day=28)

        return year_before(start), year_before(end)
    length = end - start
    before = start - timedelta(days=1)
    return before - length, before


def year_start(day: date) -> date:
    """The first day of the financial year `day` is in: the books' years are calendar years."""
    return date(day.year, 1, 1)


# --- profit and loss ------------------------------------------------------------------------------


@dataclass
class ReportRow:
    code: str
    name: str
    amount: Decimal
    previous: Decimal | None = None


@dataclass
class Section:
    key: str
    title: str
    currency: str
    compared: bool = False
    rows: list[ReportRow] = field(default_factory=list)

    @property
    def total(self) -> Decimal:
        return round_money(sum((row.amount for row in self.rows), ZERO), self.currency)

    @property
    def previous_total(self) -> Decimal | None:
        if not self.compared:
            return None
        return round_money(sum((row.previous or ZERO for row in self.rows), ZERO), self.currency)


@dataclass
class ProfitAndLoss:
    currency: str
    start: date
    end: date
    compared: tuple[date, date] | None
    sections: list[Section]
    gross_profit: Decimal
    net_profit: Decimal
    previous_gross_profit: Decimal | None
    previous_net_profit: Decimal | None


def _movements(start: date | None, end: date, types: tuple[str, ...]) -> dict[int, Decimal]:
    """Each account's sum of base amounts (debit positive) over the days, by account id."""
    lines = JournalLine.objects.filter(entry__date__lte=end, account__type__in=types)
    if start is not None:
        lines = lines.filter(entry__date__gte=start)
    return {
        row["account_id"]: row["total"] or ZERO
        for row in lines.values("account_id").annotate(total=Sum("base_amount"))
    }


def profit_and_loss(*, start: date, end: date, compare: str | None = None) -> ProfitAndLoss:
    """Income, cost of sales and expenses of the period, per account: income as a positive
    figure, costs as positive figures; gross profit (income less cost of sales) and net profit."""
    check_period(start, end)
    base = ledger.books().base_currency
    types = (A.INCOME, A.EXPENSE)
    now = _movements(start, end, types)
    compared = previous_period(start, end, compare) if compare else None
    then = _movements(compared[0], compared[1], types) if compared else {}
    sections = [
        Section("income", str(_("Income")), base, bool(compared)),
        Section("cost_of_sales", str(_("Cost of sales")), base, bool(compared)),
        Section("expenses", str(_("Expenses")), base, bool(compared)),
    ]
    for account in Account.objects.filter(pk__in=set(now) | set(then)).order_by("code"):
        sign = -1 if account.type == A.INCOME else 1
        amount = round_money(sign * now.get(account.pk, ZERO), base)
        previous = round_money(sign * then.get(account.pk, ZERO), base) if compared else None
        if amount == ZERO and not previous:
            continue
        if account.type == A.INCOME:
            section = sections[0]
        elif account.role == Account.Role.PURCHASES or account.code.startswith("5"):
            section = sections[1]
        else:
            section = sections[2]
        section.rows.append(ReportRow(account.code, account.name, amount, previous))
    income, costs, expenses = sections
    gross = income.total - costs.total
    previous_gross = previous_net = None
    if compared:
        previous_gross = _previous(income) - _previous(costs)
        previous_net = previous_gross - _previous(expenses)
    return ProfitAndLoss(
        currency=base,
        start=start,
        end=end,
        compared=compared,
        sections=sections,
        gross_profit=gross,
        net_profit=gross - expenses.total,
        previous_gross_profit=previous_gross,
        previous_net_profit=previous_net,
    )


def _previous(section: Section) -> Decimal:
    return section.previous_total or round_money(ZERO, section.currency)


# --- balance sheet --------------------------------------------------------------------------------


@dataclass
class BalanceSheet:
    currency: str
    as_of: date
    year_start: date
    assets: Section
    liabilities: Section
    equity: Section

    @property
    def liabilities_and_equity(self) -> Decimal:
        return self.liabilities.total + self.equity.total

    @property
    def balanced(self) -> bool:
        return self.assets.total == self.liabilities_and_equity


def balance_sheet(*, as_of: date) -> BalanceSheet:
    """Assets, liabilities and equity at the end of `as_of`, each account's balance from every line
    to that day. The profit of the financial year so far is equity as "Current year earnings", and
    the profit of earlier years not yet moved to retained earnings is added to the retained earnings
    account, so the sheet balances: assets = liabilities + equity."""
    base = ledger.books().base_currency
    balances = _movements(None, as_of, (A.ASSET, A.LIABILITY, A.EQUITY))
    first = year_start(as_of)
    profit = _movements(None, as_of, (A.INCOME, A.EXPENSE))
    this_year = _movements(first, as_of, (A.INCOME, A.EXPENSE))
    # Credit positive, as the sheet shows profit.
    current = -sum(this_year.values(), ZERO)
    earlier = -sum(profit.values(), ZERO) - current
    assets = Section("assets", str(_("Assets")), base)
    liabilities = Section("liabilities", str(_("Liabilities")), base)
    equity = Section("equity", str(_("Equity")), base)
    retained = ledger.account(Account.Role.EQUITY)
    wanted = set(balances) | ({retained.pk} if earlier else set())
    for account in Account.objects.filter(pk__in=wanted).order_by("code"):
        total = balances.get(account.pk, ZERO)
        if account.type == A.ASSET:
            section, amount = assets, total
        else:
            section, amount = (liabilities if account.type == A.LIABILITY else equity), -total
        if account.pk == retained.pk:
            amount += earlier
        amount = round_money(amount, base)
        if amount != ZERO:
            section.rows.append(ReportRow(account.code, account.name, amount))
    if current:
        equity.rows.append(ReportRow("", str(_("Current year earnings")), round_money(current, base)))
    return BalanceSheet(
        currency=base, as_of=as_of, year_start=first, assets=assets, liabilities=liabilities, equity=equity
    )


# --- aged receivables and payables ----------------------------------------------------------------

BUCKETS = ("current", "1-30", "31-60", "61-90", "90+")
SALES_SOURCES = ("invoice", "credit_note", "payment")
BILL_SOURCES = ("bill", "billpayment")


def bucket_of(days_overdue: int) -> str:
    if days_overdue <= 0:
        return "current"
    if days_overdue <= 30:
        return "1-30"
    if days_overdue <= 60:
        return "31-60"
    if days_overdue <= 90:
        return "61-90"
    return "90+"


@dataclass
class AgedDocument:
    kind: str
    id: int | None
    number: str
    issue_date: date | None
    due_date: date | None
    currency: str
    amount: Decimal  # still due, in the document's currency
    base_amount: Decimal  # the same, in base currency
    days_overdue: int
    bucket: str


@dataclass
class AgedContact:
    contact_id: int | None
    name: str
    buckets: dict[str, Decimal]
    documents: list[AgedDocument] = field(default_factory=list)

    @property
    def total(self) -> Decimal:
        return sum(self.buckets.values(), ZERO)


@dataclass
class Aged:
    side: str  # receivables or payables
    currency: str
    as_of: date
    contacts: list[AgedContact]
    buckets: dict[str, Decimal]
    control_code: str
    control_balance: Decimal

    @property
    def total(self) -> Decimal:
        return sum(self.buckets.values(), ZERO)


def _parse_source(source: str) -> tuple[str, int | None]:
    """The kind and id of what posted an entry: `invoice:12`, `payment:12` (recordPayment), and
    `payment:bill:12` / `payment:credit_note:12` (a bill's payment, a credit note's refund:
    apps.accounting.services.payments), read as the payment of that document."""
    kind, _sep, rest = source.partition(":")
    if kind == "payment" and ":" in rest:
        of, _sep, rest = rest.partition(":")
        kind = "billpayment" if of == "bill" else "payment"
    return kind, int(rest) if rest.isdigit() else None


def aged(*, actor: Actor, side: str, as_of: date) -> Aged:
    """What customers owe (`receivables`) or is owed to suppliers (`payables`) at the end of
    `as_of`, per document and per contact, aged by days past the due date (the issue date when
    there is none) into current, 1-30, 31-60, 61-90 and 90+. Read from the control account's lines
    up to that day, each tied to its document by the entry that posted it (the document, its
    payments, their reversals); an approved credit note's amount set against its invoice is shown
    on the invoice. The totals are the control account's balance at that day; lines of no document
    (a manual journal) are a row of their own."""
    base = ledger.books().base_currency
    receivable = side == "receivables"
    control = ledger.account(Account.Role.RECEIVABLE if receivable else Account.Role.PAYABLE)
    # Owed to us is a debit, owed by us a credit: both shown positive.
    sign = 1 if receivable else -1
    sums: dict[tuple[str, int | None], list[Decimal]] = defaultdict(lambda: [ZERO, ZERO])
    lines = JournalLine.objects.filter(account=control, entry__date__lte=as_of)
    for source, amount, base_amount in lines.values_list("entry__source", "amount", "base_amount"):
        kind, number = _parse_source(source)
        if kind == "allocation" and receivable:
            # A credit applied to another invoice at another rate: its entry moves the receivable
            # between the two in base currency, which the allocation's move below does too.
            continue
        known = SALES_SOURCES if receivable else BILL_SOURCES
        key = ("document", number) if kind in known and number is not None else ("other", None)
        sums[key][0] += sign * amount
        sums[key][1] += sign * base_amount
    ids = [number for (what, number) in sums if what == "document" and number is not None]
    if receivable:
        documents: dict[int, Any] = SalesDocument.objects.restrict(actor).in_bulk(ids)
        _credit_notes_on_invoices(documents, sums, as_of, base)
    else:
        documents = PurchaseBill.objects.restrict(actor).in_bulk(ids)
    contacts: dict[tuple[int | None, str], AgedContact] = {}
    for (_what, number), (amount, base_amount) in sorted(sums.items(), key=lambda item: str(item[0])):
        document = documents.get(number) if number is not None else None
        if base_amount == ZERO and amount == ZERO:
            continue
        if document is None:
            name = str(_("Not tied to a document"))
            owner: tuple[int | None, str] = (None, name)
            row = AgedDocument("other", None, "", None, None, base, base_amount, base_amount, 0, "current")
        else:
            name = document.customer_name if receivable else (document.supplier_name or str(_("Supplier")))
            contact_id = document.contact_id if receivable else document.supplier_id
            owner = (contact_id, name if contact_id is None else "")
            due = document.due_date or document.issue_date
            days = (as_of - due).days if due else 0
            row = AgedDocument(
                document.kind if receivable else "bill",
                document.pk,
                document.number if receivable else document.reference,
                document.issue_date,
                document.due_date,
                document.currency,
                round_money(amount, document.currency),
                round_money(base_amount, base),
                days,
                bucket_of(days),
            )
        found = contacts.get(owner)
        if found is None:
            found = contacts[owner] = AgedContact(
                owner[0], name, dict.fromkeys(BUCKETS, round_money(ZERO, base))
            )
        found.documents.append(row)
        found.buckets[row.bucket] += row.base_amount
    # Contacts by name; the lines of no document last.
    listed = sorted(contacts.values(), key=lambda found: (found.documents[0].id is None, found.name.lower()))
    totals = dict.fromkeys(BUCKETS, round_money(ZERO, base))
    for contact in listed:
        contact.documents.sort(key=lambda row: (row.due_date or row.issue_date or as_of, row.number))
        for bucket, amount in contact.buckets.items():
            totals[bucket] += amount
    balance = round_money(sign * ledger.balance_of(control, as_of=as_of), base)
    return Aged(
        side=side,
        currency=base,
        as_of=as_of,
        contacts=listed,
        buckets=totals,
        control_code=control.code,
        control_balance=balance,
    )


def _credit_notes_on_invoices(
    documents: dict[int, Any], sums: dict[tuple[str, int | None], list[Decimal]], as_of: date, base: str
) -> None:
    """Moves what credit notes settled on invoices from the notes' rows to the invoices', each side
    at its own document's rate: what a note settled on its own invoice when approved
    (sales._allocate_credit: the note's amount paid, less its refunds and its credit applied
    elsewhere) and each credit applied to another invoice (`CreditAllocation`, up to `as_of`)."""

    def move(note: Any, invoice: Any, amount: Decimal) -> None:
        sums[("document", invoice.pk)][0] -= amount
        sums[("document", invoice.pk)][1] -= round_money(amount * invoice.rate, base)
        sums[("document", note.pk)][0] += amount
        sums[("document", note.pk)][1] += round_money(amount * note.rate, base)

    notes = {
        pk: note
        for pk, note in documents.items()
        if note.kind == SalesDocument.Kind.CREDIT_NOTE and note.rate is not None and note.issue_date <= as_of
    }
    applied: dict[int, Decimal] = defaultdict(Decimal)
    allocations = CreditAllocation.objects.filter(note__in=notes.values()).select_related("invoice")
    for allocation in allocations:
        applied[allocation.note_id] += allocation.amount
        if allocation.date <= as_of and allocation.invoice.rate is not None:
            move(notes[allocation.note_id], allocation.invoice, allocation.amount)
    refunded = dict(
        Payment.objects.filter(document__in=notes.values(), removed_at__isnull=True)
        .values("document")
        .annotate(total=Sum("amount"))
        .values_list("document", "total")
    )
    for note in notes.values():
        origin = documents.get(note.origin_id) if note.origin_id is not None else None
        if origin is None or origin.rate is None:
            continue
        on_origin = note.amount_paid - applied[note.pk] - (refunded.get(note.pk) or ZERO)
        if on_origin > 0:
            move(note, origin, min(on_origin, note.total))


# --- general ledger -------------------------------------------------------------------------------


def account_by_code(code: str) -> Account:
    found = Account.objects.filter(code=code).first()
    if found is None:
        raise invalid("account", _("there is no account {code}"), code=code)
    return found


def ledger_lines(
    *, account: Account | None, start: date, end: date, tax_code: str | None = None
) -> QuerySet[JournalLine]:
    """The journal lines of the period (of one account, or all; of one tax type), each with its
    running balance within the period (`running`, per account), oldest first by account."""
    check_period(start, end)
    lines = JournalLine.objects.filter(entry__date__gte=start, entry__date__lte=end)
    if account is not None:
        lines = lines.filter(account=account)
    if tax_code:
        lines = lines.filter(tax_type__code=tax_code)
    order = [F("entry__date").asc(), F("entry_id").asc(), F("id").asc()]
    return (
        lines.select_related("entry", "entry__journal", "account", "tax_type")
        .annotate(running=Window(Sum("base_amount"), partition_by=[F("account_id")], order_by=order))
        .order_by("account__code", "entry__date", "entry_id", "id")
    )


def opening_balances(*, start: date, accounts: set[int]) -> dict[int, Decimal]:
    """Each account's balance at the end of the day before `start` (base currency, debit positive)."""
    rows = JournalLine.objects.filter(account_id__in=accounts, entry__date__lt=start)
    return {
        row["account_id"]: row["total"] or ZERO
        for row in rows.values("account_id").annotate(total=Sum("base_amount"))
    }


def documents_of(sources: set[str]) -> dict[str, str]:
    """The number (or a bill's reference) of the documents that posted entries, by source."""
    sales: dict[int, list[str]] = defaultdict(list)
    bills: dict[int, list[str]] = defaultdict(list)
    for source in sources:
        kind, pk = _parse_source(source)
        if pk is None:
            continue
        if kind in SALES_SOURCES:
            sales[pk].append(source)
        elif kind in BILL_SOURCES:
            bills[pk].append(source)
    found: dict[str, str] = {}
    for pk, number in SalesDocument.objects.filter(pk__in=sales).values_list("pk", "number"):
        found.update(dict.fromkeys(sales[pk], number))
    for pk, reference, supplier in PurchaseBill.objects.filter(pk__in=bills).values_list(
        "pk", "reference", "supplier_name"
    ):
        found.update(dict.fromkeys(bills[pk], " ".join(part for part in (supplier, reference) if part)))
    return found


# --- VAT return -----------------------------------------------------------------------------------


def vat(*, start: date, end: date, scheme: str = "invoice") -> vat_return.VatReturn:
    """The UK VAT return of the period (see apps.accounting.lib.vat_return): refused for books that
    do not keep UK VAT, and for the cash accounting and flat rate schemes."""
    check_period(start, end)
    books = ledger.books()
    if books.tax_regime != "UK VAT" or books.base_currency != "GBP":
        raise VatReturnNotUk(regime=books.tax_regime, currency=books.base_currency)
    if scheme != "invoice":
        raise VatSchemeNotSupported(scheme=scheme)
    lines = JournalLine.objects.filter(
        entry__date__gte=start, entry__date__lte=end, tax_type__isnull=False
    ).values_list(
        "entry__journal__code",
        "account__type",
        "account__role",
        "base_amount",
        "tax_type__code",
        "tax_type__kind",
        "tax_type__rate",
        "tax_type__report_box",
    )
    taxed = []
    for journal, account_type, role, amount, code, kind, rate, box in lines:
        on_tax = role == Account.Role.TAX
        taxed.append(
            vat_return.TaxedLine(
                side=vat_return.side_of(
                    journal=journal, account_type=account_type, on_tax_account=on_tax, amount=amount
                ),
                on_tax_account=on_tax,
                tax_code=code,
                kind=kind,
                rate=rate,
                box=box.strip(),
                amount=amount,
            )
        )
    return vat_return.compute(taxed, currency=books.base_currency)
