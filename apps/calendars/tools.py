"""The Calendars area of the catalogue (SPEC 4.7): thin doors onto services and selectors.

getCalendarSummary is the area's MANDATORY FIRST CALL: the dispatcher refuses every other
calendar tool in a session until it has answered once, so an agent always knows the workspace's
time zone, its calendars and the rules for writing times before it acts.
"""

import hashlib
from datetime import datetime, timedelta
from typing import Annotated, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field

from apps.calendars import feeds, invitations, selectors, services
from apps.calendars.errors import FeedPasswordRefused
from apps.calendars.models import Attendee, Calendar, Event
from apps.calendars.permissions import CalendarsPerm
from apps.calendars.shapes import AttendeeOut, BusyOut, CalendarOut, EventOut, Interval, OccurrenceOut
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, EntityId, From, In, Limit, Offset, Out, Page, id_field, page_of
from apps.core import recurrence, search
from apps.core.errors import invalid

EventId = Annotated[int, id_field("searchCalendarEvents")]
# How to write times (ISO 8601), zones (IANA) and rules (RFC 5545 RRULE) is said once, in
# getCalendarSummary's `rules`: the area's first call, so every agent has read it before these.
When = Annotated[str, Field(max_length=40)]
ZoneName = Annotated[str, Field(max_length=64)]
Rule = Annotated[str, Field(max_length=500)]
Email = Annotated[str, Field(min_length=3, max_length=254)]
Status = Literal["confirmed", "tentative", "cancelled"]
Response = Literal["needs_action", "accepted", "tentative", "declined"]

RULES = [
    "Times: ISO 8601. Without an offset (2026-03-10T14:30) a time is read in the event's time zone, "
    "which is its calendar's (default: the workspace's) unless you pass timeZone.",
    "Time zones: IANA names such as Europe/London.",
    "Repeats: an RFC 5545 RRULE value, e.g. FREQ=WEEKLY;BYDAY=TU;COUNT=8; UNTIL may be a date.",
    "Invitations are e-mails with an iCalendar file; createCalendarEvent does not send them, "
    "sendCalendarInvite does (after the user confirms).",
]


# --- getCalendarSummary -----------------------------------------------------------------------------


class SummaryOut(Out):
    workspace_time_zone: str
    now: datetime = Field(description="In the workspace's zone")
    your_calendar_id: int | None = Field(description="Used when none is named")
    calendars: list[CalendarOut]
    upcoming: list[OccurrenceOut]
    awaiting_your_answer: list[OccurrenceOut]
    rules: list[str] = Field(description="How to write times, zones and repeats")


@tool(
    "getCalendarSummary",
    permission=CalendarsPerm.VIEW,
    title="Calendar summary",
    markers=Marker.MANDATORY_FIRST_CALL,
    read_only=True,
)
def get_calendar_summary(
    ctx: ToolContext,
    *,
    days: Annotated[int, Field(ge=1, le=31, description="Days ahead to list")] = 7,
) -> SummaryOut:
    """Call first: time zone, now, calendars, agenda, and how to write times."""
    zone = recurrence.workspace_zone()
    now = timezone.now()
    calendars = list(Calendar.objects.restrict(ctx.actor).select_related("owner")[:100])
    events = Event.objects.restrict(ctx.actor)
    upcoming = selectors.occurrences(events, start=now, end=now + timedelta(days=days))[:25]
    waiting = events.filter(
        attendees__user=ctx.actor.pk, attendees__response=Attendee.Response.NEEDS_ACTION
    ).exclude(status=Event.Status.CANCELLED)
    pending = selectors.occurrences(waiting, start=now, end=now + timedelta(days=365))
    first_of_each: dict[int, selectors.Occurrence] = {}
    for occurrence in pending:
        first_of_each.setdefault(occurrence.event.pk, occurrence)
    own = next(
        (calendar.pk for calendar in calendars if calendar.is_default and calendar.owner_id == ctx.actor.pk),
        None,
    )
    counts = _attendee_counts(upcoming)
    return SummaryOut(
        workspace_time_zone=zone.key,
        now=now.astimezone(zone),
        your_calendar_id=own,
        calendars=[CalendarOut.of_record(calendar) for calendar in calendars],
        upcoming=[OccurrenceOut.of(occurrence, counts) for occurrence in upcoming],
        awaiting_your_answer=[
            OccurrenceOut.of(occurrence) for occurrence in list(first_of_each.values())[:25]
        ],
        rules=RULES,
    )


def _attendee_counts(occurrences: list[selectors.Occurrence]) -> dict[int, int]:
    ids = {occurrence.event.pk for occurrence in occurrences}
    rows = Attendee.objects.filter(event_id__in=ids).values("event_id").annotate(n=Count("id"))
    return {row["event_id"]: row["n"] for row in rows}


# --- manageCalendar ---------------------------------------------------------------------------------


class CalendarFields(Changes):
    name: Annotated[str, Field(max_length=120)] | None = None
    description: Annotated[str, Field(max_length=5000)] | None = None
    colour: Annotated[str, Field(max_length=7)] | None = Field(None, description="e.g. #3366cc")
    time_zone: ZoneName | None = Field(None, description="Its events' default zone")
    visibility: Literal["workspace", "private"] | None = Field(None, description="private: only you")


class FeedIn(In):
    url: Annotated[str, Field(min_length=1, max_length=2000, description="https iCalendar (.ics) feed")]
    username: Annotated[str, Field(max_length=200)] | None = Field(
        None, description="If the feed needs a login; the user enters its password on a secure page"
    )


class FeedImportOut(Out):
    feed_id: Annotated[int, From("feed.pk")]
    url: Annotated[str, From("feed.url")]
    created: int
    updated: int
    skipped: int


class CalendarResultOut(Out):
    action: str
    calendar: CalendarOut
    changed: list[str]
    feed: FeedImportOut | None = None


@tool("manageCalendar", permission=CalendarsPerm.MANAGE, title="Create or change a calendar", open_world=True)
def manage_calendar(
    ctx: ToolContext,
    *,
    action: Annotated[
        Literal["create", "update", "archive", "restore", "subscribe"],
        Field(description="archive hides it with its events; subscribe imports an outside feed"),
    ],
    calendar_id: Annotated[int | None, Field(ge=1, description="Not for create")] = None,
    calendar: Annotated[CalendarFields | None, Field(description="Fields for create and update")] = None,
    feed: Annotated[FeedIn | None, Field(description="For subscribe")] = None,
) -> CalendarResultOut:
    """Create, change, archive, restore a calendar or import a feed (events: createCalendarEvent).

    subscribe copies an outside iCalendar feed's events into the calendar, again at each call."""
    fields = calendar.given() if calendar else {}
    if action == "create":
        if calendar_id is not None:
            raise invalid("calendar_id", _("leave it out to create a calendar"))
        created = services.calendar_create(actor=ctx.actor, fields=fields)
        return CalendarResultOut(
            action=action, calendar=CalendarOut.of_record(created), changed=sorted(fields)
        )
    if calendar_id is None:
        raise invalid("calendar_id", _("is required to {action} a calendar"), action=action)
    found = Calendar.objects.select_related("owner").fetch(
        ctx.actor,
        calendar_id,
        "delete" if action in {"archive", "restore"} else "change",
        trash=action == "restore",
    )
    if action == "subscribe":
        if feed is None:
            raise invalid("feed", _("is required to subscribe a calendar to a feed"))
        imported = _subscribe(ctx, found, feed)
        return CalendarResultOut(
            action=action,
            calendar=CalendarOut.of_record(found),
            changed=["events"] if imported.created or imported.updated else [],
            feed=FeedImportOut.of_record(imported),
        )
    if action == "update":
        changed = services.calendar_update(actor=ctx.actor, calendar=found, fields=fields)
    elif action == "archive":
        services.calendar_archive(actor=ctx.actor, calendar=found)
        changed = ["archived"]
    else:
        services.calendar_restore(actor=ctx.actor, calendar=found)
        changed = ["restored"]
    return CalendarResultOut(action=action, calendar=CalendarOut.of_record(found), changed=changed)


def _subscribe(ctx: ToolContext, found: Calendar, feed: FeedIn) -> feeds.Imported:
    url = feed.url.strip()
    feeds.check_feed_url(url)
    username = (feed.username or "").strip()
    if not username:
        return feeds.feed_import(actor=ctx.actor, calendar=found, url=url, username="", password=None)
    stored = feeds.stored_password(calendar=found, url=url, username=username)
    password = stored if stored is not None else _ask_password(ctx, found, url, username)
    try:
        return feeds.feed_import(
            actor=ctx.actor, calendar=found, url=url, username=username, password=password
        )
    except FeedPasswordRefused:
        if stored is None:
            raise
    # The password kept from last time no longer works: the user enters the new one.
    password = _ask_password(ctx, found, url, username)
    return feeds.feed_import(actor=ctx.actor, calendar=found, url=url, username=username, password=password)


def _ask_password(ctx: ToolContext, found: Calendar, url: str, username: str) -> str:
    key = hashlib.sha256(f"{url}\n{username}".encode()).hexdigest()[:24]
    host = urlsplit(url).hostname or url
    return ctx.secure_input(
        purpose=f"calendars.feed:{found.pk}:{key}",
        message=f"Enter the password of {username} for the calendar feed at {host} "
        f"(calendar “{found.name}”).",
        label="Password",
    )


# --- createCalendarEvent / updateCalendarEvent ------------------------------------------------------


class AttendeeIn(In):
    email: Email | None = None
    contact_id: EntityId | None = Field(None, description="Or a contact")
    name: Annotated[str, Field(max_length=200)] | None = None
    optional: bool = False


Attendees = Annotated[list[AttendeeIn], Field(max_length=100, description="People to invite")]


@tool("createCalendarEvent", permission=CalendarsPerm.EDIT, title="Create a calendar event")
def create_calendar_event(
    ctx: ToolContext,
    *,
    title: Annotated[str, Field(min_length=1, max_length=300, description="What the event is")],
    start: Annotated[When, Field(description="ISO 8601, in its zone; a date if all-day")],
    end: Annotated[When | None, Field(description="All-day: the last day")] = None,
    duration_minutes: Annotated[
        int | None, Field(ge=1, le=60 * 24 * 14, description="Instead of end (default 60)")
    ] = None,
    calendar_id: Annotated[int | None, Field(ge=1, description="Default: your own")] = None,
    time_zone: Annotated[ZoneName | None, Field(description="Of its times and repeats")] = None,
    all_day: Annotated[bool, Field(description="Start and end are dates")] = False,
    recurrence: Annotated[Rule, Field(description="RRULE; empty: once")] = "",
    location: Annotated[str, Field(max_length=300, description="Where")] = "",
    description: Annotated[str, Field(max_length=10_000, description="Details, agenda")] = "",
    attendees: Attendees = [],  # noqa: B006 (pydantic copies defaults)
    status: Annotated[Status, Field(description="confirmed or tentative")] = "confirmed",
    busy: Annotated[bool, Field(description="Makes its people busy")] = True,
) -> EventOut:
    """Add an event to a calendar, once or repeating, with attendees. To e-mail them: sendCalendarInvite."""
    calendar = (
        Calendar.objects.fetch(ctx.actor, calendar_id, "change")
        if calendar_id
        else services.default_calendar(actor=ctx.actor)
    )
    fields = {
        "title": title,
        "start": start,
        "end": end,
        "duration_minutes": duration_minutes,
        "all_day": all_day,
        "recurrence": recurrence,
        "location": location,
        "description": description,
        "status": status,
        "busy": busy,
    }
    if time_zone:
        fields["time_zone"] = time_zone
    event = services.event_create(
        actor=ctx.actor, calendar=calendar, fields=fields, attendees=[a.model_dump() for a in attendees]
    )
    return EventOut.of(event)


class EventChanges(Changes):
    title: Annotated[str, Field(min_length=1, max_length=300)] | None = None
    start: When | None = Field(None, description="The end moves with it")
    end: When | None = None
    duration_minutes: Annotated[int, Field(ge=1, le=60 * 24 * 14)] | None = Field(
        None, description="Instead of end"
    )
    all_day: bool | None = None
    time_zone: ZoneName | None = None
    recurrence: Rule | None = Field(None, description="Empty: stop repeating")
    cancel_occurrence: When | None = Field(None, description="The start of one to remove")
    location: Annotated[str, Field(max_length=300)] | None = None
    description: Annotated[str, Field(max_length=10_000)] | None = None
    status: Status | None = None
    busy: bool | None = None
    calendar_id: EntityId | None = None


class ResponseIn(In):
    email: Email
    response: Response
    comment: Annotated[str, Field(max_length=500)] = ""


class UpdatedEventOut(Out):
    event: EventOut
    changed: list[str]
    invitations_outdated: list[str] = Field(description="Resend with sendCalendarInvite")


@tool("updateCalendarEvent", permission=CalendarsPerm.EDIT, title="Update a calendar event", idempotent=True)
def update_calendar_event(
    ctx: ToolContext,
    *,
    event_id: EventId,
    changes: Annotated[EventChanges | None, Field(description="Only the fields to change")] = None,
    add_attendees: Annotated[Attendees, Field(description="To invite")] = [],  # noqa: B006
    remove_attendees: Annotated[list[Email], Field(max_length=100, description="To uninvite")] = [],  # noqa: B006
    responses: Annotated[list[ResponseIn], Field(max_length=100, description="Answers they gave you")] = [],  # noqa: B006
) -> UpdatedEventOut:
    """Change or cancel an event, invite or uninvite people, record answers. Resend: sendCalendarInvite."""
    fields = changes.given() if changes else {}
    if fields.get("start") is None:
        fields.pop("start", None)
    # A person's own answer changes nothing of the event: an invited person gives it on an event
    # they see (a private calendar's, which they may not change), as its invitation's link does.
    own = bool(responses) and all(
        answer.email.strip().lower() == ctx.actor.email.lower() for answer in responses
    )
    answering_only = own and not (fields or add_attendees or remove_attendees)
    event = Event.objects.select_related("calendar", "organizer").fetch(
        ctx.actor, event_id, "view" if answering_only else "change"
    )
    changed = (
        []
        if answering_only
        else services.event_update(
            actor=ctx.actor,
            event=event,
            fields=fields,
            add=[a.model_dump() for a in add_attendees],
            remove=remove_attendees,
        )
    )
    if responses:
        changed += services.responses_record(
            actor=ctx.actor, event=event, answers=[answer.model_dump() for answer in responses]
        )
    outdated = [
        attendee.email
        for attendee in event.attendees.all()
        if attendee.invited_sequence is not None and attendee.invited_sequence != event.sequence
    ]
    return UpdatedEventOut(event=EventOut.of(event), changed=changed, invitations_outdated=outdated)


# --- searchCalendarEvents -------------------------------------------------------------------------


def _window(
    start: str | None,
    end: str | None,
    *,
    default_days: int,
    longest_days: int,
    zone: ZoneInfo | None = None,
) -> tuple[datetime, datetime]:
    """The window [start, end): times and dates without an offset read in `zone` (default: the
    workspace's)."""
    zone = zone or recurrence.workspace_zone()
    begin = services.when(start, zone=zone, field="start", allow_date=True) if start else timezone.now()
    finish = (
        services.when(end, zone=zone, field="end", allow_date=True)
        if end
        else begin + timedelta(days=default_days)
    )
    if finish <= begin:
        raise invalid("end", _("the end of the window must be after its start"))
    if finish - begin > timedelta(days=longest_days):
        raise invalid(
            "end", _("the window may be at most {longest_days} days long"), longest_days=longest_days
        )
    return begin, finish


@tool("searchCalendarEvents", permission=CalendarsPerm.VIEW, title="Search calendar events", read_only=True)
def search_calendar_events(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words in the title, place or details")] = "",
    start: Annotated[When | None, Field(description="Default: now")] = None,
    end: Annotated[When | None, Field(description="Default: 30 days on; a year at most")] = None,
    calendar_id: Annotated[int | None, Field(ge=1, description="Only this calendar")] = None,
    attendee_email: Annotated[Email | None, Field(description="Only with this attendee")] = None,
    include_cancelled: Annotated[bool, Field(description="Cancelled ones too")] = False,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[OccurrenceOut]:
    """Find events in a time window by words, calendar or attendee, repeats as occurrences, soonest first."""
    begin, finish = _window(start, end, default_days=30, longest_days=366)
    rows = Event.objects.restrict(ctx.actor)
    if calendar_id:
        rows = rows.filter(calendar=Calendar.objects.fetch(ctx.actor, calendar_id))
    if attendee_email:
        rows = rows.filter(attendees__email__iexact=attendee_email.strip())
    if not include_cancelled:
        rows = rows.exclude(status=Event.Status.CANCELLED)
    rows = search.matching(rows, query, ("title", "location", "description"))
    found = selectors.occurrences(rows.distinct(), start=begin, end=finish)
    window = found[offset : offset + limit]
    counts = _attendee_counts(window)
    return page_of(
        [OccurrenceOut.of(item, counts) for item in window], total=len(found), limit=limit, offset=offset
    )


# --- checkAvailability ------------------------------------------------------------------------------


class PersonAvailability(Out):
    email: str
    name: str
    known: bool = Field(description="A person or a contact here")
    busy: list[BusyOut]


class AvailabilityOut(Out):
    time_zone: str
    start: datetime
    end: datetime
    duration_minutes: int
    people: list[PersonAvailability]
    free_slots: list[Interval]


@tool("checkAvailability", permission=CalendarsPerm.VIEW, title="Check people's availability", read_only=True)
def check_availability(
    ctx: ToolContext,
    *,
    attendees: Annotated[
        list[Email], Field(min_length=1, max_length=20, description="Their e-mail addresses")
    ],
    start: Annotated[When | None, Field(description="Default: now")] = None,
    end: Annotated[When | None, Field(description="Default: 7 days on; 31 at most")] = None,
    duration_minutes: Annotated[int, Field(ge=5, le=60 * 12, description="Meeting length")] = 30,
    time_zone: Annotated[ZoneName | None, Field(description="Of the working hours")] = None,
    day_starts_at: Annotated[int, Field(ge=0, le=23, description="Working day's first hour")] = 9,
    day_ends_at: Annotated[int, Field(ge=1, le=24, description="Working day's end hour")] = 17,
    include_weekends: Annotated[bool, Field(description="Offer weekends too")] = False,
) -> AvailabilityOut:
    """Find when people are busy and the slots when all are free, within working hours."""
    if day_ends_at <= day_starts_at:
        raise invalid("day_ends_at", _("working hours must end after they start"))
    zone = recurrence.zone_named(time_zone, field="time_zone")
    # Its days are the days of the zone its working hours are in: "the 16th" in Auckland.
    begin, finish = _window(start, end, default_days=7, longest_days=31, zone=zone)
    from apps.accounts.models import User
    from apps.contacts import api as contacts_api

    people, every_busy = [], []
    for email in dict.fromkeys(address.strip().lower() for address in attendees):
        user = User.objects.filter(email=email, is_active=True).first()
        contact = contacts_api.contacts(ctx.actor).filter(email__iexact=email).order_by("pk").first()
        found = selectors.occurrences(selectors.busy_events_of(email, user), start=begin, end=finish)
        ids = {occurrence.event.pk for occurrence in found}
        visible = set(Event.objects.restrict(ctx.actor).filter(pk__in=ids).values_list("pk", flat=True))
        blocks = []
        for occurrence in found:
            shown = occurrence.event.pk in visible
            blocks.append(
                BusyOut(
                    start=occurrence.starts_at.astimezone(zone),
                    end=occurrence.ends_at.astimezone(zone),
                    event_id=occurrence.event.pk if shown else None,
                    title=occurrence.event.title if shown else "busy",
                )
            )
            every_busy.append((occurrence.starts_at, occurrence.ends_at))
        name = (user.full_name if user else "") or (contact.display_name if contact else "")
        people.append(PersonAvailability(email=email, name=name, known=bool(user or contact), busy=blocks))
    if not include_weekends:
        every_busy += _weekends(begin, finish, zone)
    slots = selectors.free_slots(
        every_busy,
        start=begin,
        end=finish,
        length=timedelta(minutes=duration_minutes),
        zone=zone,
        day_starts=day_starts_at,
        day_ends=day_ends_at,
    )
    return AvailabilityOut(
        time_zone=zone.key,
        start=begin.astimezone(zone),
        end=finish.astimezone(zone),
        duration_minutes=duration_minutes,
        people=people,
        free_slots=[Interval(start=a.astimezone(zone), end=b.astimezone(zone)) for a, b in slots],
    )


def _weekends(begin: datetime, finish: datetime, zone: object) -> list[tuple[datetime, datetime]]:
    from datetime import time as clock

    blocks = []
    day = begin.astimezone(zone).date()  # type: ignore[arg-type]
    while datetime.combine(day, clock(0), tzinfo=zone) < finish:  # type: ignore[arg-type]
        if day.weekday() >= 5:
            start = datetime.combine(day, clock(0), tzinfo=zone)  # type: ignore[arg-type]
            blocks.append((start, start + timedelta(days=1)))
        day += timedelta(days=1)
    return blocks


# --- checkEventRsvpStatus ---------------------------------------------------------------------------


class RsvpOut(Out):
    event_id: int
    title: str
    start: datetime
    sequence: int
    accepted: int
    tentative: int
    declined: int
    needs_action: int
    not_invited_yet: list[str]
    attendees: list[AttendeeOut]


@tool("checkEventRsvpStatus", permission=CalendarsPerm.VIEW, title="Check who is coming", read_only=True)
def check_event_rsvp_status(ctx: ToolContext, *, event_id: EventId) -> RsvpOut:
    """Get who is invited to an event, what each answered and whether their invitation is current."""
    event = Event.objects.fetch(ctx.actor, event_id)
    attendees = list(event.attendees.all())
    count = {value: sum(1 for a in attendees if a.response == value) for value in Attendee.Response.values}
    return RsvpOut.of_record(
        event,
        event_id=event.pk,
        start=event.starts_at.astimezone(recurrence.zone_named(event.time_zone)),
        accepted=count["accepted"],
        tentative=count["tentative"],
        declined=count["declined"],
        needs_action=count["needs_action"],
        not_invited_yet=[a.email for a in attendees if a.invited_at is None],
        attendees=[AttendeeOut.of(attendee, event) for attendee in attendees],
    )


# --- sendCalendarInvite -------------------------------------------------------------------------------


class SentOut(Out):
    email: str
    sent_at: datetime


class InviteOut(Out):
    event_id: int
    uid: str = Field(description="iCalendar UID")
    sequence: int
    method: str = Field(description="REQUEST or CANCEL")
    sent: list[SentOut]


@tool(
    "sendCalendarInvite",
    permission=CalendarsPerm.INVITE,
    title="Send calendar invitations",
    markers=Marker.GATED,
    open_world=True,
)
def send_calendar_invite(
    ctx: ToolContext,
    *,
    event_id: EventId,
    attendee_emails: Annotated[
        list[Email] | None,
        Field(max_length=100, description="Default: all but you"),
    ] = None,
    message: Annotated[str, Field(max_length=2000, description="A note in the e-mail")] = "",
) -> InviteOut:
    """E-mail an event's invitation (.ics) to its attendees; sent again, it updates their calendars."""
    event = Event.objects.select_related("organizer").fetch(ctx.actor, event_id, "change")
    attendees = list(event.attendees.all())
    if attendee_emails:
        wanted = {email.strip().lower() for email in attendee_emails}
        unknown = sorted(wanted - {attendee.email for attendee in attendees})
        if unknown:
            raise invalid(
                "attendee_emails",
                _("not attendees of event {event}: {unknown}; add them with updateCalendarEvent"),
                event=event.pk,
                unknown=", ".join(unknown),
            )
        chosen = [attendee for attendee in attendees if attendee.email in wanted]
    else:
        chosen = [attendee for attendee in attendees if attendee.user_id != ctx.actor.pk]
    if not chosen:
        raise invalid(
            "attendee_emails", _("event {event} has nobody to invite; add attendees first"), event=event.pk
        )
    sent = invitations.send(actor=ctx.actor, event=event, attendees=chosen, note=message.strip())
    return InviteOut.of_record(
        event,
        event_id=event.pk,
        method="CANCEL" if event.status == Event.Status.CANCELLED else "REQUEST",
        sent=[SentOut.of_record(row, email=row.recipient) for row in sent],
    )
