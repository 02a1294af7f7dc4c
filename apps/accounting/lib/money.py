"""Money: a `Decimal` amount and an ISO 4217 currency, and the one rounding rule of the area.

Amounts are never floats. A currency's minor units come from ISO 4217 (the `iso4217` package's
table: 2 for EUR, 0 for JPY, 3 for KWD); a currency without minor units (gold, SDR, testing
codes) cannot hold money here.

The rounding rule, applied in one place (`round_money`) and nowhere else: an amount is rounded
to its currency's minor units, half away from zero (`ROUND_HALF_UP`: 0.125 EUR is 0.13 EUR,
-0.125 EUR is -0.13 EUR), the usual rule for invoices. Rates and unit prices keep more places;
what is posted to the ledger, or shown as a total, has been through `round_money`.
"""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import cache
from typing import Any, Self

import iso4217
from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import AmountTooLarge
from apps.core import clean
from apps.core.errors import invalid

ROUNDING = ROUND_HALF_UP
# The ledger's amount columns (apps.accounting.models.ledger.money_field): numeric(20, 4).
COLUMN_DIGITS = 20
COLUMN_PLACES = 4
# An amount an agent may write; what lines add up to is held to the columns (`check_fits`).
MAX_AMOUNT = Decimal("1e15")
# Every amount kept is less than this: 10^16 with numeric(20, 4).
LEDGER_LIMIT = Decimal(10) ** (COLUMN_DIGITS - COLUMN_PLACES)


@cache
def minor_units(currency: str) -> int:
    """The number of decimal places of `currency` (ISO 4217), or an error naming the code."""
    try:
        exponent = iso4217.Currency(currency).exponent
    except ValueError:
        exponent = None
    if exponent is None:
        raise invalid("currency", _("{code} is not an ISO 4217 currency of money"), code=currency)
    return int(exponent)


def currency_code(value: str, *, field: str = "currency") -> str:
    """`value` as an ISO 4217 code of money ("eur" -> "EUR"), or a validation error naming `field`
    (apps.core.clean's rule: with minor units, not gold, not a testing code)."""
    return clean.currency(value, field=field)


def round_money(amount: Decimal, currency: str) -> Decimal:
    """The area's one rounding rule: `amount` to `currency`'s minor units, half away from zero."""
    return amount.quantize(Decimal(1).scaleb(-minor_units(currency)), rounding=ROUNDING)


def check_places(amount: Decimal, currency: str, *, field: str, line: int | None = None) -> Decimal:
    """`amount` at `currency`'s minor units, refused if it has more decimals than those, naming
    `field` (and the `line` of it, counted from 1): what an agent wrote is never rounded."""
    rounded = round_money(amount, currency)
    if rounded == amount:
        return rounded
    if line is None:
        raise invalid(
            field, _("{amount} has more decimals than {currency} has"), amount=amount, currency=currency
        )
    raise invalid(
        field,
        _("line {n}: {amount} has more decimals than {currency} has"),
        n=line,
        amount=amount,
        currency=currency,
    )


def check_fits(amount: Decimal, currency: str, *, what: str) -> None:
    """Refuses an amount the ledger's columns cannot keep (rounded as it would be kept), naming
    `what` it is: the one check of totals made from lines, before anything is written."""
    # Compared before rounding: an amount this large may have more digits than a Decimal context
    # rounds (28); a column keeps four places, so what rounds up to the limit is refused too.
    if abs(amount) >= LEDGER_LIMIT - Decimal("0.00005"):
        shown = format(amount, f".{minor_units(currency)}f")
        raise AmountTooLarge(what=what, amount=shown, currency=currency, most=format(LEDGER_LIMIT, "f"))


def decimal_of(value: Any, *, field: str) -> Decimal:
    """A finite Decimal from what an agent wrote ("12.50", 12.5), or an error naming `field`.
    Floats go through their shortest text, so 0.1 is 0.1 and not its binary neighbour."""
    try:
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        raise invalid(field, _("not a number")) from None
    if not number.is_finite():
        raise invalid(field, _("not a finite number"))
    if abs(number) >= MAX_AMOUNT:
        raise invalid(field, _("too large"))
    return number


@dataclass(frozen=True)
class Money:
    """An amount in a currency. Arithmetic keeps full precision; `rounded()` applies the rule."""

    amount: Decimal
    currency: str

    @classmethod
    def of(cls, amount: Any, currency: str) -> Self:
        return cls(decimal_of(amount, field="amount"), currency_code(currency))

    def rounded(self) -> Self:
        return type(self)(round_money(self.amount, self.currency), self.currency)

    def _same(self, other: "Money") -> None:
        if other.currency != self.currency:
            raise ValueError(f"cannot add {other.currency} to {self.currency}")

    def __add__(self, other: "Money") -> "Money":
        self._same(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: "Money") -> "Money":
        self._same(other)
        return Money(self.amount - other.amount, self.currency)

    def __neg__(self) -> "Money":
        return Money(-self.amount, self.currency)

    def __str__(self) -> str:
        return f"{self.rounded().amount} {self.currency}"
