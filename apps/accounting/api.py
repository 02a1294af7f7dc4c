"""The Accounting area's public module: what other areas may use of it (docs/accounting.md,
"Money, tax and rates"). Nothing else of apps.accounting is theirs to import.

Exchange rates, the one place every area asks (`rate`): what one unit of a currency is worth in
another on a day. Accounting's providers answer (the ECB's reference rates, bundled or fetched
and kept in `ExchangeRate` rows: apps.accounting.lib.rates); they are the service's, so they answer
in a workspace without the Accounting area too (its installation gates its tools, not this).

    rate(source="USD", target="EUR", on=day)                          # the provider's rate
    rate(source="USD", target="EUR", on=day, given=rate, look_up=False)  # the rate a person gave

An area whose tools take the person's rate with an amount (Deals, Event budgets) asks with
`look_up=False`, so its answers stay the rates people gave; the shared `NoExchangeRate`
(apps.core.errors) is then the area's to word, as a variant of its own (which argument to give).
"""

from datetime import date
from decimal import Decimal

from apps.accounting.errors import RatesUnavailable
from apps.accounting.lib import rates
from apps.accounting.lib.rates import Rate
from apps.core.errors import NoExchangeRate

__all__ = ["Rate", "RatesUnavailable", "rate"]


def rate(*, source: str, target: str, on: date, given: Decimal | None = None, look_up: bool = True) -> Rate:
    """Units of `target` for one `source` on `on`: 1 for the same currency; else `given` when it
    is more than 0 (what a person said, kept with the day); else, with `look_up`, the books' (a
    rate recorded for that day with recordExchangeRate, else the provider's, the latest published
    within the week before, else the latest recorded within that week; the day it used in the
    answer); NoExchangeRate otherwise, RatesUnavailable when the provider did not answer."""
    if source == target:
        return Rate(Decimal(1), on, "same currency")
    if given is not None and given > 0:
        return Rate(Decimal(given), on, "given")
    if look_up:
        return rates.rate(source=source, target=target, on=on)
    raise NoExchangeRate(source=source, target=target, date=on.isoformat())
