"""Business hours of an SLA policy: working days and hours in its time zone, without the public
holidays of its country, or of a region of it (the `holidays` library). `add` moves a moment on by
business time; `between` measures the business time between two moments (what a paused clock gives
back)."""

from datetime import date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

import holidays

from apps.support.models import SlaPolicy

# A target can be at most this far in calendar days (a calendar with no working day ends the search).
HORIZON_DAYS = 366 * 2


def _place(code: str) -> tuple[str, str | None]:
    """A country's two-letter code, and its region's as the `holidays` library spells it, of a
    code such as "GB" or "GB-ENG" (ISO 3166-2: England's holidays, not all of the United
    Kingdom's); ("", None) when the library does not know them."""
    country, _dash, region = code.strip().upper().partition("-")
    regions = holidays.list_supported_countries().get(country)
    if regions is None:
        return "", None
    if not region:
        return country, None
    spelt = next((each for each in regions if each.upper() == region), None)
    return (country, spelt) if spelt is not None else ("", None)


@lru_cache(maxsize=64)
def _public_holidays(code: str, year: int) -> frozenset[date]:
    country, region = _place(code) if code else ("", None)
    if not country:
        return frozenset()
    return frozenset(holidays.country_holidays(country, subdiv=region, years=year))


def known_country(code: str) -> bool:
    """Whether the `holidays` library knows the country, and the region when one is given."""
    return bool(_place(code)[0])


def _working_window(policy: SlaPolicy, day: date) -> tuple[datetime, datetime] | None:
    if day.isoweekday() not in (policy.workdays or [1, 2, 3, 4, 5]):
        return None
    if day in _public_holidays(policy.holidays_country.upper(), day.year):
        return None
    zone = ZoneInfo(policy.time_zone or "UTC")
    starts, ends = _as_time(policy.day_starts), _as_time(policy.day_ends)
    return datetime.combine(day, starts, zone), datetime.combine(day, ends, zone)


def _as_time(value: time | str) -> time:
    return value if isinstance(value, time) else time.fromisoformat(str(value))


def add(policy: SlaPolicy, start: datetime, hours: float) -> datetime:
    """The moment `hours` business hours after `start`."""
    left = timedelta(hours=float(hours))
    zone = ZoneInfo(policy.time_zone or "UTC")
    day = start.astimezone(zone).date()
    for _offset in range(HORIZON_DAYS):
        window = _working_window(policy, day)
        if window is not None:
            opens, closes = max(window[0], start), window[1]
            if opens < closes:
                if opens + left <= closes:
                    return opens + left
                left -= closes - opens
        day += timedelta(days=1)
    raise ValueError("the policy's calendar has no working time")


def between(policy: SlaPolicy, start: datetime, end: datetime) -> timedelta:
    """The business time from `start` to `end` (zero when end is not after start)."""
    total = timedelta()
    if end <= start:
        return total
    zone = ZoneInfo(policy.time_zone or "UTC")
    day, last = start.astimezone(zone).date(), end.astimezone(zone).date()
    while day <= last:
        window = _working_window(policy, day)
        if window is not None:
            opens, closes = max(window[0], start), min(window[1], end)
            if opens < closes:
                total += closes - opens
        day += timedelta(days=1)
    return total
