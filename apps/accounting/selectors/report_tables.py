"""The reports as the Accounting page shows and exports them: each a title, the lines naming its
period, and its tables (apps.accounting.lib.exports.Table), made from apps.accounting.selectors.reports.
The page, its CSV and its PDF show the same tables."""

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from apps.accounting.lib import ledger
from apps.accounting.lib.exports import Table
from apps.accounting.lib.money import round_money
from apps.accounting.lib.vat_return import BOXES
from apps.accounting.selectors import reports
from apps.core.actors import Actor

ZERO = Decimal(0)
# The reports of the section, by the name their export is asked for.
REPORTS = (
    "profit-and-loss",
    "balance-sheet",
    "trial-balance",
    "aged-receivables",
    "aged-payables",
    "general-ledger",
    "vat-return",
)
# The general ledger's export holds at most this many lines (the page shows them paged).
LEDGER_EXPORT_LINES = 20_000


@dataclass(frozen=True)
class Period:
    start: date
    end: date
    compare: str | None = None


def _section_table(
    section: reports.Section,
    columns: list[str],
    totals: list[list[Any]],
    numeric: frozenset[int],
    *,
    compared: bool = False,
) -> Table:
    """A section of accounts as a table: a row an account (with its compared amount if
    `compared`), then `totals`."""
    rows = []
    for row in section.rows:
        values: list[Any] = [f"{row.code} {row.name}".strip(), row.amount]
        if compared:
            values.append(row.previous)
        rows.append(values)
    return Table(section.title, columns, rows, totals, numeric)


def profit_and_loss(period: Period) -> tuple[str, list[str], list[Table]]:
    found = reports.profit_and_loss(start=period.start, end=period.end, compare=period.compare)
    compared = found.compared is not None
    columns = [_("Account"), found.currency]
    if found.compared:
        columns.append(_("%(start)s to %(end)s") % {"start": found.compared[0], "end": found.compared[1]})
    numeric = frozenset(range(1, len(columns)))
    tables = []
    for section in found.sections:
        total: list[Any] = [_("Total %(section)s") % {"section": section.title.lower()}, section.total]
        if compared:
            total.append(section.previous_total)
        tables.append(_section_table(section, columns, [total], numeric, compared=compared))
    results: list[list[Any]] = [[_("Gross profit"), found.gross_profit], [_("Net profit"), found.net_profit]]
    if compared:
        results[0].append(found.previous_gross_profit)
        results[1].append(found.previous_net_profit)
    tables.append(Table(_("Profit"), columns, [], results, numeric))
    heading = [_("%(start)s to %(end)s, in %(currency)s") % _facts(period.start, period.end, found.currency)]
    return _("Profit and loss"), heading, tables


def balance_sheet(period: Period) -> tuple[str, list[str], list[Table]]:
    found = reports.balance_sheet(as_of=period.end)
    columns = [_("Account"), found.currency]
    numeric = frozenset({1})
    tables = [
        _section_table(found.assets, columns, [[_("Total assets"), found.assets.total]], numeric),
        _section_table(
            found.liabilities, columns, [[_("Total liabilities"), found.liabilities.total]], numeric
        ),
        _section_table(
            found.equity,
            columns,
            [
                [_("Total equity"), found.equity.total],
                [_("Total liabilities and equity"), found.liabilities_and_equity],
            ],
            numeric,
        ),
    ]
    heading = [_("At %(date)s, in %(currency)s") % {"date": found.as_of, "currency": found.currency}]
    return _("Balance sheet"), heading, tables


def trial_balance(period: Period) -> tuple[str, list[str], list[Table]]:
    found = ledger.trial_balance(as_of=period.end)
    table = Table(
        _("Trial balance"),
        [_("Account"), _("Type"), _("Debit"), _("Credit")],
        [[f"{row.code} {row.name}", row.type, row.debit or None, row.credit or None] for row in found.rows],
        [[_("Total"), "", found.total_debit, found.total_credit]],
        frozenset({2, 3}),
    )
    heading = [_("At %(date)s, in %(currency)s") % {"date": period.end, "currency": found.currency}]
    return _("Trial balance"), heading, [table]


def aged(actor: Actor, side: str, period: Period) -> tuple[str, list[str], list[Table]]:
    found = reports.aged(actor=actor, side=side, as_of=period.end)
    buckets = [_("Current"), _("1-30 days"), _("31-60 days"), _("61-90 days"), _("Over 90 days"), _("Total")]
    numeric = frozenset(range(1, 7))
    contacts = Table(
        _("Per contact"),
        [_("Contact"), *buckets],
        [[contact.name, *contact.buckets.values(), contact.total] for contact in found.contacts],
        [[_("Total"), *found.buckets.values(), found.total]],
        numeric,
    )
    documents = Table(
        _("Per document"),
        [
            _("Contact"),
            _("Document"),
            _("Issued"),
            _("Due"),
            _("Days overdue"),
            _("Due in its currency"),
            found.currency,
        ],
        [
            [
                contact.name,
                row.number or row.kind,
                row.issue_date,
                row.due_date,
                row.days_overdue,
                f"{row.amount} {row.currency}",
                row.base_amount,
            ]
            for contact in found.contacts
            for row in contact.documents
        ],
        [
            [
                _("Control account %(code)s") % {"code": found.control_code},
                "",
                "",
                "",
                "",
                "",
                found.control_balance,
            ]
        ],
        frozenset({4, 5, 6}),
    )
    title = _("Aged receivables") if side == "receivables" else _("Aged payables")
    heading = [
        _("At %(date)s, in %(currency)s, by due date") % {"date": found.as_of, "currency": found.currency}
    ]
    return title, heading, [contacts, documents]


def general_ledger(period: Period, *, limit: int = LEDGER_EXPORT_LINES) -> tuple[str, list[str], list[Table]]:
    base = ledger.books().base_currency
    lines = list(reports.ledger_lines(account=None, start=period.start, end=period.end)[:limit])
    opening = reports.opening_balances(start=period.start, accounts={line.account_id for line in lines})
    documents = reports.documents_of({line.entry.source for line in lines})
    table = Table(
        _("Journal lines"),
        [
            _("Date"),
            _("Account"),
            _("Journal"),
            _("Document"),
            _("Description"),
            _("Debit"),
            _("Credit"),
            _("Balance"),
        ],
        [ledger_row(line, opening, documents, base) for line in lines],
        numeric=frozenset({5, 6, 7}),
    )
    heading = [_("%(start)s to %(end)s, in %(currency)s") % _facts(period.start, period.end, base)]
    return _("General ledger"), heading, [table]


def ledger_row(line: Any, opening: dict[int, Decimal], documents: dict[str, str], base: str) -> list[Any]:
    value = round_money(line.base_amount, base)
    return [
        line.entry.date,
        f"{line.account.code} {line.account.name}",
        line.entry.journal.code,
        documents.get(line.entry.source, line.entry.source),
        line.description or line.entry.memo,
        value if value > 0 else None,
        -value if value < 0 else None,
        round_money(opening.get(line.account_id, ZERO) + line.running, base),
    ]


def vat_return_tables(period: Period) -> tuple[str, list[str], list[Table]]:
    found = reports.vat(start=period.start, end=period.end)
    boxes = Table(
        _("Boxes"),
        [_("Box"), _("What"), found.currency],
        [[number, label, found.boxes[number]] for number, (_field, label) in BOXES.items()],
        [[5, _("Payable to HMRC") if found.payable else _("Repayable by HMRC"), found.boxes[5]]],
        frozenset({2}),
    )
    working = Table(
        _("Per tax type"),
        [_("Tax type"), _("Side"), _("Net"), _("Tax posted"), _("Reverse charge tax")],
        [[row.tax_code, row.side, row.net, row.tax, row.reverse_charge_tax] for row in found.rows],
        numeric=frozenset({2, 3, 4}),
    )
    heading = [_("%(start)s to %(end)s, invoice basis") % {"start": period.start, "end": period.end}]
    return _("VAT return"), heading, [boxes, working]


def build(actor: Actor, report: str, period: Period) -> tuple[str, list[str], list[Table]]:
    """The title, heading lines and tables of one of REPORTS."""
    if report == "profit-and-loss":
        return profit_and_loss(period)
    if report == "balance-sheet":
        return balance_sheet(period)
    if report == "trial-balance":
        return trial_balance(period)
    if report in ("aged-receivables", "aged-payables"):
        return aged(actor, report.removeprefix("aged-"), period)
    if report == "general-ledger":
        return general_ledger(period)
    return vat_return_tables(period)


def uk_vat() -> bool:
    books = ledger.books()
    return books.tax_regime == "UK VAT" and books.base_currency == "GBP"


def section(actor: Actor, period: Period) -> list[dict[str, Any]]:
    """Every report of the section but the general ledger (which the page shows paged), each with
    its name for the exports: the VAT return only for books that keep UK VAT."""
    shown = []
    for report in REPORTS:
        if report == "general-ledger" or (report == "vat-return" and not uk_vat()):
            continue
        title, heading, tables = build(actor, report, period)
        shown.append({"key": report, "title": title, "heading": heading, "tables": tables})
    return shown


def _facts(start: date, end: date, currency: str) -> dict[str, Any]:
    return {"start": start, "end": end, "currency": currency}
