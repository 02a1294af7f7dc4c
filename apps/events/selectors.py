"""Reads about events beyond what the access model gives (`Event.objects.restrict(actor)`):
counts by status, the planning board, and budgets in the event's currency."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db.models import Count, Q
from django.utils import timezone

from apps.core.actors import Actor
from apps.events.models import Attendee, AttendeeImport, Event, EventPipeline, HotelBlock

CENT = Decimal("0.01")


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def with_counts(rows: Any) -> Any:
    """Events with how many attendees they have by status (attributes `registered` ...)."""
    return rows.annotate(
        **{
            status.value: Count("attendees", filter=Q(attendees__status=status.value))
            for status in Attendee.Status
        }
    )


def status_counts(event: Event) -> dict[str, int]:
    found = dict(event.attendees.values_list("status").annotate(n=Count("id")))
    return {status.value: found.get(status.value, 0) for status in Attendee.Status}


def board(*, actor: Actor) -> list[dict[str, Any]]:
    """Each pipeline with its stages and the events in each (upcoming first)."""
    events = with_counts(Event.objects.restrict(actor).select_related("stage"))
    by_stage: dict[int | None, list[Event]] = defaultdict(list)
    for event in events.order_by("starts_at", "id")[:1000]:
        by_stage[event.stage_id].append(event)
    pipelines = EventPipeline.objects.restrict(actor).prefetch_related("stages")
    return [
        {
            "pipeline": pipeline,
            "stages": [(stage, by_stage.get(stage.pk, [])) for stage in pipeline.stages.all()],
        }
        for pipeline in pipelines
    ] + ([{"pipeline": None, "stages": [(None, by_stage[None])]}] if by_stage.get(None) else [])


def imports_of(*, actor: Actor, event: Event, limit: int = 50) -> list[AttendeeImport]:
    """The event's last imports, each with `file_seen`: whether the reader may see the file it
    read, whose name is shown only then (someone's private list stays theirs)."""
    from apps.files import api as files

    rows = list(event.imports.all()[:limit])
    seen = set(
        files.File.objects.restrict(actor, trash="include")
        .filter(pk__in=[row.file_id for row in rows])
        .values_list("pk", flat=True)
    )
    for row in rows:
        row.file_seen = row.file_id in seen  # type: ignore[attr-defined]
    return rows


# --- hotels ---------------------------------------------------------------------------------------


@dataclass
class BlockUse:
    block: HotelBlock
    room_nights: int
    allocated: int
    by_night: dict[date, int]
    # Room nights the event pays for whatever happens (the block less its attrition allowance).
    guaranteed: int
    contracted: Decimal  # the block's whole cost, in the event's currency
    exposure: Decimal  # what is paid for rooms nobody uses, at the current pickup

    @property
    def pickup_percent(self) -> Decimal:
        return money(Decimal(100 * self.allocated) / Decimal(self.room_nights))


def block_use(block: HotelBlock, rate: Decimal) -> BlockUse:
    by_night: dict[date, int] = {}
    for allocation in block.allocations.all():
        for offset in range(allocation.nights):
            night = allocation.first_night + timedelta(days=offset)
            by_night[night] = by_night.get(night, 0) + 1
    room_nights = block.rooms * block.nights
    allocated = sum(by_night.values())
    guaranteed = int((Decimal(room_nights) * (100 - block.attrition_percent) / 100).to_integral_value())
    return BlockUse(
        block=block,
        room_nights=room_nights,
        allocated=allocated,
        by_night=by_night,
        guaranteed=guaranteed,
        contracted=money(block.rate * room_nights * rate),
        exposure=money(block.rate * max(0, guaranteed - allocated) * rate),
    )


def blocks_of(event: Event) -> list[BlockUse]:
    rows = event.hotel_blocks.filter(deleted_at__isnull=True).prefetch_related("allocations")
    return [block_use(block, block.exchange_rate) for block in rows]


# --- budgets --------------------------------------------------------------------------------------


@dataclass
class Totals:
    planned: Decimal = Decimal(0)
    committed: Decimal = Decimal(0)
    actual: Decimal = Decimal(0)

    def add(self, planned: Decimal, committed: Decimal, actual: Decimal) -> None:
        self.planned += planned
        self.committed += committed
        self.actual += actual

    def rounded(self) -> "Totals":
        return Totals(money(self.planned), money(self.committed), money(self.actual))


@dataclass
class Budget:
    currency: str
    total: Totals = field(default_factory=Totals)
    categories: dict[str, Totals] = field(default_factory=dict)
    hotels: list[BlockUse] = field(default_factory=list)
    lines: int = 0
    currencies: list[str] = field(default_factory=list)


def budget_of(event: Event) -> Budget:
    """Every budget line at its dated rate, by category, plus hotel blocks as committed lodging."""
    budget = Budget(currency=event.currency)
    seen_currencies = set()
    for line in event.budget_lines.all():
        totals = budget.categories.setdefault(line.category, Totals())
        values = (line.planned * line.rate, line.committed * line.rate, line.actual * line.rate)
        totals.add(*values)
        budget.total.add(*values)
        budget.lines += 1
        seen_currencies.add(line.currency)
    budget.hotels = blocks_of(event)
    for use in budget.hotels:
        lodging = budget.categories.setdefault("lodging", Totals())
        lodging.add(Decimal(0), use.contracted, Decimal(0))
        budget.total.add(Decimal(0), use.contracted, Decimal(0))
        seen_currencies.add(use.block.currency)
    budget.total = budget.total.rounded()
    budget.categories = {key: value.rounded() for key, value in sorted(budget.categories.items())}
    budget.currencies = sorted(seen_currencies)
    return budget


def findings(event: Event, budget: Budget, *, today: date | None = None) -> list[str]:
    """What a planner should look at: overruns, hotel exposure near cut-off, cost per head."""
    today = today or timezone.localdate()
    found = []
    for category, totals in budget.categories.items():
        spent = max(totals.committed, totals.actual)
        if totals.planned and spent > totals.planned:
            over = money(spent - totals.planned)
            found.append(f"{category}: {over} {budget.currency} over the plan of {totals.planned}")
        elif not totals.planned and spent:
            found.append(f"{category}: {spent} {budget.currency} spent with nothing planned")
    for use in budget.hotels:
        block = use.block
        if use.exposure:
            days = (block.cut_off - today).days
            when = f"cut-off in {days} days" if days >= 0 else "cut-off passed"
            found.append(
                f"{block.hotel}: {use.allocated} of {use.room_nights} room nights used "
                f"({use.pickup_percent}%), "
                f"{use.exposure} {budget.currency} attrition exposure ({when})"
            )
    return found
