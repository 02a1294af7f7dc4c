"""Leave arithmetic: working days (the employee's pattern, weekends and the public holidays of
their country and region, from the maintained `holidays` package), and what a policy accrues
for an employee in a period, prorated for joiners, leavers and part-time FTE."""

import calendar
from collections.abc import Iterator
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import Any

import holidays

HALF = Decimal("0.5")
ZERO = Decimal("0")


@lru_cache(maxsize=256)
def _public_holidays(country: str, region: str, year: int) -> frozenset[date]:
    found = holidays.country_holidays(country, subdiv=region or None, years=year)
    return frozenset(found.keys())


def public_holidays(country: str, region: str, start: date, end: date) -> dict[date, str]:
    """The public holidays between start and end (inclusive), with their names."""
    found: dict[date, str] = {}
    for year in range(start.year, end.year + 1):
        named = holidays.country_holidays(country, subdiv=region or None, years=year)
        found.update({day: str(name) for day, name in named.items() if start <= day <= end})
    return found


def days_between(start: date, end: date) -> Iterator[date]:
    for offset in range((end - start).days + 1):
        yield start + timedelta(days=offset)


def is_working_day(employee: Any, day: date, closed: frozenset[date] = frozenset()) -> bool:
    """A day of the employee's pattern that is neither a public holiday nor one of `closed` (the
    company's own holidays)."""
    if day.weekday() not in employee.working_days or day in closed:
        return False
    return day not in _public_holidays(employee.country, employee.region, day.year)


def working_days(
    employee: Any,
    start: date,
    end: date,
    *,
    start_half: bool = False,
    end_half: bool = False,
    closed: frozenset[date] = frozenset(),
) -> Decimal:
    """Working days of leave from start to end inclusive; a half first or last day counts 0.5;
    the days of `closed` (company holidays) are skipped like public holidays."""
    total = ZERO
    for day in days_between(start, end):
        if not is_working_day(employee, day, closed):
            continue
        half = (day == start and start_half) or (day == end and end_half)
        total += HALF if half else Decimal(1)
    return total


def employed_days(employee: Any, start: date, end: date) -> int:
    """Days of [start, end] on which the employee is employed."""
    first = max(start, employee.start_date)
    last = min(end, employee.end_date) if employee.end_date else end
    return max(0, (last - first).days + 1)


def month_accrual(policy: Any, employee: Any, year: int, month: int) -> Decimal:
    """What a monthly policy accrues in a month: a twelfth of the year, times FTE, times the
    share of the month employed. Rounded so that the months add up to the year's exact sum (25
    days a year accrue 2.083 or 2.084 a month, and 25.000 by December, never 24.996)."""
    return _round(_accrued_through(policy, employee, year, month)) - _round(
        _accrued_through(policy, employee, year, month - 1)
    )


def _accrued_through(policy: Any, employee: Any, year: int, month: int) -> Decimal:
    """The exact (unrounded) sum a monthly policy accrues from January to `month` of `year`."""
    total = Decimal(0)
    for each in range(1, month + 1):
        first = date(year, each, 1)
        length = calendar.monthrange(year, each)[1]
        employed = employed_days(employee, first, first.replace(day=length))
        total += (
            Decimal(policy.annual_days) / 12 * Decimal(employee.fte) * Decimal(employed) / Decimal(length)
        )
    return total


def year_accrual(policy: Any, employee: Any, year: int) -> Decimal:
    """What a yearly policy grants on 1 January (or the start date): the year times FTE, times the
    share of the year employed."""
    first, last = date(year, 1, 1), date(year, 12, 31)
    length = (last - first).days + 1
    share = Decimal(employed_days(employee, first, last)) / Decimal(length)
    return _round(policy.annual_days * employee.fte * share)


def _round(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.001"), rounding=ROUND_HALF_UP)
