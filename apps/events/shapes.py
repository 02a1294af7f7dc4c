"""What the Events tools answer (apps.catalogue.shapes.Out: camelCase, read from records)."""

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any

from pydantic import Field

from apps.catalogue.shapes import From, Out, PersonRef
from apps.events import selectors
from apps.events.models import Attendee, Event

# Every time an Events answer gives, whichever tool gives it: in UTC, the event's zone beside it.
Moment = Annotated[datetime, Field(description="UTC; the event's zone is its timeZone")]


class StageRef(Out):
    id: int
    name: str
    position: int


class EventSummary(Out):
    id: int
    name: str
    starts_at: Moment
    ends_at: Moment
    time_zone: str
    venue: str
    capacity: int | None
    stage: StageRef | None
    currency: str
    visibility: str
    owner: PersonRef | None
    in_trash: bool
    cancelled_at: datetime | None = Field(description="Set when cancelEvent called it off")


class PipelineOut(Out):
    id: int
    name: str
    description: str
    stages: list[StageRef]


class SpeakerOut(Out):
    name: str
    email: str


class SessionOut(Out):
    id: int
    title: str
    starts_at: Moment
    ends_at: Moment
    room: str
    capacity: int | None
    speakers: list[SpeakerOut]


class NeedsOut(Out):
    dietary: str
    accessibility: str


class TravelOut(Out):
    status: str
    mode: str
    origin: str
    arrive_by: datetime | None
    depart_after: datetime | None
    plan: str
    booking: None = Field(description="Always null: no travel booking is made yet")

    @classmethod
    def of(cls, travel: Any) -> "TravelOut":
        return cls.of_record(travel, booking=None)


class AttendeeOut(Out):
    id: int
    event_id: int
    name: str
    email: str
    organisation: str
    type: str
    status: str
    invited_sequence: int | None = Field(description="The SEQUENCE of the last invitation sent")
    needs: NeedsOut | None = Field(description="Only for roles allowed to see needs")
    travel: TravelOut | None

    @classmethod
    def of(cls, attendee: Attendee, *, with_needs: bool) -> "AttendeeOut":
        needs = getattr(attendee, "needs", None) if with_needs else None
        travel = getattr(attendee, "travel", None)
        return cls.of_record(
            attendee,
            needs=NeedsOut.of_record(needs) if needs is not None else None,
            travel=TravelOut.of(travel) if travel is not None else None,
        )


class CostLineOut(Out):
    id: int
    category: str
    description: str
    currency: str
    planned: Decimal
    committed: Decimal
    actual: Decimal
    vat_rate: Decimal
    rate: Decimal = Field(description="One unit in the event's currency")
    rate_date: date


class SupplierOut(Out):
    id: int
    name: str
    service: str
    email: str
    contract: str
    cost_lines: list[CostLineOut]


class BlockOut(Out):
    id: int
    hotel: Annotated[str, From("block.hotel")]
    room_type: Annotated[str, From("block.room_type")]
    first_night: Annotated[date, From("block.first_night")]
    nights: Annotated[int, From("block.nights")]
    rooms: Annotated[int, From("block.rooms")]
    rate: Annotated[Decimal, From("block.rate")]
    currency: Annotated[str, From("block.currency")]
    cut_off: Annotated[date, From("block.cut_off")]
    attrition_percent: Annotated[Decimal, From("block.attrition_percent")]
    room_nights: int
    allocated: int = Field(description="Room nights allocated")
    pickup_percent: Decimal
    guaranteed: int = Field(description="Room nights paid for whatever the pickup")
    exposure: Decimal = Field(description="Paid for unused rooms at this pickup, event currency")

    @classmethod
    def of(cls, use: selectors.BlockUse) -> "BlockOut":
        return cls.of_record(use, id=use.block.pk)


class CalendarOut(Out):
    uid: str
    sequence: int


class EventOut(Out):
    event: EventSummary
    description: str
    pipeline: str | None
    attendees: dict[str, int] = Field(description="How many by status")
    sessions: list[SessionOut]
    suppliers: list[SupplierOut]
    hotels: list[BlockOut]
    calendar: CalendarOut
    ics: str | None = Field(description="The invitation as iCalendar, when asked")
    url: str

    @classmethod
    def of(cls, event: Event, *, ics: str | None, url: str) -> "EventOut":
        return cls(
            event=EventSummary.of_record(event),
            description=event.description,
            pipeline=event.stage.pipeline.name if event.stage else None,
            attendees=selectors.status_counts(event),
            sessions=[
                SessionOut.of_record(s)
                for s in event.sessions.filter(deleted_at__isnull=True).prefetch_related("speakers")
            ],
            suppliers=[
                SupplierOut.of_record(s)
                for s in event.suppliers.filter(deleted_at__isnull=True).prefetch_related("cost_lines")
            ],
            hotels=[BlockOut.of(use) for use in selectors.blocks_of(event)],
            calendar=CalendarOut(uid=event.ical_uid, sequence=event.ical_sequence),
            ics=ics,
            url=url,
        )


class TotalsOut(Out):
    planned: Decimal
    committed: Decimal
    actual: Decimal
    remaining: Decimal = Field(description="Planned less the larger of committed and actual")

    @classmethod
    def of(cls, totals: selectors.Totals) -> "TotalsOut":
        return cls.of_record(totals, remaining=totals.planned - max(totals.committed, totals.actual))


class CategoryOut(TotalsOut):
    category: str


class BudgetOut(Out):
    event_id: int
    currency: str
    total: TotalsOut
    categories: list[CategoryOut]
    currencies: list[str] = Field(description="Currencies the lines were given in")
    lines: int

    @classmethod
    def of(cls, event: Event, budget: selectors.Budget) -> "BudgetOut":
        return cls(
            event_id=event.pk,
            currency=budget.currency,
            total=TotalsOut.of(budget.total),
            categories=[
                CategoryOut.of_record(t, category=c, remaining=t.planned - max(t.committed, t.actual))
                for c, t in budget.categories.items()
            ],
            currencies=budget.currencies,
            lines=budget.lines,
        )
