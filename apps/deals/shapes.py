"""What the Deals Pipeline tools answer (apps.catalogue.shapes.Out: camelCase, read from records).
Amounts are decimal strings ("12500.00"): exact, as they are kept."""

from datetime import date, datetime
from typing import Annotated, Any

from pydantic import Field

from apps.catalogue.shapes import From, Out, PersonRef, RefOut, id_field
from apps.core.actors import Actor
from apps.core.clean import plain
from apps.core.records import seen_by
from apps.deals import selectors
from apps.deals.models import Deal

Amount = Annotated[str, Field(description="Decimal string")]


class StageOut(Out):
    id: int
    name: str
    position: int
    probability: int = Field(description="Win %")
    rotting_days: int | None


class PipelineOut(Out):
    id: int
    name: str
    description: str
    currency: str
    archived: Annotated[bool, From("in_trash")]
    stages: list[StageOut]


class StageRef(Out):
    id: int
    name: str


def party(record: Any, title: str, reader: Actor) -> RefOut | None:
    """The deal's contact or group account; unnamed to a reader who may not see it."""
    if record is None:
        return None
    return RefOut(id=record.pk, name=str(getattr(record, title)) if seen_by(reader, record) else "")


class DealSummary(Out):
    id: int
    title: str
    pipeline_id: int
    stage: StageRef
    status: str
    value: Amount
    currency: str
    owner: PersonRef | None
    expected_close: date | None
    in_trash: bool

    @classmethod
    def of(cls, deal: Deal) -> "DealSummary":
        return cls.of_record(deal, value=str(deal.value), owner=PersonRef.of(deal.owner))


class VisitOut(Out):
    stage: Annotated[str, From("stage_name")]
    pipeline: Annotated[str, From("pipeline_name")]
    entered_at: datetime
    left_at: datetime | None


class ActivityOut(Out):
    id: int
    deal_id: int
    kind: str
    channel: str
    summary: str
    outcome: str
    happened_at: datetime | None
    due_at: datetime | None
    time_zone: str = Field(description="The owner's, of dueAt")
    done_at: datetime | None
    owner: PersonRef | None

    @classmethod
    def of(cls, activity: Any) -> "ActivityOut":
        return cls.of_record(activity, owner=PersonRef.of(activity.owner))


class DealOut(DealSummary):
    pipeline_currency: Annotated[str, From("pipeline.currency")]
    exchange_rate: Amount
    weighted_value: Amount | None = Field(description="value x rate x stage win %; null once won or lost")
    lost_reason: str
    closed_at: datetime | None
    contact: RefOut | None
    group_account: RefOut | None
    notes: str
    visibility: str
    stage_entered_at: datetime
    last_contact_at: datetime | None
    rotting_days: int | None = Field(description="Days past the stage's rotting limit")
    history: list[VisitOut] = Field(description="Stage visits, oldest first")
    open_follow_ups: list[ActivityOut]
    url: str

    @classmethod
    def of(cls, deal: Deal, *, url: str, reader: Actor) -> "DealOut":  # type: ignore[override]
        follow_ups = deal.activities.filter(kind="follow_up", done_at__isnull=True).select_related("owner")
        weighted = selectors.weighted(deal)
        return cls.of_record(
            deal,
            value=str(deal.value),
            exchange_rate=str(plain(deal.exchange_rate)),
            weighted_value=None if weighted is None else str(weighted),
            owner=PersonRef.of(deal.owner),
            contact=party(deal.contact, "display_name", reader),
            group_account=party(deal.group_account, "name", reader),
            rotting_days=selectors.rotting_days(deal),
            history=[VisitOut.of_record(v) for v in deal.visits.order_by("entered_at", "id")[:200]],
            open_follow_ups=[ActivityOut.of(a) for a in follow_ups.order_by("due_at")[:50]],
            url=url,
        )


# --- arguments the tools share ----------------------------------------------------------------------

DealId = Annotated[int, id_field("searchDeals or listDeals")]
PipelineId = Annotated[int, id_field("getPipelineOverview")]
StageId = Annotated[int, id_field("getPipelineOverview")]
