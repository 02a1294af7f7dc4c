"""Revaluation of open foreign-currency balances at a day's rate (unrealised FX), reversed next day."""

from datetime import date
from typing import Annotated

from pydantic import Field

from apps.accounting.lib.money import round_money
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import revaluation
from apps.accounting.shapes import Amount
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Out
from apps.core.clean import plain


class RevaluedOut(Out):
    kind: str = Field(description="invoice, bill or bank")
    id: int
    name: str = Field(description="Invoice number, bill supplier and reference, bank account")
    currency: str
    open_amount: Amount
    carried: Amount = Field(description="Base currency, as the ledger holds it; debit positive")
    revalued: Amount = Field(description="Base currency at the day's rate")
    difference: Amount


class RateOut(Out):
    currency: str
    rate: Amount = Field(description="Base currency per unit")
    day: date = Field(description="Of the rate used")


class RevaluationOut(Out):
    on: date
    base_currency: str
    dry_run: bool
    already_posted: bool = Field(description="The day was revalued before; nothing posted again")
    rates: list[RateOut]
    items: list[RevaluedOut]
    gain: Amount = Field(description="Unrealised gain, a loss negative; base currency")
    entry_id: int | None
    reversal_id: int | None = Field(description="Posted on the next day")


def _checked(ctx: ToolContext, *, on: date, dry_run: bool) -> bool:
    """revalueForeignCurrency's confirmation: refused first when it cannot post; a dry run asks none."""
    revaluation.check(actor=ctx.actor, day=on)
    return not dry_run


@tool(
    "revalueForeignCurrency",
    permission=AccountingPerm.POST,
    title="Revalue foreign currency balances",
    markers=Marker.HIGH_RISK,
    confirm_if=_checked,
)
def revalue_foreign_currency(
    ctx: ToolContext,
    *,
    on: Annotated[date, Field(description="Revalue at this day's rates, e.g. the month's last day")],
    dry_run: Annotated[bool, Field(description="List what it would post; posts nothing")] = False,
) -> RevaluationOut:
    """Post unrealised FX gains and losses on open foreign invoices, bills and bank accounts."""
    found = revaluation.revalue(actor=ctx.actor, day=on, dry_run=dry_run)
    base = found.base_currency
    return RevaluationOut(
        on=on,
        base_currency=base,
        dry_run=dry_run,
        already_posted=found.already,
        rates=[
            RateOut(currency=currency, rate=plain(used.value), day=used.day)
            for currency, used in sorted(found.rates.items())
        ],
        items=[
            RevaluedOut(
                kind=item.kind,
                id=item.id,
                name=item.name,
                currency=item.currency,
                open_amount=item.open_amount,
                carried=item.carried,
                revalued=item.revalued,
                difference=item.difference,
            )
            for item in found.items
        ],
        gain=round_money(found.gain, base),
        entry_id=found.entry.pk if found.entry else None,
        reversal_id=found.reversal.pk if found.reversal else None,
    )
