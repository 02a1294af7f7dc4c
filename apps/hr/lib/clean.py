"""Checks of the values of an employment record (dates, numbers in bounds, countries and regions
whose public holidays are known, working days); text, e-mail addresses and time zones are
apps.core.clean's."""

from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

import holidays
from django.utils.translation import gettext as _

from apps.core.errors import invalid

# The days an employment may start and end on: a start decades back would have every balance
# accrued year by year from it (apps.hr.services.leave.ledger_ensure).
EMPLOYMENT = (date(1950, 1, 1), date(2100, 12, 31))


def day(value: Any, *, field: str, within: tuple[date, date] | None = None) -> date:
    """A date (YYYY-MM-DD), on or between the two days of `within` when given."""
    if isinstance(value, datetime):
        found = value.date()
    elif isinstance(value, date):
        found = value
    else:
        try:
            found = date.fromisoformat(str(value))
        except ValueError:
            raise invalid(field, _("{value!r} is not a date (YYYY-MM-DD)"), value=value) from None
    if within is not None and not within[0] <= found <= within[1]:
        raise invalid(
            field,
            _("must be from {first} to {last}"),
            first=within[0].isoformat(),
            last=within[1].isoformat(),
        )
    return found


def decimal(value: Any, *, field: str, low: str, high: str, places: str = "0.01") -> Decimal:
    try:
        number = Decimal(str(value)).quantize(Decimal(places))
    except (InvalidOperation, ValueError):
        raise invalid(field, _("{value!r} is not a number"), value=value) from None
    if not Decimal(low) <= number <= Decimal(high):
        raise invalid(field, _("must be between {low} and {high}"), low=low, high=high)
    return number


def country(value: str) -> str:
    code = str(value or "").strip().upper()
    if code not in holidays.list_supported_countries():
        raise invalid(
            "country",
            _("{value!r} is not a country code whose public holidays are known (GB, DE, US)"),
            value=value,
        )
    return code


def region(country_code: str, value: str) -> str:
    code = str(value or "").strip().upper()
    if not code:
        return ""
    known = holidays.list_supported_countries()[country_code]
    if code not in known:
        sample = ", ".join(known[:6]) or "none"
        raise invalid(
            "region",
            _("{value!r} is not a region of {country_code} (e.g. {sample})"),
            value=value,
            country_code=country_code,
            sample=sample,
        )
    return code


def weekdays(value: Any) -> list[int]:
    days = sorted({int(d) for d in value or []})
    if not days or any(d < 0 or d > 6 for d in days):
        raise invalid("workingDays", _("give the days worked as numbers, Monday 0 to Sunday 6"))
    return days
