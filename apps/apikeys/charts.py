"""The usage chart of an API key's page: spend and model calls per day, as bars drawn in SVG on
the server (apikeys/_usage_chart.html).

The site's Content-Security-Policy allows no inline style and no script from elsewhere, so the
chart is plain SVG: geometry computed here, colours from classes of static/css/atrium.css. It is
an image with a title and a description for screen readers; the numbers themselves are in the
table under it.
"""

import math
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.utils.translation import gettext as _

from apps.apikeys.templatetags.apikeys import usd

# The drawing's own units (the viewBox); the page scales it to its width.
WIDTH = 600
PANEL_HEIGHT = 90
# Room on the left for the scale, below each panel for its baseline, on top for its caption.
LEFT = 56
TOP = 18
GAP = 30
# Between two bars, as a share of a day's width.
SPACING = 0.2


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    day: date
    value: int
    # What the bar says when pointed at (its <title>).
    label: str


@dataclass(frozen=True)
class Panel:
    caption: str
    # The top of the scale (a round number at least the largest value) and how it is written.
    scale_label: str
    top: float
    baseline: float
    bars: list[Bar]
    css_class: str


@dataclass(frozen=True)
class UsageChart:
    width: int
    height: int
    left: int
    panels: list[Panel]
    first_day: date | None
    last_day: date | None
    # For screen readers: what the chart shows, in a sentence.
    summary: str


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is at least `value` (scales read
    best in round numbers)."""
    if value <= 0:
        return 1.0
    power = 1.0
    while power * 10 <= value:
        power *= 10
    while power > value:
        power /= 10
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power


def _panel(
    days: list[dict[str, Any]],
    *,
    field: str,
    caption: str,
    top: float,
    css_class: str,
    money: bool,
    describe: Any,
) -> Panel:
    values = [int(day[field]) for day in days]
    ceiling = nice_ceiling(max(values, default=0))
    if not money:
        # Calls are whole: a scale of 2.5 calls would read oddly.
        ceiling = float(math.ceil(ceiling))
    baseline = top + PANEL_HEIGHT
    slot = (WIDTH - LEFT) / max(len(days), 1)
    bars = []
    for index, (day, value) in enumerate(zip(days, values, strict=True)):
        height = PANEL_HEIGHT * value / ceiling if value else 0.0
        # A day with some use is never drawn as nothing.
        if value and height < 1:
            height = 1.0
        bars.append(
            Bar(
                x=round(LEFT + index * slot + slot * SPACING / 2, 2),
                y=round(baseline - height, 2),
                width=round(slot * (1 - SPACING), 2),
                height=round(height, 2),
                day=day["date"],
                value=value,
                label=describe(day["date"], value),
            )
        )
    scale_label = usd(ceiling) if money else f"{int(ceiling):,}"
    return Panel(
        caption=caption,
        scale_label=scale_label,
        top=top,
        baseline=baseline,
        bars=bars,
        css_class=css_class,
    )


def usage_chart(days: list[dict[str, Any]]) -> UsageChart:
    """The chart of `days` (selectors.usage_days: oldest first, one entry per day, zeros
    included)."""
    spend = _panel(
        days,
        field="spent_micro_usd",
        caption=_("Spend per day (USD)"),
        top=TOP,
        css_class="spend",
        money=True,
        describe=lambda day, value: f"{day:%Y-%m-%d}: {usd(value)}",
    )
    calls = _panel(
        days,
        field="calls",
        caption=_("Model calls per day"),
        top=TOP + PANEL_HEIGHT + GAP,
        css_class="calls",
        money=False,
        describe=lambda day, value: f"{day:%Y-%m-%d}: {value:,}",
    )
    total_spent = sum(int(day["spent_micro_usd"]) for day in days)
    total_calls = sum(int(day["calls"]) for day in days)
    summary = _(
        "Over the last %(days)d days this key spent %(spent)s in %(calls)s model calls; "
        "the busiest day: %(busiest)s."
    ) % {
        "days": len(days),
        "spent": usd(total_spent),
        "calls": f"{total_calls:,}",
        "busiest": _busiest(days),
    }
    return UsageChart(
        width=WIDTH,
        height=int(calls.baseline + 16),
        left=LEFT,
        panels=[spend, calls],
        first_day=days[0]["date"] if days else None,
        last_day=days[-1]["date"] if days else None,
        summary=summary,
    )


def _busiest(days: list[dict[str, Any]]) -> str:
    used = [day for day in days if day["spent_micro_usd"] or day["calls"]]
    if not used:
        return _("none, it was not used")
    busiest = max(used, key=lambda day: (day["spent_micro_usd"], day["calls"]))
    return _("%(day)s (%(spent)s, %(calls)s model calls)") % {
        "day": f"{busiest['date']:%Y-%m-%d}",
        "spent": usd(busiest["spent_micro_usd"]),
        "calls": f"{busiest['calls']:,}",
    }
