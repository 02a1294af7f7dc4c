"""A recurrence rule is refused when it has no occurrence within 100 years of its start: the 30th of
February, every seventh day that is a Tuesday from a Monday, a leap day every 1,000 years. One
that occurs rarely but within them is kept (apps.core.recurrence)."""

import zoneinfo
from datetime import datetime, timedelta

import pytest

from apps.core import recurrence
from apps.core.errors import ValidationFailed

BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")
MONDAY = datetime(2026, 12, 7, 9, tzinfo=BERLIN)


@pytest.mark.parametrize(
    "rule",
    [
        "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30",
        "FREQ=HOURLY;BYMONTH=4;BYMONTHDAY=31",
        "FREQ=DAILY;COUNT=5;BYMONTH=2;BYMONTHDAY=30",
        "FREQ=DAILY;INTERVAL=7;BYDAY=TU",
        "FREQ=YEARLY;INTERVAL=1000;BYMONTH=2;BYMONTHDAY=29",
    ],
)
def test_a_rule_that_never_occurs_soon_is_refused(rule):
    with pytest.raises(ValidationFailed) as refused:
        recurrence.normalise_rule(rule, start=MONDAY, zone=BERLIN)

    assert "no occurrence within 100 years" in str(refused.value)


@pytest.mark.parametrize(
    ("rule", "start", "first"),
    [
        ("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29", MONDAY, datetime(2028, 2, 29, 9)),
        ("FREQ=DAILY;INTERVAL=7;BYDAY=MO", MONDAY, datetime(2026, 12, 7, 9)),
        # Every hundred years on the leap day: 2000, not 2100, 2200 or 2300, then 2400.
        ("FREQ=YEARLY;INTERVAL=100;BYMONTH=2;BYMONTHDAY=29", datetime(2000, 2, 29, tzinfo=BERLIN), None),
        ("FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=1", datetime(1950, 3, 1, tzinfo=BERLIN), datetime(1950, 3, 1)),
    ],
)
def test_a_rule_that_occurs_within_the_years_is_kept(rule, start, first):
    canonical = recurrence.normalise_rule(rule, start=start, zone=BERLIN)

    found = recurrence.next_start(canonical, start=start, zone=BERLIN, after=start - timedelta(days=1))
    assert found is not None
    if first is not None:
        assert found.replace(tzinfo=None) == first
