"""Budget periods in the workspace's time zone (SPEC 3.3): a daily budget resets at local
midnight, a monthly one at local midnight on the 1st, a total one never."""

import zoneinfo
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from apps.apikeys.models import BudgetPeriod


@dataclass(frozen=True)
class Period:
    kind: str
    # The first local day whose spend counts (None: every day counts).
    starts_on: date | None
    started_at: datetime | None
    # When the budget is whole again (None: never).
    resets_at: datetime | None


def local_day(now: datetime, zone: zoneinfo.ZoneInfo) -> date:
    return now.astimezone(zone).date()


def _midnight(day: date, zone: zoneinfo.ZoneInfo) -> datetime:
    # Where a time-zone change skips midnight, this is the instant the day begins all the same.
    return datetime.combine(day, time(0), tzinfo=zone)


def current_period(kind: str, now: datetime, zone: zoneinfo.ZoneInfo) -> Period:
    today = local_day(now, zone)
    if kind == BudgetPeriod.DAILY:
        return Period(kind, today, _midnight(today, zone), _midnight(today + timedelta(days=1), zone))
    if kind == BudgetPeriod.MONTHLY:
        first = today.replace(day=1)
        following = (first + timedelta(days=32)).replace(day=1)
        return Period(kind, first, _midnight(first, zone), _midnight(following, zone))
    return Period(BudgetPeriod.TOTAL, None, None, None)
