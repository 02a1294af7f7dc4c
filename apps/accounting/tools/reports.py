"""The books' reports (apps.accounting.selectors.reports), read-only: profit and loss, balance sheet,
aged receivables and payables, the general ledger and the UK VAT return. Amounts are in the books'
base currency, at its minor units. The trial balance at a date is getAccountingSummary's (asOf)."""

import datetime
from decimal import Decimal
from typing import Annotated, Literal

from django.utils import timezone
from pydantic import Field

from apps.accounting.lib import ledger, vat_return
from apps.accounting.lib.money import round_money
from apps.accounting.permissions import AccountingPerm
from apps.accounting.selectors import reports
from apps.accounting.shapes import Amount
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import MAX_OFFSET, Limit, Offset, Out

FromDate = Annotated[datetime.date, Field(description="First day, included")]
ToDate = Annotated[datetime.date, Field(description="Last day, included")]
AsOf = Annotated[datetime.date | None, Field(description="At the end of this day; default today")]


class RowOut(Out):
    code: str = Field(description="Account code; empty for a computed row")
    name: str
    amount: Amount
    previous: Amount | None = Field(description="In the compared period")


class SectionOut(Out):
    key: str
    title: str
    rows: list[RowOut]
    total: Amount
    previous_total: Amount | None

    @classmethod
    def of(cls, section: reports.Section) -> "SectionOut":
        return cls(
            key=section.key,
            title=section.title,
            rows=[RowOut.of_record(row) for row in section.rows],
            total=section.total,
            previous_total=section.previous_total,
        )


# --- getProfitAndLoss -----------------------------------------------------------------------------


class ProfitAndLossOut(Out):
    currency: str
    from_date: datetime.date
    to_date: datetime.date
    compared_from: datetime.date | None
    compared_to: datetime.date | None
    sections: list[SectionOut] = Field(description="income, cost_of_sales, expenses")
    gross_profit: Amount
    net_profit: Amount
    previous_gross_profit: Amount | None
    previous_net_profit: Amount | None


@tool("getProfitAndLoss", permission=AccountingPerm.VIEW, title="Profit and loss", read_only=True)
def get_profit_and_loss(
    ctx: ToolContext,
    *,
    from_date: FromDate,
    to_date: ToDate,
    compare_with: Annotated[
        Literal["period", "year"] | None,
        Field(description="The same length just before, or the same days a year earlier"),
    ] = None,
) -> ProfitAndLossOut:
    """Profit and loss of a period from the ledger, per account; getBalanceSheet is at a date.

    Income and costs positive; gross and net profit. The lines behind a figure:
    getAccountTransactions with its account code and the same dates."""
    found = reports.profit_and_loss(start=from_date, end=to_date, compare=compare_with)
    return ProfitAndLossOut(
        currency=found.currency,
        from_date=found.start,
        to_date=found.end,
        compared_from=found.compared[0] if found.compared else None,
        compared_to=found.compared[1] if found.compared else None,
        sections=[SectionOut.of(section) for section in found.sections],
        gross_profit=found.gross_profit,
        net_profit=found.net_profit,
        previous_gross_profit=found.previous_gross_profit,
        previous_net_profit=found.previous_net_profit,
    )


# --- getBalanceSheet ------------------------------------------------------------------------------


class BalanceSheetOut(Out):
    currency: str
    as_of: datetime.date
    year_start: datetime.date = Field(description="Current year earnings count from it")
    assets: SectionOut
    liabilities: SectionOut
    equity: SectionOut
    liabilities_and_equity: Amount
    balanced: bool


@tool("getBalanceSheet", permission=AccountingPerm.VIEW, title="Balance sheet", read_only=True)
def get_balance_sheet(ctx: ToolContext, *, as_of: AsOf = None) -> BalanceSheetOut:
    """Balance sheet at a date from the ledger; getProfitAndLoss covers a period.

    Assets, liabilities and equity per account, with the year's earnings, so assets equal
    liabilities plus equity."""
    found = reports.balance_sheet(as_of=as_of or timezone.localdate())
    return BalanceSheetOut(
        currency=found.currency,
        as_of=found.as_of,
        year_start=found.year_start,
        assets=SectionOut.of(found.assets),
        liabilities=SectionOut.of(found.liabilities),
        equity=SectionOut.of(found.equity),
        liabilities_and_equity=found.liabilities_and_equity,
        balanced=found.balanced,
    )


# --- getAgedBalances ------------------------------------------------------------------------------


class BucketsOut(Out):
    current: Amount = Field(description="Not yet due")
    days1to30: Amount
    days31to60: Amount
    days61to90: Amount
    over90: Amount
    total: Amount

    @classmethod
    def of(cls, buckets: dict[str, Decimal]) -> "BucketsOut":
        # In base currency, at its minor units: a revaluation's share is kept to four places.
        base = ledger.books().base_currency
        values = [round_money(buckets[key], base) for key in reports.BUCKETS]
        return cls(
            current=values[0],
            days1to30=values[1],
            days31to60=values[2],
            days61to90=values[3],
            over90=values[4],
            total=sum(values, Decimal(0)),
        )


class AgedDocumentOut(Out):
    kind: str = Field(description="invoice, credit_note, bill, other")
    id: int | None
    number: str = Field(description="A bill's: its supplier reference")
    issue_date: datetime.date | None
    due_date: datetime.date | None
    currency: str
    amount_due: Amount = Field(description="In its currency")
    base_amount_due: Amount
    days_overdue: int
    bucket: str


class AgedContactOut(Out):
    contact_id: int | None
    name: str
    buckets: BucketsOut
    documents: list[AgedDocumentOut]


class AgedOut(Out):
    side: str
    currency: str
    as_of: datetime.date
    totals: BucketsOut
    control_account: str
    control_balance: Amount = Field(description="Equals totals.total")
    contacts: list[AgedContactOut]
    total_contacts: int
    next_offset: int | None


@tool("getAgedBalances", permission=AccountingPerm.VIEW, title="Aged receivables or payables", read_only=True)
def get_aged_balances(
    ctx: ToolContext,
    *,
    side: Annotated[Literal["receivables", "payables"], Field(description="Owed to us, or by us")],
    as_of: AsOf = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> AgedOut:
    """Aged receivables or payables per contact at a date: current, 1-30, 31-60, 61-90, 90+ days.

    From the ledger by due date; totals equal the control account. searchInvoices lists invoices."""
    found = reports.aged(actor=ctx.actor, side=side, as_of=as_of or timezone.localdate())
    shown = found.contacts[offset : offset + limit]
    end = offset + len(shown)
    return AgedOut(
        side=found.side,
        currency=found.currency,
        as_of=found.as_of,
        totals=BucketsOut.of(found.buckets),
        control_account=found.control_code,
        control_balance=found.control_balance,
        contacts=[
            AgedContactOut(
                contact_id=contact.contact_id,
                name=contact.name,
                buckets=BucketsOut.of(contact.buckets),
                documents=[
                    AgedDocumentOut.of_record(row, amount_due=row.amount, base_amount_due=row.base_amount)
                    for row in contact.documents
                ],
            )
            for contact in shown
        ],
        total_contacts=len(found.contacts),
        next_offset=end if end < len(found.contacts) and end <= MAX_OFFSET else None,
    )


# --- getAccountTransactions -----------------------------------------------------------------------


class TransactionOut(Out):
    date: datetime.date
    entry_id: int
    journal: str
    account: str
    account_name: str
    description: str
    memo: str
    source: str = Field(description="What posted it: invoice:12, bill:3, payment:12")
    document: str = Field(description="Its number or reference")
    currency: str
    amount: Amount = Field(description="In currency; debit positive")
    debit: Amount
    credit: Amount
    balance: Amount = Field(description="The account's running balance")
    tax_type: str


class TransactionsOut(Out):
    currency: str
    from_date: datetime.date
    to_date: datetime.date
    opening_balance: Amount | None = Field(description="Of the account, the day before")
    items: list[TransactionOut]
    total: int
    limit: int
    offset: int
    next_offset: int | None


@tool("getAccountTransactions", permission=AccountingPerm.VIEW, title="Account transactions", read_only=True)
def get_account_transactions(
    ctx: ToolContext,
    *,
    from_date: FromDate,
    to_date: ToDate,
    account: Annotated[
        str | None, Field(max_length=10, description="Account code (getAccountingSummary); default all")
    ] = None,
    tax_type: Annotated[str | None, Field(max_length=20, description="Only lines of this tax code")] = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> TransactionsOut:
    """General ledger: the journal lines behind a report figure, with running balance; paged.

    Per account by date, base currency debit and credit; getProfitAndLoss has the totals."""
    base = ledger.books().base_currency
    chosen = reports.account_by_code(account) if account else None
    lines = reports.ledger_lines(account=chosen, start=from_date, end=to_date, tax_code=tax_type)
    total = lines.count()
    window = list(lines[offset : offset + limit])
    opening = reports.opening_balances(start=from_date, accounts={line.account_id for line in window})
    documents = reports.documents_of({line.entry.source for line in window})
    zero = Decimal(0)
    items = []
    for line in window:
        value = round_money(line.base_amount, base)
        items.append(
            TransactionOut(
                date=line.entry.date,
                entry_id=line.entry_id,
                journal=line.entry.journal.code,
                account=line.account.code,
                account_name=line.account.name,
                description=line.description,
                memo=line.entry.memo,
                source=line.entry.source,
                document=documents.get(line.entry.source, ""),
                currency=line.entry.currency,
                amount=round_money(line.amount, line.entry.currency),
                debit=value if value > 0 else round_money(zero, base),
                credit=-value if value < 0 else round_money(zero, base),
                balance=round_money(opening.get(line.account_id, zero) + line.running, base),  # type: ignore[attr-defined]
                tax_type=line.tax_type.code if line.tax_type else "",
            )
        )
    end = offset + len(items)
    opening_balance = None
    if chosen is not None:
        before = reports.opening_balances(start=from_date, accounts={chosen.pk})
        opening_balance = round_money(before.get(chosen.pk, zero), base)
    return TransactionsOut(
        currency=base,
        from_date=from_date,
        to_date=to_date,
        opening_balance=opening_balance,
        items=items,
        total=total,
        limit=limit,
        offset=offset,
        next_offset=end if end < total and end <= MAX_OFFSET else None,
    )


# --- getVatReturn ---------------------------------------------------------------------------------


class BoxOut(Out):
    box: int
    mtd_field: str = Field(description="Name in HMRC's MTD VAT API")
    label: str
    amount: Amount = Field(description="Boxes 6-9 in whole pounds")


class VatTaxTypeOut(Out):
    tax_type: str
    side: str = Field(description="output (sales) or input (purchases)")
    net: Amount
    tax: Amount = Field(description="Posted")
    reverse_charge_tax: Amount


class VatReturnOut(Out):
    currency: str
    from_date: datetime.date
    to_date: datetime.date
    scheme: str
    boxes: list[BoxOut]
    payable: bool = Field(description="Box 5 is owed to HMRC; false: reclaimed")
    tax_types: list[VatTaxTypeOut] = Field(description="The working, per tax type")


@tool("getVatReturn", permission=AccountingPerm.VIEW, title="VAT return", read_only=True)
def get_vat_return(
    ctx: ToolContext,
    *,
    from_date: FromDate,
    to_date: ToDate,
    scheme: Annotated[
        Literal["invoice", "cash", "flatRate"],
        Field(description="Only invoice is supported; cash and flatRate are refused"),
    ] = "invoice",
) -> VatReturnOut:
    """UK VAT return (MTD's nine boxes) for a period from the ledger's tax types; listTaxTypes has boxes.

    Reverse charge is counted as due and reclaimed. Writes and submits nothing."""
    found = reports.vat(start=from_date, end=to_date, scheme=scheme)
    return VatReturnOut(
        currency=found.currency,
        from_date=from_date,
        to_date=to_date,
        scheme=scheme,
        boxes=[
            BoxOut(box=number, mtd_field=field, label=label, amount=found.boxes[number])
            for number, (field, label) in vat_return.BOXES.items()
        ],
        payable=found.payable,
        tax_types=[VatTaxTypeOut.of_record(row, tax_type=row.tax_code) for row in found.rows],
    )
