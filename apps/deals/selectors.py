"""Reads of the Deals Pipeline that are domain: the board of a pipeline (counts, value and weighted
value by stage in the pipeline's currency), rotting deals, and follow-ups due in their owners'
time zones. Rows always come from `restrict(actor)`."""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.utils import timezone

from apps.core.actors import Actor
from apps.deals.models import Activity, Deal, Pipeline, Stage
from apps.deals.services import zone_of

CENT = Decimal("0.01")


def converted(deal: Deal) -> Decimal:
    """The deal's value in its pipeline's currency (at the rate kept with it)."""
    return (deal.value * deal.exchange_rate).quantize(CENT)


def weighted(deal: Deal) -> Decimal | None:
    """value x stage probability, in the pipeline's currency; None once won or lost, when the
    stage's chance no longer says anything (its value is won, or nothing)."""
    if deal.status != Deal.Status.OPEN:
        return None
    return (deal.value * deal.exchange_rate * deal.stage.probability / 100).quantize(CENT)


def idle_since(deal: Deal) -> datetime:
    """Since when nothing happened to the deal on its stage: it came there, or a contact was logged."""
    if deal.last_contact_at and deal.last_contact_at > deal.stage_entered_at:
        return deal.last_contact_at
    return deal.stage_entered_at


def rotting_days(deal: Deal, now: datetime | None = None) -> int | None:
    """Days past its stage's rotting days an open deal has sat idle (0 or more), or None."""
    limit = deal.stage.rotting_days
    if deal.status != Deal.Status.OPEN or not limit:
        return None
    idle = ((now or timezone.now()) - idle_since(deal)).days
    return idle - limit if idle > limit else None


@dataclass
class StageColumn:
    stage: Stage
    deals: list[Deal] = field(default_factory=list)
    value: Decimal = Decimal(0)
    weighted: Decimal = Decimal(0)


@dataclass
class Board:
    pipeline: Pipeline
    columns: list[StageColumn]
    rotting: list[Deal]
    won: int
    won_value: Decimal
    lost: int

    @property
    def open(self) -> int:
        return sum(len(column.deals) for column in self.columns)

    @property
    def value(self) -> Decimal:
        return sum((column.value for column in self.columns), Decimal(0))

    @property
    def weighted(self) -> Decimal:
        return sum((column.weighted for column in self.columns), Decimal(0))


def boards(
    *, actor: Actor | None, pipeline_id: int | None = None, since: datetime | None = None
) -> list[Board]:
    """Each live pipeline the actor sees (or the one asked for) with its open deals by stage;
    won and lost counted since `since` (default: 30 days)."""
    pipelines: Iterable[Pipeline] = Pipeline.objects.restrict(actor).prefetch_related("stages")
    if pipeline_id:
        pipelines = [Pipeline.objects.fetch(actor, pipeline_id)]
    since = since or timezone.now() - timedelta(days=30)
    now = timezone.now()
    result = []
    for pipeline in pipelines:
        columns = {stage.pk: StageColumn(stage) for stage in pipeline.stages.order_by("position", "id")}
        rows = Deal.objects.restrict(actor).filter(pipeline=pipeline).select_related("stage", "owner")
        for deal in rows.filter(status=Deal.Status.OPEN).order_by("-value", "id")[:5000]:
            column = columns[deal.stage_id]
            column.deals.append(deal)
            column.value += converted(deal)
            column.weighted += weighted(deal) or Decimal(0)
        closed = rows.filter(closed_at__gte=since)
        won = list(closed.filter(status=Deal.Status.WON))
        result.append(
            Board(
                pipeline=pipeline,
                columns=list(columns.values()),
                rotting=[d for column in columns.values() for d in column.deals if rotting_days(d, now)],
                won=len(won),
                won_value=sum((converted(d) for d in won), Decimal(0)),
                lost=closed.filter(status=Deal.Status.LOST).count(),
            )
        )
    return result


def follow_ups_due(
    *, actor: Actor | None, within_days: int = 0, owner_id: int | None = None, limit: int = 200
) -> list[tuple[Activity, bool]]:
    """Open follow-ups on deals the actor sees, due by the end of the owner's day `within_days`
    from today in the owner's time zone, earliest first, with whether each is overdue (its day
    is past)."""
    now = timezone.now()
    # The widest any zone's day reaches (UTC+14), then each row by its owner's own day.
    rows = Activity.objects.restrict(actor).filter(
        kind=Activity.Kind.FOLLOW_UP,
        done_at__isnull=True,
        due_at__lt=now + timedelta(days=within_days + 2),
        deal__status=Deal.Status.OPEN,
    )
    if owner_id is not None:
        rows = rows.filter(owner_id=owner_id)
    found = []
    zones: dict[Any, Any] = {}
    for activity in rows.select_related("deal__stage", "deal__owner", "owner").order_by("due_at", "id")[
        :2000
    ]:
        if activity.due_at is None:
            continue  # (the filter above asks for a due time)
        zone = zones.setdefault(activity.owner_id, zone_of(activity.owner))
        today, day = now.astimezone(zone).date(), activity.due_at.astimezone(zone).date()
        if day <= today + timedelta(days=within_days):
            found.append((activity, day < today))
        if len(found) >= limit:
            break
    return found
