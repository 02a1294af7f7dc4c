"""Exchange rates for event budgets: the one place that says what one unit of a currency is
worth in another on a date.

No rates area exists yet, so `provider` is empty and a rate is the one the planner gave with the
amount. When the Accounting area keeps dated rates it sets `provider` (a function of
(from, to, day) answering a Decimal or None) and every budget uses its rates from then on.
"""

from collections.abc import Callable
from datetime import date
from decimal import Decimal

from apps.events.errors import NoBudgetRate

Provider = Callable[[str, str, date], Decimal | None]
provider: Provider | None = None


def rate(*, source: str, target: str, day: date, given: Decimal | None = None) -> Decimal:
    """What one `source` is worth in `target` on `day`: 1 for the same currency, else the
    provider's rate, else `given`; NoBudgetRate when there is none."""
    if source == target:
        return Decimal(1)
    found = provider(source, target, day) if provider is not None else None
    if found is None:
        found = given
    if found is None or found <= 0:
        raise NoBudgetRate(
            source=source,
            target=target,
            date=day.isoformat(),
            details={"rate": ["required for another currency"]},
        )
    return Decimal(found)
