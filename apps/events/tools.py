"""The Events area of the catalogue (SPEC 4.7): thin doors onto services and selectors."""

from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.kit import open_tool, share_tool
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, In, Limit, Offset, Out, Page, id_field, paginate
from apps.core import search
from apps.events import errors, selectors, services
from apps.events.models import Attendee, Event, HotelBlock, Session, Supplier
from apps.events.permissions import EventsPerm
from apps.events.shapes import (
    AttendeeOut,
    BlockOut,
    BudgetOut,
    EventOut,
    EventSummary,
    Moment,
    PipelineOut,
    SessionOut,
    StageRef,
    SupplierOut,
    TravelOut,
)
from apps.tenancy import links

EventId = Annotated[int, id_field("searchEvents")]
AttendeeId = Annotated[int, id_field("listEventAttendees")]
StageId = Annotated[int, id_field("getEventPlanningOverview")]
BlockId = Annotated[int, id_field("manageEventHotels")]
SessionId = Annotated[int, id_field("getEvent")]
When = Annotated[datetime, Field(description="ISO 8601; without offset: the event's zone")]
Status = Literal["invited", "registered", "waitlisted", "cancelled", "attended"]
Money = Annotated[float, Field(ge=0, le=10**11, description="Amount, 2 decimals")]


def _event(ctx: ToolContext, event_id: int, action: Any = "view") -> Event:
    return Event.objects.select_related("stage__pipeline", "owner").fetch(ctx.actor, event_id, action)


# --- pipeline -------------------------------------------------------------------------------------


@tool("createEventPipeline", permission=EventsPerm.EDIT, title="Create an event pipeline")
def create_event_pipeline(
    ctx: ToolContext,
    *,
    name: Annotated[str, Field(min_length=1, max_length=120, description="Unique, e.g. Conferences")],
    stages: Annotated[
        list[Annotated[str, Field(max_length=80)]], Field(min_length=1, max_length=20, description="In order")
    ],
    description: Annotated[str, Field(max_length=500, description="What it is for")] = "",
) -> PipelineOut:
    """Make a planning pipeline: ordered stages events move through (idea, booked, done...)."""
    pipeline = services.pipeline_create(actor=ctx.actor, name=name, stages=stages, description=description)
    return PipelineOut.of_record(pipeline)


@tool("moveEventStage", permission=EventsPerm.EDIT, title="Move an event to a stage", idempotent=True)
def move_event_stage(ctx: ToolContext, *, event_id: EventId, stage_id: StageId) -> EventSummary:
    """Put an event on a stage of its planning pipeline (to change its details: updateEvent)."""
    event = _event(ctx, event_id, "change")
    stage = services.stage_of(actor=ctx.actor, stage_id=stage_id)
    return EventSummary.of_record(services.event_move_stage(actor=ctx.actor, event=event, stage=stage))


class BoardEvent(Out):
    id: int
    name: str
    starts_at: Moment
    registered: int
    waitlisted: int
    capacity: int | None


class BoardStage(Out):
    stage: StageRef | None = Field(description="null: events on no stage")
    events: list[BoardEvent]


class BoardPipeline(Out):
    id: int | None
    name: str
    stages: list[BoardStage]


class OverviewOut(Out):
    pipelines: list[BoardPipeline]
    upcoming: int
    attention: list[str] = Field(description="Full events, hotel cut-offs within 14 days")


@tool("getEventPlanningOverview", permission=EventsPerm.VIEW, title="Event planning overview", read_only=True)
def get_event_planning_overview(ctx: ToolContext) -> OverviewOut:
    """The planning board: each pipeline's stages with their events, and what needs attention."""
    pipelines, attention, upcoming = [], [], 0
    today = services.timezone.localdate()
    for column in selectors.board(actor=ctx.actor):
        pipeline = column["pipeline"]
        stages = []
        for stage, events in column["stages"]:
            stages.append(
                BoardStage(
                    stage=StageRef.of_record(stage) if stage else None,
                    events=[BoardEvent.of_record(e) for e in events],
                )
            )
            for event in events:
                if event.cancelled_at is not None:
                    continue  # called off: neither to come nor needing anything
                upcoming += event.starts_at.date() >= today
                taken = event.registered + event.attended  # a checked-in person keeps their place
                if event.capacity and taken >= event.capacity and event.ends_at.date() >= today:
                    attention.append(f"{event.name} ({event.pk}) is full: {event.waitlisted} waitlisted")
        pipelines.append(
            BoardPipeline(
                id=pipeline.pk if pipeline else None, name=pipeline.name if pipeline else "", stages=stages
            )
        )
    soon = HotelBlock.objects.restrict(ctx.actor).filter(
        cut_off__gte=today, cut_off__lte=today + timedelta(days=14), event__cancelled_at__isnull=True
    )
    soon = soon.select_related("event").order_by("cut_off", "id")
    for block in soon[:50]:
        attention.append(
            f"{block.hotel} block for {block.event.name} ({block.event_id}): "
            f"cut-off {block.cut_off.isoformat()}"
        )
    return OverviewOut(pipelines=pipelines, upcoming=upcoming, attention=attention)


# --- events ---------------------------------------------------------------------------------------


@tool("createEvent", permission=EventsPerm.EDIT, title="Create an event")
def create_event(
    ctx: ToolContext,
    *,
    name: Annotated[str, Field(min_length=1, max_length=200, description="As attendees see it")],
    starts_at: When,
    ends_at: When,
    time_zone: Annotated[str, Field(max_length=64, description="IANA, e.g. Europe/Berlin")],
    venue: Annotated[str, Field(max_length=300, description="Place and address")] = "",
    capacity: Annotated[int | None, Field(ge=1, le=1_000_000, description="null: no limit")] = None,
    stage_id: Annotated[int | None, id_field("getEventPlanningOverview")] = None,
    currency: Annotated[str, Field(min_length=3, max_length=3, description="Budget currency")] = "EUR",
    description: Annotated[str, Field(max_length=5000, description="For invitations")] = "",
    visibility: Annotated[
        Literal["workspace", "private"], Field(description="private: you and shares")
    ] = "workspace",
) -> EventSummary:
    """Plan an event (conference, offsite, launch): dates, venue, capacity. Meetings: createCalendarEvent."""
    stage = services.stage_of(actor=ctx.actor, stage_id=stage_id) if stage_id else None
    event = services.event_create(
        actor=ctx.actor,
        fields={
            "name": name,
            "starts_at": starts_at,
            "ends_at": ends_at,
            "time_zone": time_zone,
            "venue": venue,
            "capacity": capacity,
            "stage": stage,
            "currency": currency,
            "description": description,
            "visibility": visibility,
        },
    )
    return EventSummary.of_record(event)


@tool("getEvent", permission=EventsPerm.VIEW, title="Get an event", read_only=True)
def get_event(
    ctx: ToolContext,
    *,
    event_id: EventId,
    with_ics: Annotated[bool, Field(description="Add the iCalendar invitation")] = False,
) -> EventOut:
    """Read an event: agenda, attendee counts, suppliers, hotels, its iCalendar UID and SEQUENCE."""
    from apps.events import ical

    event = _event(ctx, event_id)
    ics = ical.ics_of(event).decode() if with_ics else None
    return EventOut.of(event, ics=ics, url=links.page("events:detail", event_id=event.pk))


class EventChanges(Changes):
    name: Annotated[str, Field(min_length=1, max_length=200)] = ""
    starts_at: When | None = None
    ends_at: When | None = None
    time_zone: Annotated[str, Field(max_length=64)] = ""
    venue: Annotated[str, Field(max_length=300)] = ""
    capacity: Annotated[int | None, Field(ge=1, le=1_000_000)] = None
    currency: Annotated[str, Field(min_length=3, max_length=3)] = ""
    description: Annotated[str, Field(max_length=5000)] = ""


class UpdatedEventOut(Out):
    event: EventSummary
    changed: list[str]
    sequence: int = Field(description="iCalendar SEQUENCE; up when time or place moved")
    promoted: list[int] = Field(description="Attendees moved up from the waitlist")
    reinvited: int


@tool("updateEvent", permission=EventsPerm.EDIT, title="Update an event")
def update_event(
    ctx: ToolContext,
    *,
    event_id: EventId,
    changes: Annotated[EventChanges, Field(description="Only the fields to change")],
    resend_invitations: Annotated[bool, Field(description="E-mail the new time to those invited")] = False,
) -> UpdatedEventOut:
    """Change an event's name, dates, zone, venue, capacity; a new SEQUENCE when time or place moves."""
    from apps.events import ical

    given = changes.given(required=True)
    if given.get("starts_at", 1) is None or given.get("ends_at", 1) is None:
        raise errors.TimesRequired(details={"changes": ["null time"]})
    event, changed, promoted = services.event_update(
        actor=ctx.actor, event=_event(ctx, event_id, "change"), fields=given
    )
    sent = 0
    if resend_invitations and changed:
        for attendee in event.attendees.exclude(status=Attendee.Status.CANCELLED).exclude(
            invited_sequence=None
        ):
            ical.send(actor=ctx.actor, event=event, attendee=attendee)
            sent += 1
    return UpdatedEventOut(
        event=EventSummary.of_record(event),
        changed=changed,
        sequence=event.ical_sequence,
        promoted=[a.pk for a in promoted],
        reinvited=sent,
    )


class CancelledEventOut(Out):
    event: EventSummary
    sequence: int = Field(description="iCalendar SEQUENCE of the cancellation")
    told: int = Field(description="Attendees e-mailed the cancellation")


@tool("cancelEvent", permission=EventsPerm.EDIT, title="Cancel an event", markers=Marker.DESTRUCTIVE)
def cancel_event(ctx: ToolContext, *, event_id: EventId) -> CancelledEventOut:
    """Call an event off and e-mail the cancellation to everyone invited; deleteEvent removes one."""
    event, told = services.event_cancel(actor=ctx.actor, event=_event(ctx, event_id, "change"))
    return CancelledEventOut(event=EventSummary.of_record(event), sequence=event.ical_sequence, told=told)


@tool("deleteEvent", permission=EventsPerm.EDIT, title="Delete an event", markers=Marker.DESTRUCTIVE)
def delete_event(ctx: ToolContext, *, event_id: EventId) -> CancelledEventOut:
    """Move an event to the trash, cancelling it first if still to come (only that: cancelEvent)."""
    event, told = services.event_delete(actor=ctx.actor, event=_event(ctx, event_id, "delete"))
    return CancelledEventOut(event=EventSummary.of_record(event), sequence=event.ical_sequence, told=told)


@tool("listEvents", permission=EventsPerm.VIEW, title="List events", read_only=True)
def list_events(
    ctx: ToolContext,
    *,
    when: Annotated[Literal["upcoming", "past", "all"], Field(description="By end date")] = "upcoming",
    stage_id: Annotated[int | None, id_field("getEventPlanningOverview")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[EventSummary]:
    """List events by date, upcoming or past, optionally on one stage. By words: searchEvents."""
    rows = Event.objects.restrict(ctx.actor).select_related("stage", "owner")
    now = services.timezone.now()
    if when == "upcoming":
        rows = rows.filter(ends_at__gte=now).order_by("starts_at", "id")
    elif when == "past":
        rows = rows.filter(ends_at__lt=now).order_by("-starts_at", "-id")
    if stage_id:
        rows = rows.filter(stage_id=stage_id)
    return paginate(rows, limit=limit, offset=offset, item=EventSummary.of_record)


@tool("searchEvents", permission=EventsPerm.VIEW, title="Search events", read_only=True)
def search_events(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(min_length=1, max_length=200, description="Words of name, venue or text")],
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[EventSummary]:
    """Find events by words in their name, venue or description. By date: listEvents."""
    rows = Event.objects.restrict(ctx.actor).select_related("stage", "owner")
    rows = search.matching(rows, query, ("name", "venue", "description")).order_by("-starts_at", "id")
    return paginate(rows, limit=limit, offset=offset, item=EventSummary.of_record)


open_tool(
    "openEvent",
    permission=EventsPerm.VIEW,
    title="Open an event",
    description="A link to an event's page in the workspace, to open in the browser.",
    page="events:detail",
    id_argument=("event_id", EventId),
    fetch=lambda actor, event_id: Event.objects.fetch(actor, event_id),
    named=lambda event: event.name,
)
open_tool(
    "openEvents",
    permission=EventsPerm.VIEW,
    title="Open the events page",
    description="A link to the Events page (all events, stages and budgets), to open in the browser.",
    page="events:list",
    named="Events",
)


share_tool(
    "shareEvent",
    model=Event,
    title="Share an event",
    id_argument=("event_id", EventId),
)


# --- agenda ---------------------------------------------------------------------------------------


class SpeakerIn(In):
    name: Annotated[str, Field(min_length=1, max_length=200)]
    email: Annotated[str, Field(min_length=3, max_length=254)]


@tool("addEventSession", permission=EventsPerm.EDIT, title="Add a session to an event")
def add_event_session(
    ctx: ToolContext,
    *,
    event_id: EventId,
    title: Annotated[str, Field(min_length=1, max_length=200, description="Talk or slot name")],
    starts_at: When,
    ends_at: When,
    room: Annotated[str, Field(max_length=120, description="Never double-booked")] = "",
    speakers: Annotated[list[SpeakerIn], Field(max_length=20, description="Never double-booked")] = [],  # noqa: B006
    capacity: Annotated[int | None, Field(ge=1, le=1_000_000, description="Seats; null: any")] = None,
) -> SessionOut:
    """Add a talk or slot to an event's agenda; refused if the room or a speaker is taken then."""
    session = services.session_add(
        actor=ctx.actor,
        event=_event(ctx, event_id, "change"),
        fields={
            "title": title,
            "starts_at": starts_at,
            "ends_at": ends_at,
            "room": room,
            "capacity": capacity,
        },
        speakers=[s.model_dump() for s in speakers],
    )
    return SessionOut.of_record(session)


class SessionChanges(Changes):
    title: Annotated[str, Field(min_length=1, max_length=200)] = ""
    starts_at: When | None = None
    ends_at: When | None = None
    room: Annotated[str, Field(max_length=120)] = ""
    capacity: Annotated[int | None, Field(ge=1, le=1_000_000)] = None


@tool("updateEventSession", permission=EventsPerm.EDIT, title="Change an event session")
def update_event_session(
    ctx: ToolContext,
    *,
    session_id: SessionId,
    changes: Annotated[SessionChanges | None, Field(description="Only the fields to change")] = None,
    speakers: Annotated[
        list[SpeakerIn] | None, Field(max_length=20, description="Replaces them; [] for none")
    ] = None,
) -> SessionOut:
    """Change a session or its speakers, checked as addEventSession checks a new one."""
    given = changes.given() if changes else {}
    if not given and speakers is None:
        raise errors.NothingToChangeOfSession(details={"changes": ["empty"]})
    if given.get("starts_at", 1) is None or given.get("ends_at", 1) is None:
        raise errors.TimesRequired(details={"changes": ["null time"]})
    session = services.session_update(
        actor=ctx.actor,
        session=Session.objects.fetch(ctx.actor, session_id, "change"),
        fields=given,
        speakers=[s.model_dump() for s in speakers] if speakers is not None else None,
    )
    return SessionOut.of_record(session)


class RemovedSessionOut(Out):
    id: int
    event_id: int
    title: str
    removed: bool


@tool(
    "removeEventSession",
    permission=EventsPerm.EDIT,
    title="Remove an event session",
    markers=Marker.DESTRUCTIVE,
)
def remove_event_session(ctx: ToolContext, *, session_id: SessionId) -> RemovedSessionOut:
    """Take a session off an event's agenda with its speakers (to change one: updateEventSession)."""
    session = services.session_remove(
        actor=ctx.actor, session=Session.objects.fetch(ctx.actor, session_id, "change")
    )
    return RemovedSessionOut.of_record(session, removed=True)


# --- attendees ------------------------------------------------------------------------------------


class NeedsIn(In):
    dietary: Annotated[str, Field(max_length=200)] = ""
    accessibility: Annotated[str, Field(max_length=200)] = ""


class AttendeeWithPromotions(Out):
    attendee: AttendeeOut
    promoted: list[int] = Field(description="Moved up from the waitlist")


@tool("addEventAttendee", permission=EventsPerm.EDIT, title="Add an attendee to an event")
def add_event_attendee(
    ctx: ToolContext,
    *,
    event_id: EventId,
    name: Annotated[str, Field(min_length=1, max_length=200, description="Full name")],
    email: Annotated[str, Field(min_length=3, max_length=254, description="Unique per event")],
    status: Annotated[
        Literal["invited", "registered", "attended"],
        Field(description="registered when full: waitlisted; attended: a walk-in, from check-in"),
    ] = "invited",
    type: Annotated[str, Field(max_length=40, description="attendee, speaker, staff...")] = "attendee",
    organisation: Annotated[str, Field(max_length=200, description="Company")] = "",
    needs: Annotated[NeedsIn | None, Field(description="Dietary, accessibility; restricted")] = None,
    send_invitation: Annotated[bool, Field(description="E-mail the iCalendar invitation")] = False,
) -> AttendeeOut:
    """Invite or register one person (waitlisted when full). A list from a file: validateAttendeeImport."""
    attendee = services.attendee_add(
        actor=ctx.actor,
        event=_event(ctx, event_id, "change"),
        fields={"name": name, "email": email, "status": status, "type": type, "organisation": organisation},
        needs=needs.model_dump() if needs else None,
    )
    if send_invitation:
        services.invite(actor=ctx.actor, attendee=attendee)
    return AttendeeOut.of(attendee, with_needs="needs" in Attendee.access.fields_allowed(ctx.actor))


class AttendeeChanges(Changes):
    name: Annotated[str, Field(min_length=1, max_length=200)] = ""
    status: Status = "invited"
    type: Annotated[str, Field(min_length=1, max_length=40)] = ""
    organisation: Annotated[str, Field(max_length=200)] = ""


@tool("updateEventAttendee", permission=EventsPerm.EDIT, title="Update an event attendee")
def update_event_attendee(
    ctx: ToolContext,
    *,
    attendee_id: AttendeeId,
    changes: Annotated[AttendeeChanges | None, Field(description="Only the fields to change")] = None,
    needs: Annotated[NeedsIn | None, Field(description="Replaces them; blanks remove")] = None,
    send_invitation: Annotated[bool, Field(description="E-mail the current invitation")] = False,
) -> AttendeeWithPromotions:
    """Change an attendee's status (a cancellation frees a place for the waitlist), details or needs."""
    attendee = Attendee.objects.select_related("event").fetch(ctx.actor, attendee_id, "change")
    given = changes.given() if changes else {}
    if not given and needs is None and not send_invitation:
        raise errors.NothingToChangeOfAttendee(details={"changes": ["empty"]})
    attendee, promoted = services.attendee_update(
        actor=ctx.actor, attendee=attendee, fields=given, needs=needs.model_dump() if needs else None
    )
    if send_invitation:
        services.invite(actor=ctx.actor, attendee=attendee)
    attendee = Attendee.objects.select_related("needs", "travel").get(pk=attendee.pk)
    return AttendeeWithPromotions(
        attendee=AttendeeOut.of(attendee, with_needs="needs" in Attendee.access.fields_allowed(ctx.actor)),
        promoted=[a.pk for a in promoted],
    )


class AttendeePage(Page[AttendeeOut]):
    counts: dict[str, int] = Field(description="All attendees by status")


@tool("listEventAttendees", permission=EventsPerm.VIEW, title="List an event's attendees", read_only=True)
def list_event_attendees(
    ctx: ToolContext,
    *,
    event_id: EventId,
    status: Annotated[Status | None, Field(description="Only these; waitlist in order")] = None,
    query: Annotated[
        str | None, Field(max_length=200, description="Words of name, e-mail, organisation")
    ] = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> AttendeePage:
    """List an event's attendees with status, travel and (if allowed) needs; waitlist in order."""
    event = _event(ctx, event_id)
    rows = Attendee.objects.restrict(ctx.actor).filter(event=event).select_related("needs", "travel")
    if status:
        rows = rows.filter(status=status)
    if search.words(query):
        rows = search.matching(rows, query, ("name", "email", "organisation"))
    rows = (
        rows.order_by("waitlisted_at", "name", "id")
        if status == "waitlisted"
        else rows.order_by("name", "id")
    )
    with_needs = "needs" in Attendee.access.fields_allowed(ctx.actor)
    found = paginate(
        rows, limit=limit, offset=offset, item=lambda a: AttendeeOut.of(a, with_needs=with_needs)
    )
    return AttendeePage(**found.model_dump(by_alias=False), counts=selectors.status_counts(event))


# --- imports --------------------------------------------------------------------------------------


class RowError(Out):
    line: int
    problem: str


class Duplicate(Out):
    line: int
    email: str
    of: str = Field(description="The line it repeats, or an attendee already")


class ValidatedImportOut(Out):
    handle: str = Field(description="Give it to commitAttendeeImport (24 hours)")
    rows: int
    valid: int = Field(description="Rows the commit would add")
    errors: list[RowError]
    duplicates: list[Duplicate]
    ignored_columns: list[str] = Field(description="Needs columns your role may not import")
    preview: list[dict[str, str]] = Field(description="First 10 valid rows")


@tool(
    "validateAttendeeImport",
    permission=EventsPerm.IMPORT,
    title="Check an attendee import file",
    read_only=True,
    long_running=True,
)
def validate_attendee_import(
    ctx: ToolContext, *, event_id: EventId, file_id: Annotated[int, id_field("listFiles")]
) -> ValidatedImportOut:
    """Check a CSV or XLSX file of attendees: row errors, duplicates, and a handle; adds nobody."""
    checked, handle = services.import_validate(
        actor=ctx.actor, event=_event(ctx, event_id, "change"), file_id=file_id
    )
    return ValidatedImportOut(
        handle=handle,
        rows=checked.total,
        valid=len(checked.rows),
        errors=[RowError(**e) for e in checked.errors[:200]],
        duplicates=[Duplicate(**d) for d in checked.duplicates[:200]],
        ignored_columns=checked.ignored_columns,
        preview=[{"name": r.name, "email": r.email, "status": r.status} for r in checked.rows[:10]],
    )


class CommittedImportOut(Out):
    import_id: int
    event_id: int
    created: int
    skipped: int = Field(description="Duplicates left out")
    rejected: int = Field(description="Rows with errors left out")
    already_committed: bool = Field(description="True: this handle was committed before; nothing new")


@tool(
    "commitAttendeeImport",
    permission=EventsPerm.IMPORT,
    title="Import the checked attendees",
    markers=Marker.HIGH_RISK,
    idempotent=True,
)
def commit_attendee_import(
    ctx: ToolContext,
    *,
    handle: Annotated[str, Field(max_length=2000, description="From validateAttendeeImport")],
) -> CommittedImportOut:
    """Add the valid, non-duplicate rows a validateAttendeeImport handle names; a repeat adds nothing."""
    record, made = services.import_commit(actor=ctx.actor, handle=handle)
    return CommittedImportOut.of_record(record, import_id=record.pk, already_committed=not made)


# --- suppliers and budget -------------------------------------------------------------------------


class CostLineIn(In):
    category: Annotated[str, Field(min_length=1, max_length=60, description="venue, catering, av...")]
    description: Annotated[str, Field(min_length=1, max_length=200)]
    planned: Money = 0
    committed: Money = 0
    actual: Money = 0
    currency: Annotated[str | None, Field(min_length=3, max_length=3, description="Default: the event's")] = (
        None
    )
    vat_rate: Annotated[float, Field(ge=0, le=100, description="Percent")] = 0
    rate: Annotated[float | None, Field(gt=0, le=10**6, description="1 unit in the event's currency")] = None
    rate_date: date | None = None


@tool("addEventSupplier", permission=EventsPerm.EDIT, title="Add an event supplier")
def add_event_supplier(
    ctx: ToolContext,
    *,
    event_id: EventId,
    name: Annotated[str, Field(max_length=200, description="Required unless supplierId")] = "",
    service: Annotated[str, Field(max_length=200, description="What they provide")] = "",
    email: Annotated[str, Field(max_length=254, description="Their contact address")] = "",
    contract: Annotated[str, Field(max_length=200, description="Contract reference")] = "",
    supplier_id: Annotated[int | None, id_field("getEvent", description="Add lines to this supplier")] = None,
    cost_lines: Annotated[list[CostLineIn], Field(max_length=50, description="Amounts to budget")] = [],  # noqa: B006
) -> SupplierOut:
    """Record a supplier (caterer, venue, AV) of an event with cost lines planned/committed/actual."""
    event = _event(ctx, event_id, "change")
    if supplier_id:
        supplier = Supplier.objects.fetch(ctx.actor, supplier_id, "change")
        if supplier.event_id != event.pk:
            raise errors.SupplierOfAnotherEvent(
                supplier=supplier_id, event=event.pk, details={"supplierId": ["other event"]}
            )
    else:
        supplier = services.supplier_add(
            actor=ctx.actor,
            event=event,
            fields={"name": name, "service": service, "email": email, "contract": contract},
        )
    services.cost_lines_add(
        actor=ctx.actor, event=event, supplier=supplier, lines=[c.model_dump() for c in cost_lines]
    )
    return SupplierOut.of_record(supplier)


@tool("getEventBudgetSummary", permission=EventsPerm.VIEW, title="Event budget summary", read_only=True)
def get_event_budget_summary(ctx: ToolContext, *, event_id: EventId) -> BudgetOut:
    """An event's budget in its currency: planned, committed, actual by category, hotels included."""
    event = _event(ctx, event_id)
    return BudgetOut.of(event, selectors.budget_of(event))


class BudgetAnalysisOut(Out):
    budget: BudgetOut
    findings: list[str] = Field(description="Overruns, unplanned spend, hotel attrition exposure")
    attendees: int = Field(description="Registered and attended")
    cost_per_attendee: Decimal | None = Field(description="Committed or actual, the larger")
    hotel_exposure: Decimal


@tool("analyzeEventBudget", permission=EventsPerm.VIEW, title="Analyze an event budget", read_only=True)
def analyze_event_budget(ctx: ToolContext, *, event_id: EventId) -> BudgetAnalysisOut:
    """Check an event's budget: overruns by category, cost per attendee, hotel attrition risk."""
    event = _event(ctx, event_id)
    budget = selectors.budget_of(event)
    heads = services.taken_places(event)
    spent = max(budget.total.committed, budget.total.actual)
    return BudgetAnalysisOut(
        budget=BudgetOut.of(event, budget),
        findings=selectors.findings(event, budget),
        attendees=heads,
        cost_per_attendee=selectors.money(spent / heads) if heads else None,
        hotel_exposure=selectors.money(sum((use.exposure for use in budget.hotels), Decimal(0))),
    )


# --- hotels ---------------------------------------------------------------------------------------


class BlockIn(In):
    hotel: Annotated[str | None, Field(min_length=1, max_length=200)] = None
    room_type: Annotated[str | None, Field(min_length=1, max_length=80)] = None
    first_night: date | None = None
    nights: Annotated[int | None, Field(ge=1, le=60)] = None
    rooms: Annotated[int | None, Field(ge=1, le=10_000, description="Rooms each night")] = None
    rate: Annotated[Money | None, Field(description="A room a night")] = None
    currency: Annotated[str | None, Field(min_length=3, max_length=3)] = None
    cut_off: Annotated[date | None, Field(description="Unallocated rooms go back after")] = None
    exchange_rate: Annotated[
        float | None, Field(gt=0, le=10**6, description="1 unit in the event's currency")
    ] = None
    attrition_percent: Annotated[float | None, Field(ge=0, le=100, description="Allowed shortfall %")] = None


class HotelsOut(Out):
    event_id: int
    blocks: list[BlockOut]
    warnings: list[str] = Field(description="Blocks past their cut-off")


@tool("manageEventHotels", permission=EventsPerm.EDIT, title="Manage event hotel rooms")
def manage_event_hotels(
    ctx: ToolContext,
    *,
    event_id: EventId,
    action: Annotated[Literal["list", "add", "update", "remove"], Field(description="remove: to trash")],
    block_id: Annotated[int | None, id_field("manageEventHotels", description="For update, remove")] = None,
    block: Annotated[BlockIn | None, Field(description="For add (all but attrition), update")] = None,
) -> HotelsOut:
    """List, add, change or remove an event's hotel room contracts (nights, rate, cut-off, attrition)."""
    event = _event(ctx, event_id, "view" if action == "list" else "change")
    if action in ("update", "remove"):
        if not block_id:
            raise errors.BlockIdRequired(action=action, details={"blockId": ["required"]})
        found = HotelBlock.objects.fetch(ctx.actor, block_id, "change")
        if found.event_id != event.pk:
            raise errors.BlockOfAnotherEvent(
                block=block_id, event=event.pk, details={"blockId": ["other event"]}
            )
        if action == "remove":
            services.block_remove(actor=ctx.actor, block=found)
        else:
            services.block_save(actor=ctx.actor, event=event, block=found, fields=_given(block))
    elif action == "add":
        services.block_save(actor=ctx.actor, event=event, block=None, fields=_given(block))
    uses = selectors.blocks_of(event)
    today = services.timezone.localdate()
    warnings = [
        f"Block {use.block.pk} ({use.block.hotel}): its cut-off {use.block.cut_off.isoformat()} has passed; "
        "the hotel has its unallocated rooms back and no more can be allocated."
        for use in uses
        if use.block.cut_off < today
    ]
    return HotelsOut(event_id=event.pk, blocks=[BlockOut.of(use) for use in uses], warnings=warnings)


def _given(block: BlockIn | None) -> dict[str, Any]:
    if block is None:
        raise errors.BlockRequired(details={"block": ["required"]})
    return {key: value for key, value in block.model_dump().items() if value is not None}


class AllocationOut(Out):
    block: BlockOut
    attendee_id: int
    first_night: date | None
    nights: int | None
    sharing_with: int | None
    allocated: bool


@tool("allocateEventHotel", permission=EventsPerm.EDIT, title="Allocate a hotel room")
def allocate_event_hotel(
    ctx: ToolContext,
    *,
    block_id: BlockId,
    attendee_id: AttendeeId,
    action: Annotated[Literal["allocate", "cancel"], Field(description="cancel frees the room")] = "allocate",
    first_night: Annotated[date | None, Field(description="Default: the block's first")] = None,
    nights: Annotated[int | None, Field(ge=1, le=60, description="Default: to the block's end")] = None,
    sharing_with_attendee_id: Annotated[
        int | None, id_field("listEventAttendees", description="Roommate")
    ] = None,
) -> AllocationOut:
    """Give an attendee a room of a hotel block (or cancel it); refused when the block is full."""
    block = HotelBlock.objects.select_related("event").fetch(ctx.actor, block_id, "change")
    attendee = Attendee.objects.fetch(ctx.actor, attendee_id, "change")
    if action == "cancel":
        services.allocation_cancel(actor=ctx.actor, block=block, attendee=attendee)
        allocation = None
    else:
        mate = (
            Attendee.objects.fetch(ctx.actor, sharing_with_attendee_id, "change")
            if sharing_with_attendee_id
            else None
        )
        allocation = services.allocation_add(
            actor=ctx.actor,
            block=block,
            attendee=attendee,
            first_night=first_night,
            nights=nights,
            sharing_with=mate,
        )
    use = next(u for u in selectors.blocks_of(block.event) if u.block.pk == block.pk)
    return AllocationOut(
        block=BlockOut.of(use),
        attendee_id=attendee.pk,
        first_night=allocation.first_night if allocation else None,
        nights=allocation.nights if allocation else None,
        sharing_with=allocation.sharing_with_id if allocation else None,
        allocated=allocation is not None,
    )


# --- travel ---------------------------------------------------------------------------------------


class TravelPlanOut(Out):
    attendee_id: int
    travel: TravelOut
    note: str


@tool("planEventAttendeeTravel", permission=EventsPerm.EDIT, title="Plan an attendee's travel")
def plan_event_attendee_travel(
    ctx: ToolContext,
    *,
    attendee_id: AttendeeId,
    status: Annotated[
        Literal["needed", "planned", "not_needed"] | None, Field(description="Of the travel")
    ] = None,
    mode: Annotated[
        Literal["flight", "train", "car", "other"] | None, Field(description="How they go")
    ] = None,
    origin: Annotated[str | None, Field(max_length=200, description="Where they travel from")] = None,
    arrive_by: When | None = None,
    depart_after: When | None = None,
    plan: Annotated[str | None, Field(max_length=4000, description="Route, times, references")] = None,
) -> TravelPlanOut:
    """Record what an attendee needs to travel and the plan; it books nothing."""
    attendee = Attendee.objects.fetch(ctx.actor, attendee_id, "change")
    given: dict[str, Any] = {
        key: value
        for key, value in {"status": status, "mode": mode, "origin": origin, "plan": plan}.items()
        if value is not None
    }
    given |= {
        key: value for key, value in {"arrive_by": arrive_by, "depart_after": depart_after}.items() if value
    }
    if not given:
        raise errors.NothingToRecord(details={"plan": ["empty"]})
    travel = services.travel_plan(actor=ctx.actor, attendee=attendee, fields=given)
    return TravelPlanOut(
        attendee_id=attendee.pk,
        travel=TravelOut.of(travel),
        note="Recorded only: nothing is booked. Book through the travel provider, then note it in the plan.",
    )
