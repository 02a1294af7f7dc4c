"""The Accounting overview, tax and currency tools (SPEC 4.7): thin doors onto the ledger.

getAccountingSummary is the area's MANDATORY FIRST CALL: the dispatcher refuses every other
accounting tool in a session until it has answered once, so an agent knows the base currency,
the tax regime and rounding, the lock date and the numbering before it writes anything.
"""

from datetime import date
from decimal import Decimal
from typing import Annotated, Literal

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from pydantic import Field, WithJsonSchema

from apps.accounting.lib import ledger, rates, tax
from apps.accounting.lib.money import currency_code, round_money
from apps.accounting.models import Account, NumberSeries, TaxType
from apps.accounting.permissions import AccountingPerm
from apps.accounting.selectors import overview as selectors
from apps.accounting.shapes import Amount, RateOut, SeriesOut, TaxTypeOut, TrialBalanceRowOut
from apps.accounting.tools.common import Currency, Decimalish, TaxCode
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import In, Out
from apps.core.actors import require
from apps.core.clean import plain
from apps.core.errors import invalid

ZERO = Decimal(0)
RULES = [
    "Amounts are decimal strings in the answer's currency; send them as strings or numbers.",
    "Dates are ISO 8601 (2026-03-31). Nothing posts on or before the lock date.",
    "Tax types are named by code (listTaxTypes). Rounding: half up, to the currency's minor units.",
]


# --- getAccountingSummary -------------------------------------------------------------------------


class SummaryOut(Out):
    base_currency: str
    tax_regime: str
    prices_include_tax: bool = Field(description="Default of new documents")
    tax_rounding: str = Field(description="line or document")
    lock_date: date | None = Field(description="Nothing posts on or before it")
    separate_duties: bool = Field(description="A document's creator may not approve it")
    numbering: list[SeriesOut]
    receivable: Amount = Field(description="Owed to us, base currency")
    payable: Amount = Field(description="We owe, base currency")
    trial_balance: list[TrialBalanceRowOut]
    balanced: bool
    attention: list[str]
    rules: list[str]


@tool(
    "getAccountingSummary",
    permission=AccountingPerm.VIEW,
    title="Accounting summary",
    markers=Marker.MANDATORY_FIRST_CALL,
    read_only=True,
)
def get_accounting_summary(
    ctx: ToolContext,
    *,
    as_of: Annotated[date | None, Field(description="Trial balance and balances at this day")] = None,
) -> SummaryOut:
    """Call first: base currency, tax regime, lock date, numbering, balances from the ledger."""
    books = ledger.books()
    base = books.base_currency
    balance = ledger.trial_balance(as_of=as_of)
    attention = []
    if not balance.balanced:
        attention.append("The trial balance does not balance: tell an accounting admin.")
    if books.lock_date is None:
        attention.append("No lock date: every past period is still open.")
    attention.extend(selectors.attention(actor=ctx.actor))
    return SummaryOut.of_record(
        books,
        numbering=[SeriesOut(key=s.key, next=s.format(s.next_number)) for s in NumberSeries.objects.all()],
        receivable=round_money(ledger.balance_of(ledger.account(Account.Role.RECEIVABLE), as_of=as_of), base),
        payable=round_money(-ledger.balance_of(ledger.account(Account.Role.PAYABLE), as_of=as_of), base),
        trial_balance=[TrialBalanceRowOut.of_record(row) for row in balance.rows],
        balanced=balance.balanced,
        attention=attention,
        rules=RULES,
    )


# --- listTaxTypes -----------------------------------------------------------------------------------


class TaxTypesOut(Out):
    items: list[TaxTypeOut]


@tool("listTaxTypes", permission=AccountingPerm.VIEW, title="List tax types", read_only=True)
def list_tax_types(
    ctx: ToolContext,
    *,
    kind: Annotated[
        Literal["standard", "zero", "exempt", "reverse_charge", "out_of_scope"] | None,
        Field(description="Only this kind"),
    ] = None,
    include_archived: Annotated[bool, Field(description="Also retired ones")] = False,
) -> TaxTypesOut:
    """The workspace's tax types: code, rate, kind, report box and exemption reason."""
    ledger.books()
    rows = TaxType.objects.all()
    if kind:
        rows = rows.filter(kind=kind)
    if not include_archived:
        rows = rows.filter(archived=False)
    return TaxTypesOut(items=[TaxTypeOut.of_record(row) for row in rows[:200]])


# --- previewTaxBreakdown ----------------------------------------------------------------------------


class TaxLineIn(In):
    quantity: Decimalish = Decimal(1)
    unit_price: Decimalish
    tax_type: TaxCode
    discount_percent: Decimalish = Decimal(0)


class TaxLineOut(Out):
    net: Amount
    tax: Amount
    gross: Amount
    tax_type: str


class TaxGroupOut(Out):
    tax_type: str
    rate: Amount
    net: Amount
    tax: Amount


class BreakdownOut(Out):
    currency: str
    prices_include_tax: bool
    rounding: str
    lines: list[TaxLineOut]
    groups: list[TaxGroupOut] = Field(description="Per tax type")
    net: Amount
    tax: Amount
    total: Amount


@tool("previewTaxBreakdown", permission=AccountingPerm.VIEW, title="Preview a tax breakdown", read_only=True)
def preview_tax_breakdown(
    ctx: ToolContext,
    *,
    lines: Annotated[list[TaxLineIn], Field(min_length=1, max_length=200, description="Document lines")],
    currency: Currency | None = None,
    prices_include_tax: Annotated[bool | None, Field(description="Default: the books'")] = None,
    rounding: Annotated[Literal["line", "document"] | None, Field(description="Default: the books'")] = None,
) -> BreakdownOut:
    """Work out net, tax and total of lines per tax type; writes nothing."""
    books = ledger.books()
    code = currency_code(currency) if currency else books.base_currency
    found = tax.tax_types_by_code([line.tax_type for line in lines])
    result = tax.breakdown(
        [
            tax.LineIn(line.quantity, line.unit_price, found[line.tax_type], line.discount_percent)
            for line in lines
        ],
        currency=code,
        prices_include_tax=books.prices_include_tax if prices_include_tax is None else prices_include_tax,
        rounding=rounding or books.tax_rounding,
    )
    return BreakdownOut(
        currency=code,
        prices_include_tax=result.prices_include_tax,
        rounding=result.rounding,
        lines=[
            TaxLineOut(
                net=round_money(line.net, code),
                tax=round_money(line.tax, code),
                gross=round_money(line.gross, code),
                tax_type=line.tax_type.code,
            )
            for line in result.lines
        ],
        groups=[
            TaxGroupOut(tax_type=group.tax_type.code, rate=group.tax_type.rate, net=group.net, tax=group.tax)
            for group in result.groups
        ],
        net=result.net,
        tax=result.tax,
        total=result.total,
    )


# --- previewCurrencyConversion ----------------------------------------------------------------------


class ConversionOut(RateOut):
    amount: Amount
    source: str
    converted: Amount
    target: str


@tool(
    "previewCurrencyConversion",
    permission=AccountingPerm.VIEW,
    title="Preview a currency conversion",
    read_only=True,
)
def preview_currency_conversion(
    ctx: ToolContext,
    *,
    amount: Annotated[Decimalish, Field(description="In the source currency")],
    source: Currency,
    target: Currency | None = None,
    on: Annotated[date | None, Field(description="Rate of this day; default today")] = None,
) -> ConversionOut:
    """Convert an amount at the reference rate of a day (default target: base currency)."""
    source_code = currency_code(source, field="source")
    target_code = currency_code(target, field="target") if target else ledger.books().base_currency
    used = rates.rate(source=source_code, target=target_code, on=on or timezone.localdate())
    return ConversionOut(
        amount=amount,
        source=source_code,
        converted=round_money(amount * used.value, target_code),
        target=target_code,
        rate=used.value,
        day=used.day,
        provider=used.provider,
    )


# --- recordExchangeRate -----------------------------------------------------------------------------

# A rate as a JSON number or a string of digits, to ten places (JournalEntry.rate).
RateValue = Annotated[
    Decimal,
    Field(allow_inf_nan=False, max_digits=24, decimal_places=10),
    WithJsonSchema({"type": ["string", "number"], "pattern": r"^\d+(\.\d+)?$"}),
]


class RecordedRateOut(RateOut):
    source: str
    target: str
    replaced: Amount | None = Field(description="The rate recorded for that day before")


@tool("recordExchangeRate", permission=AccountingPerm.POST, title="Record an exchange rate", idempotent=True)
def record_exchange_rate(
    ctx: ToolContext,
    *,
    source: Currency,
    rate: Annotated[RateValue, Field(description="One source in the target currency")],
    on: Annotated[date, Field(description="Day it is the rate of")],
    target: Annotated[Currency | None, Field(description="Default: base currency")] = None,
) -> RecordedRateOut:
    """Record a day's exchange rate the provider lacks (KWD, BHD); previewCurrencyConversion reads one."""
    source_code = currency_code(source, field="source")
    target_code = currency_code(target, field="target") if target else ledger.books().base_currency
    if source_code == target_code:
        raise invalid("target", _("is the source currency; a currency's rate to itself is 1"))
    if rate <= 0:
        raise invalid("rate", _("must be more than zero"))
    require(ctx.actor, AccountingPerm.POST)
    row, replaced = rates.record(actor=ctx.actor, source=source_code, target=target_code, on=on, value=rate)
    return RecordedRateOut(
        source=source_code,
        target=target_code,
        rate=plain(row.rate),
        day=row.day,
        provider=rates.RECORDED,
        replaced=plain(replaced) if replaced is not None else None,
    )
