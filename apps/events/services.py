"""Writes about events. Each checks the actor's permission and the rules of the area, writes
all or nothing (the dispatcher's transaction, or `transaction.atomic` here), and logs ids only."""

import hashlib
import logging
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounting import api as accounting
from apps.accounts.models import person
from apps.core import clean, pipelines, records
from apps.core.actors import Actor, actor_id, require
from apps.core.db import EXCLUSION_VIOLATION, database_failure
from apps.core.errors import Forbidden, NoExchangeRate, invalid
from apps.events import errors, ical, imports
from apps.events.models import (
    Attendee,
    AttendeeImport,
    AttendeeNeeds,
    BudgetLine,
    Event,
    EventPipeline,
    HotelBlock,
    RoomAllocation,
    Session,
    Speaker,
    Stage,
    Supplier,
    TravelPlan,
)
from apps.events.permissions import EventsPerm

logger = logging.getLogger(__name__)
TAKING_A_PLACE = (Attendee.Status.REGISTERED, Attendee.Status.ATTENDED)
# An event is days, a festival weeks: a span of years is a typing slip, not a plan.
LONGEST_EVENT = timedelta(days=366)
# Check-in (marking people attended) opens this long before the event starts.
CHECK_IN_OPENS = timedelta(hours=24)


# --- small checks ---------------------------------------------------------------------------------


def dec(value: Any, places: str = "0.01") -> Decimal:
    """A number as agents give it (JSON: a float) as a Decimal of `places`."""
    return Decimal(str(value or 0)).quantize(Decimal(places))


def in_zone(value: datetime, zone: str, *, field: str = "startsAt") -> datetime:
    """A time given without a zone is in the event's time zone; kept and answered in UTC, so that
    every answer gives its times in one form whatever the call that made them. A wall-clock time
    that the zone skips (the hour clocks go forward) does not exist: refused, not guessed."""
    if value.tzinfo is None:
        local = value.replace(tzinfo=ZoneInfo(zone))
        if local.astimezone(UTC).astimezone(local.tzinfo).replace(tzinfo=None) != value:
            raise invalid(
                field,
                _("{time} does not exist in {zone}: the clocks skip that hour that day; give another time"),
                time=value.isoformat(timespec="minutes"),
                zone=zone,
            )
        value = local
    return value.astimezone(UTC)


def _span(starts: datetime, ends: datetime, what: str) -> None:
    if ends <= starts:
        raise invalid(
            "endsAt",
            _("the {what} must end after it starts ({starts})"),
            what=what,
            starts=starts.isoformat(),
        )


# --- pipelines and stages -------------------------------------------------------------------------


def pipeline_create(*, actor: Actor, name: str, stages: list[str], description: str = "") -> EventPipeline:
    require(actor, EventsPerm.EDIT)
    return pipelines.create(
        EventPipeline,
        actor=actor,
        name=name,
        stages=[{"name": stage} for stage in stages],
        description=description,
    )


def stage_of(*, actor: Actor, stage_id: int) -> Stage:
    stage: Stage = pipelines.stage_of(EventPipeline, actor=actor, stage_id=stage_id)
    return stage


@transaction.atomic
def event_move_stage(*, actor: Actor, event: Event, stage: Stage) -> Event:
    require(actor, EventsPerm.EDIT)
    event = Event.objects.fetch(actor, event.pk, "change", lock=True)
    if event.stage is not None:
        pipelines.on_pipeline(stage, event.stage.pipeline, what=_("the event"))
    event.stage = stage
    event.save(update_fields=["stage", "updated_at"])
    return event


# --- events ---------------------------------------------------------------------------------------


def _apply_event(actor: Actor, event: Event, fields: dict[str, Any], creating: bool) -> None:
    if "name" in fields:
        event.name = clean.text(fields["name"], field="name", limit=200, required=True)
    if "description" in fields:
        event.description = clean.long_text(fields["description"], field="description", limit=5000)
    if "time_zone" in fields:
        event.time_zone = clean.zone(fields["time_zone"])
    before = event.starts_at if not creating else None
    if "starts_at" in fields:
        event.starts_at = in_zone(fields["starts_at"], event.time_zone, field="startsAt")
    if "ends_at" in fields:
        event.ends_at = in_zone(fields["ends_at"], event.time_zone, field="endsAt")
    _span(event.starts_at, event.ends_at, "event")
    if event.starts_at != before and event.starts_at < timezone.now():
        raise invalid(
            "startsAt",
            _("{starts} is in the past; an event is planned ahead (its start may stay as it was)"),
            starts=event.starts_at.isoformat(),
        )
    if event.ends_at - event.starts_at > LONGEST_EVENT:
        raise invalid(
            "endsAt",
            _("an event lasts at most {days} days; check the dates (one is likely mistyped)"),
            days=LONGEST_EVENT.days,
        )
    if "venue" in fields:
        event.venue = clean.text(fields["venue"], field="venue", limit=300)
    if "capacity" in fields:
        capacity = fields["capacity"]
        if capacity is not None and capacity < 1:
            raise invalid("capacity", _("at least 1, or null for no limit"))
        event.capacity = capacity
    if "currency" in fields:
        currency = clean.currency(fields["currency"])
        if not creating and currency != event.currency and _has_amounts(event):
            raise invalid(
                "currency",
                _("its budget lines and hotel blocks are at rates to its currency; it cannot change now"),
            )
        event.currency = currency
    if "stage" in fields:
        event.stage = fields["stage"]
    if "visibility" in fields:
        event.visibility = fields["visibility"]


def _has_amounts(event: Event) -> bool:
    """Whether amounts are kept at a rate to the event's currency: its budget lines and its hotel
    blocks (a removed block counts no more, and nothing brings it back)."""
    return event.budget_lines.exists() or event.hotel_blocks.filter(deleted_at__isnull=True).exists()


def event_create(*, actor: Actor, fields: dict[str, Any]) -> Event:
    return records.create(
        Event,
        actor=actor,
        permission=EventsPerm.EDIT,
        fields=fields,
        apply=_apply_event,
        owner_id=actor_id(actor),
        time_zone=clean.zone(fields.get("time_zone") or "UTC"),
    )


SCHEDULE = ("starts_at", "ends_at", "time_zone", "venue", "name")


@transaction.atomic
def event_update(
    *, actor: Actor, event: Event, fields: dict[str, Any]
) -> tuple[Event, list[str], list[Attendee]]:
    """(event, the fields that changed, the attendees moved up from the waitlist)."""
    event = Event.objects.fetch(actor, event.pk, "change", lock=True)
    _not_cancelled(event)
    was = _Span(event.starts_at, event.ends_at, event.time_zone)
    names = ["name", "description", "starts_at", "ends_at", "time_zone", "venue", "capacity", "currency"]
    changed = records.update(
        event, actor=actor, permission=EventsPerm.EDIT, fields=fields, apply=_apply_event, names=names
    )
    if "capacity" in changed:
        _capacity_holds(event)
    if {"starts_at", "ends_at"} & set(changed):
        _move_sessions(actor, event, was)
    if set(changed) & set(SCHEDULE):
        # A new SEQUENCE: invitations sent before are out of date and the next one replaces them.
        event.ical_sequence += 1
        event.save(update_fields=["ical_sequence"])
    promoted = promote_waitlist(event) if "capacity" in changed else []
    return event, changed, promoted


def _not_cancelled(event: Event) -> None:
    if event.cancelled_at is not None:
        raise errors.EventCancelled(event=event.pk)


# The statuses of someone still to come: nobody takes one once the event has ended.
JOINING = (Attendee.Status.INVITED, Attendee.Status.REGISTERED, Attendee.Status.WAITLISTED)


def _not_over(event: Event, status: str) -> None:
    """After its end an event takes nobody who is still to come (invited, registered, waiting);
    who came is still recorded (attended), and cancellations still tidy up."""
    if status in JOINING and event.ends_at <= timezone.now():
        raise invalid(
            "status",
            _("the event ended at {ended}; nobody is {status} for it any more (record who came as attended)"),
            ended=event.ends_at.isoformat(),
            status=status,
        )


def _capacity_holds(event: Event) -> None:
    """A capacity below the places taken names who would be over it (the last registered)."""
    taken = event.attendees.filter(status__in=TAKING_A_PLACE)
    over = taken.count() - (event.capacity or 0)
    if event.capacity is None or over <= 0:
        return
    last = taken.order_by("-created_at", "-id")[:over]
    raise errors.CapacityBelowRegistered(
        taken=event.capacity + over,
        capacity=event.capacity,
        attendees=", ".join(f"{a.name} <{a.email}> ({a.pk})" for a in last),
    )


@dataclass(frozen=True)
class _Span:
    """An event's times before a change, and the zone they were read in."""

    starts_at: datetime
    ends_at: datetime
    time_zone: str


def _wall_clock(moment: datetime, zone: str) -> datetime:
    return moment.astimezone(ZoneInfo(zone)).replace(tzinfo=None)


def _move_sessions(actor: Actor, event: Event, was: _Span) -> None:
    """The agenda moves with its event when the event moves as a whole (its start and end by as
    much on the wall clock of its zone, whatever the clocks changed in between): each session as
    far, at the same wall-clock time; when only its span changes (the doors open earlier, a day is
    added) the sessions keep their times. Sessions that would then fall outside the event's dates
    refuse the change, named."""
    by = _wall_clock(event.starts_at, event.time_zone) - _wall_clock(was.starts_at, was.time_zone)
    moving = by == _wall_clock(event.ends_at, event.time_zone) - _wall_clock(was.ends_at, was.time_zone)
    zone = ZoneInfo(event.time_zone)
    sessions = list(event.sessions.filter(deleted_at__isnull=True))
    for session in sessions if moving else []:
        for field in ("starts_at", "ends_at"):
            moved = _wall_clock(getattr(session, field), was.time_zone) + by
            setattr(session, field, moved.replace(tzinfo=zone).astimezone(UTC))
    moving = moving and (event.starts_at, event.ends_at) != (was.starts_at, was.ends_at)
    outside = [s for s in sessions if s.starts_at < event.starts_at or s.ends_at > event.ends_at]
    if outside:
        raise errors.SessionsOutsideEvent(sessions=", ".join(f"{s.pk} ({s.title!r})" for s in outside))
    if moving:
        # Their speakers must be free at the new times, elsewhere (the agenda moves as one).
        for session in sessions:
            emails = list(session.speakers.values_list("email", flat=True))
            _clash(actor, session, emails, elsewhere=True)
        Session.objects.bulk_update(sessions, ["starts_at", "ends_at"])
        for session in sessions:
            session.speakers.exclude(starts_at=None).update(
                starts_at=session.starts_at, ends_at=session.ends_at
            )
        logger.info("event %s: %s sessions moved with it", event.pk, len(sessions))


@transaction.atomic
def event_cancel(*, actor: Actor, event: Event) -> tuple[Event, int]:
    """(the event, how many were told): a cancelled event keeps its records, its SEQUENCE goes up,
    and everyone sent an invitation gets the cancellation (iCalendar METHOD:CANCEL)."""
    require(actor, EventsPerm.EDIT)
    event = Event.objects.select_related("owner").fetch(actor, event.pk, "change", lock=True)
    _not_cancelled(event)
    if event.ends_at <= timezone.now():
        # What took place is not called off (its attendees would be sent a cancellation of it).
        raise invalid(
            "eventId",
            _("the event ended at {ended}; it took place and cannot be cancelled"),
            ended=event.ends_at.isoformat(),
        )
    event.cancelled_at = timezone.now()
    event.ical_sequence += 1
    # Needs are kept for the event alone: called off, it will never need them.
    AttendeeNeeds.objects.filter(attendee__event=event).delete()
    event.needs_removed_at = event.cancelled_at
    event.save(update_fields=["cancelled_at", "ical_sequence", "needs_removed_at", "updated_at"])
    # Its speakers are free at those times again (its agenda stays, holding nobody).
    _free_speakers(event.sessions.all())
    invited = list(event.attendees.exclude(status=Attendee.Status.CANCELLED).exclude(invited_sequence=None))
    for attendee in invited:
        ical.send(actor=actor, event=event, attendee=attendee)
    logger.info("event %s cancelled, %s attendees told", event.pk, len(invited))
    return event, len(invited)


@transaction.atomic
def event_delete(*, actor: Actor, event: Event) -> tuple[Event, int]:
    """(the event, how many were told): to the trash; an event still to come is cancelled first,
    so that nobody invited to it keeps it in their calendar."""
    event = Event.objects.fetch(actor, event.pk, "delete", lock=True)
    told = 0
    if event.cancelled_at is None and event.ends_at > timezone.now():
        event, told = event_cancel(actor=actor, event=event)
    event.trash(actor)
    _free_speakers(event.sessions.all())
    logger.info("event %s deleted", event.pk)
    return event, told


@transaction.atomic
def event_restore(*, actor: Actor, event: Event) -> Event:
    """Brings an event back from the trash, its sessions' speakers holding their time again; an
    event cancelled as it was deleted stays cancelled (its attendees were told). SessionClash, and
    the event left in the trash, when a speaker has been booked elsewhere at that time meanwhile."""
    event = Event.objects.fetch(actor, event.pk, "delete", trash=True, lock=True)
    if not event.in_trash:
        return event
    event.untrash()
    if event.cancelled_at is None:  # called off, its sessions hold nobody's time (cancelEvent freed them)
        for session in event.sessions.filter(deleted_at__isnull=True).order_by("starts_at", "id"):
            _save_session(actor, session, None)
    logger.info("event %s restored", event.pk)
    return event


def taken_places(event: Event) -> int:
    return event.attendees.filter(status__in=TAKING_A_PLACE).count()


def promote_waitlist(event: Event) -> list[Attendee]:
    """Moves waitlisted people up, first come first served, while there are free places (none on
    an event called off or over: nobody is registered for it any more)."""
    if event.cancelled_at is not None or event.ends_at <= timezone.now():
        return []
    if event.capacity is None:
        free = event.attendees.filter(status=Attendee.Status.WAITLISTED).count()
    else:
        free = max(0, event.capacity - taken_places(event))
    if not free:
        return []
    waiting = list(
        event.attendees.filter(status=Attendee.Status.WAITLISTED).order_by("waitlisted_at", "id")[:free]
    )
    for attendee in waiting:
        attendee.status = Attendee.Status.REGISTERED
        attendee.waitlisted_at = None
    Attendee.objects.bulk_update(waiting, ["status", "waitlisted_at"])
    if waiting:
        logger.info("event %s: %s moved up from the waitlist", event.pk, len(waiting))
    return waiting


# --- sessions -------------------------------------------------------------------------------------


def session_add(
    *, actor: Actor, event: Event, fields: dict[str, Any], speakers: list[dict[str, str]]
) -> Session:
    """A session of the agenda; SessionClash if its room or a speaker is taken at that time.

    The checks below name the session in the way; the database's exclusion constraints
    (apps.events.models) hold the rule when two agendas are written at the same moment, the
    event's lock serialising only sessions of one event: the one that commits second is refused
    there, and answered with the same clash."""
    require(actor, EventsPerm.EDIT)
    with transaction.atomic():
        event = Event.objects.fetch(actor, event.pk, "change", lock=True)
        _not_cancelled(event)
        session = Session(event=event, created_by=person(actor))
        people = _apply_session(actor, session, fields, speakers, creating=True)
        _save_session(actor, session, people)
    logger.info("event %s: session %s added", event.pk, session.pk)
    return session


@transaction.atomic
def session_update(
    *, actor: Actor, session: Session, fields: dict[str, Any], speakers: list[dict[str, str]] | None
) -> Session:
    """Changes a session (speakers, when given, replace its speakers) under the rules it was added with."""
    require(actor, EventsPerm.EDIT)
    event = Event.objects.fetch(actor, session.event_id, "change", lock=True)
    _not_cancelled(event)
    session = Session.objects.fetch(actor, session.pk, "change")
    people = _apply_session(actor, session, fields, speakers, creating=False)
    _save_session(actor, session, people if speakers is not None else None)
    logger.info("event %s: session %s changed", event.pk, session.pk)
    return session


def _save_session(actor: Actor, session: Session, people: list[tuple[str, str]] | None) -> None:
    """Saves the session and, given `people`, its speakers in place of the old ones; each speaker
    keeps a copy of the session's times, which the database's constraint reads. A clash the
    checks did not see (another event's agenda written at the same moment) is refused by the
    constraint once the other commits, and answered as the clash it is."""
    try:
        with transaction.atomic():
            session.save()
            if people is None:
                session.speakers.update(starts_at=session.starts_at, ends_at=session.ends_at)
            else:
                session.speakers.all().delete()
                Speaker.objects.bulk_create(
                    [
                        Speaker(
                            session=session,
                            name=n,
                            email=e,
                            starts_at=session.starts_at,
                            ends_at=session.ends_at,
                        )
                        for n, e in people
                    ]
                )
    except IntegrityError as error:
        failure = database_failure(error)
        if failure is None or failure.sqlstate != EXCLUSION_VIOLATION:
            raise
        emails = (
            [e for _n, e in people]
            if people is not None
            else list(session.speakers.values_list("email", flat=True))
        )
        _clash(actor, session, emails)  # the winner has committed: it is in sight now
        raise errors.BookedAtTheSameMoment() from None


def _free_speakers(sessions: Any) -> None:
    """Sessions in the trash hold their speakers' time no more (a copy left would keep them booked)."""
    Speaker.objects.filter(session__in=sessions).update(starts_at=None, ends_at=None)


def session_remove(*, actor: Actor, session: Session) -> Session:
    require(actor, EventsPerm.EDIT)
    session = Session.objects.fetch(actor, session.pk, "change")
    session.trash(actor)
    _free_speakers([session.pk])
    logger.info("event %s: session %s removed", session.event_id, session.pk)
    return session


def _apply_session(
    actor: Actor,
    session: Session,
    fields: dict[str, Any],
    speakers: list[dict[str, str]] | None,
    *,
    creating: bool,
) -> list[tuple[str, str]]:
    """Sets the session's fields from those given and checks them against its event and the other
    sessions; answers the speakers to keep (those it has when `speakers` is None)."""
    event = session.event
    if "title" in fields or creating:
        session.title = clean.text(fields.get("title"), field="title", limit=200, required=True)
    if "starts_at" in fields:
        session.starts_at = in_zone(fields["starts_at"], event.time_zone, field="startsAt")
    if "ends_at" in fields:
        session.ends_at = in_zone(fields["ends_at"], event.time_zone, field="endsAt")
    _span(session.starts_at, session.ends_at, "session")
    if session.starts_at < event.starts_at or session.ends_at > event.ends_at:
        raise invalid("startsAt", _("the session must be within the event's dates"))
    if "room" in fields:
        session.room = clean.text(fields.get("room"), field="room", limit=120)
    if "capacity" in fields:
        capacity = fields["capacity"]
        if capacity is not None and capacity < 1:
            raise invalid("capacity", _("at least 1, or null for no limit"))
        session.capacity = capacity
    if speakers is not None:
        people = _speakers(speakers)
    else:
        people = [(s.name, s.email) for s in session.speakers.all()] if session.pk else []
    _clash(actor, session, [email for _name, email in people])
    return people


def _clash(actor: Actor, session: Session, emails: list[str], *, elsewhere: bool = False) -> None:
    """SessionClash when the session's room (in its event) or a speaker (anywhere) is taken then;
    `elsewhere`: a speaker in other events' sessions only (its event's agenda moving as one).
    A session the caller may not see is only said to exist: never its title or id."""
    starts, ends = session.starts_at, session.ends_at
    # Sessions in the trash, or of an event in the trash or cancelled, hold nothing (their speakers
    # are freed).
    overlapping = Session.objects.filter(
        deleted_at__isnull=True,
        event__deleted_at__isnull=True,
        event__cancelled_at__isnull=True,
        starts_at__lt=ends,
        ends_at__gt=starts,
    )
    if session.pk:
        overlapping = overlapping.exclude(pk=session.pk)
    if elsewhere:
        overlapping = overlapping.exclude(event=session.event_id)
    elif session.room:
        taken = overlapping.filter(event=session.event, room__iexact=session.room).first()
        if taken is not None:
            raise errors.RoomTaken(
                room=session.room,
                session=taken.pk,
                title=taken.title,
                starts=taken.starts_at.isoformat(),
                ends=taken.ends_at.isoformat(),
            )
    if not emails:
        return
    busy = Speaker.objects.filter(session__in=overlapping, email__in=emails).select_related("session").first()
    if busy is None:
        return
    if not Session.objects.restrict(actor).filter(pk=busy.session_id).exists():
        raise errors.SpeakerBusyUnseen(email=busy.email)
    raise errors.SpeakerBusy(email=busy.email, session=busy.session.pk, title=busy.session.title)


def _speakers(speakers: list[dict[str, str]]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for speaker in speakers:
        email = clean.email(speaker.get("email"), field="speakers", required=True)
        name = clean.text(speaker.get("name"), field="speakers", limit=200, required=True)
        if email in [e for _n, e in found]:
            raise invalid("speakers", _("{email} is named twice"), email=email)
        found.append((name, email))
    return found


# --- attendees ------------------------------------------------------------------------------------


def _place_status(event: Event, wanted: str) -> str:
    """Registering beyond the capacity puts the person on the waitlist."""
    if (
        wanted == Attendee.Status.REGISTERED
        and event.capacity is not None
        and taken_places(event) >= event.capacity
    ):
        return Attendee.Status.WAITLISTED
    return wanted


@transaction.atomic
def attendee_add(
    *, actor: Actor, event: Event, fields: dict[str, Any], needs: dict[str, str] | None = None
) -> Attendee:
    require(actor, EventsPerm.EDIT)
    if needs and "needs" not in Attendee.access.fields_allowed(actor, action="change"):
        raise errors.NeedsNotAllowed()
    event = Event.objects.fetch(actor, event.pk, "change", lock=True)
    _not_cancelled(event)
    email = clean.email(fields.get("email"), required=True)
    if event.attendees.filter(email__iexact=email).exists():
        raise invalid(
            "email",
            _("{email} is already an attendee of this event; change them with updateEventAttendee"),
            email=email,
        )
    status = fields.get("status") or Attendee.Status.INVITED
    _not_over(event, status)
    if status == Attendee.Status.ATTENDED:  # a walk-in: as checking in someone registered
        _status_step(event, Attendee.Status.REGISTERED, status)
    status = _place_status(event, status)
    attendee = Attendee.objects.create(
        event=event,
        name=clean.text(fields.get("name"), field="name", limit=200, required=True),
        email=email,
        organisation=clean.text(fields.get("organisation"), field="organisation", limit=200),
        type=clean.text(fields.get("type") or "attendee", field="type", limit=40, required=True).lower(),
        status=status,
        waitlisted_at=timezone.now() if status == Attendee.Status.WAITLISTED else None,
        created_by=person(actor),
    )
    if needs:
        needs_set(actor=actor, attendee=attendee, needs=needs)
    logger.info("event %s: attendee %s added as %s", event.pk, attendee.pk, status)
    return attendee


@transaction.atomic
def attendee_update(
    *, actor: Actor, attendee: Attendee, fields: dict[str, Any], needs: dict[str, str] | None = None
) -> tuple[Attendee, list[Attendee]]:
    """(attendee, those moved up from the waitlist because a place freed)."""
    require(actor, EventsPerm.EDIT)
    if needs is not None and "needs" not in Attendee.access.fields_allowed(actor, action="change"):
        raise errors.NeedsNotAllowed()
    event = Event.objects.fetch(actor, attendee.event_id, "change", lock=True)
    attendee = Attendee.objects.fetch(actor, attendee.pk, "change")
    if "name" in fields:
        attendee.name = clean.text(fields["name"], field="name", limit=200, required=True)
    if "organisation" in fields:
        attendee.organisation = clean.text(fields["organisation"], field="organisation", limit=200)
    if "type" in fields:
        attendee.type = clean.text(fields["type"], field="type", limit=40, required=True).lower()
    was = attendee.status
    if "status" in fields and fields["status"] != was:
        if fields["status"] != Attendee.Status.CANCELLED:
            # Called off: nobody registers, waits or checks in any more; cancelling them still may.
            _not_cancelled(event)
        if was != Attendee.Status.ATTENDED:  # undoing a mistaken check-in stays possible
            _not_over(event, fields["status"])
        wanted = _status_step(event, was, fields["status"])
        if wanted == Attendee.Status.WAITLISTED:
            _nobody_waits_for_a_free_place(event, attendee)
        if (
            wanted in (Attendee.Status.REGISTERED, Attendee.Status.WAITLISTED)
            and was != Attendee.Status.ATTENDED
        ):
            wanted = _place_status(event, wanted) if was not in TAKING_A_PLACE else wanted
        if wanted != was:
            # Re-sending "registered" to someone still waiting keeps their place in the queue.
            attendee.status = wanted
            attendee.waitlisted_at = timezone.now() if wanted == Attendee.Status.WAITLISTED else None
    attendee.save()
    if needs is not None:
        needs_set(actor=actor, attendee=attendee, needs=needs)
    if attendee.status == Attendee.Status.CANCELLED and was != attendee.status:
        _release_rooms(attendee)
        # Needs are kept for coming alone: someone who will not come has none to be met.
        AttendeeNeeds.objects.filter(attendee=attendee).delete()
    promoted = (
        promote_waitlist(event) if was in TAKING_A_PLACE and attendee.status not in TAKING_A_PLACE else []
    )
    return attendee, promoted


def _status_step(event: Event, was: str, wanted: str) -> str:
    """Statuses go forward (invited, then registered or waitlisted, then attended; cancelled from
    any but attended). Going back is refused, saying why; check-in opens near the event."""
    status = Attendee.Status
    if wanted == status.ATTENDED:
        if was not in TAKING_A_PLACE:
            raise invalid(
                "status", _("only a registered attendee can be marked attended (this one is {was})"), was=was
            )
        opens = event.starts_at - CHECK_IN_OPENS
        if timezone.now() < opens:
            raise invalid(
                "status",
                _("check-in opens {hours} hours before the event starts, at {opens}"),
                hours=int(CHECK_IN_OPENS.total_seconds() // 3600),
                opens=opens.isoformat(),
            )
    if was == status.ATTENDED and wanted != status.REGISTERED:
        raise invalid(
            "status",
            _("{wanted} after attended goes back; only registered undoes a check-in made by mistake"),
            wanted=wanted,
        )
    if wanted == status.INVITED and was in (status.REGISTERED, status.WAITLISTED):
        raise invalid(
            "status",
            _("a {was} attendee has answered the invitation already; cancel them instead"),
            was=was,
        )
    return wanted


def _nobody_waits_for_a_free_place(event: Event, attendee: Attendee) -> None:
    """The waitlist holds people only while the event is full: putting someone on it when a place
    would be free for them (more places free, without theirs, than others waiting) is refused,
    instead of leaving them waiting beside an empty seat or moving them straight back up."""
    if event.capacity is None:
        raise invalid("status", _("the event has no capacity, so nobody waits; register them instead"))
    others = event.attendees.exclude(pk=attendee.pk)
    free = event.capacity - others.filter(status__in=TAKING_A_PLACE).count()
    waiting = others.filter(status=Attendee.Status.WAITLISTED).count()
    if free > waiting:
        raise invalid(
            "status",
            _("{free} of {capacity} places are free and {waiting} people wait; register them instead"),
            free=free,
            capacity=event.capacity,
            waiting=waiting,
        )


def _release_rooms(attendee: Attendee) -> None:
    """A cancelled attendee's hotel rooms go back to their blocks; a roommate keeps theirs alone."""
    released = RoomAllocation.objects.filter(attendee=attendee).delete()[0]
    RoomAllocation.objects.filter(sharing_with=attendee).update(sharing_with=None)
    if released:
        logger.info("attendee %s: %s hotel rooms released on cancelling", attendee.pk, released)


def needs_set(*, actor: Actor, attendee: Attendee, needs: dict[str, str]) -> AttendeeNeeds | None:
    """Keeps only what is needed: a blank need is removed, and nothing stays when both are blank."""
    if "needs" not in Attendee.access.fields_allowed(actor, attendee, "change"):
        raise Forbidden()
    event = attendee.event
    _not_cancelled(event)
    if event.needs_removed_at is not None or event.ends_at < timezone.now():
        raise invalid("needs", _("the event is over; needs are no longer kept"))
    values = {
        key: clean.text(needs.get(key), field=f"needs.{key}", limit=200)
        for key in ("dietary", "accessibility")
    }
    if not any(values.values()):
        AttendeeNeeds.objects.filter(attendee=attendee).delete()
        return None
    if attendee.status == Attendee.Status.CANCELLED:
        raise invalid(
            "needs", _("attendee {attendee} has cancelled; their needs are not kept"), attendee=attendee.pk
        )
    row, _created = AttendeeNeeds.objects.update_or_create(attendee=attendee, defaults=values)
    return row


def needs_purge(*, now: datetime | None = None) -> int:
    """Removes the needs of attendees of events that ended (every event, once): the periodic task."""
    now = now or timezone.now()
    ended = Event.objects.filter(ends_at__lt=now, needs_removed_at__isnull=True)
    removed = AttendeeNeeds.objects.filter(attendee__event__in=ended).delete()[0]
    ended.update(needs_removed_at=now)
    if removed:
        logger.info("%s attendee needs removed after their events", removed)
    return removed


def invite(*, actor: Actor, attendee: Attendee) -> None:
    require(actor, EventsPerm.EDIT)
    if attendee.status == Attendee.Status.ATTENDED:
        raise invalid("sendInvitation", _("the attendee has attended already"))
    ical.send(actor=actor, event=attendee.event, attendee=attendee)


# --- imports --------------------------------------------------------------------------------------


def _records_needs(actor: Actor) -> bool:
    return "needs" in Attendee.access.fields_allowed(actor, action="change")


def _import_file(actor: Actor, file_id: int) -> Any:
    from apps.files import api as files

    file = files.file(actor=actor, file_id=file_id)
    return file, files.file_bytes(file)


def import_validate(*, actor: Actor, event: Event, file_id: int) -> tuple[imports.Checked, str]:
    """The checked rows of a file and the handle that commits them (nothing is written)."""
    from apps.tenancy import links

    require(actor, EventsPerm.IMPORT)
    event = Event.objects.fetch(actor, event.pk, "change")
    _not_cancelled(event)
    file, content = _import_file(actor, file_id)
    existing = {email.lower() for email in event.attendees.values_list("email", flat=True)}
    checked = imports.check(
        imports.table_of(content, file.name), existing=existing, with_needs=_records_needs(actor)
    )
    handle = links.sign(
        {"e": event.pk, "f": file.pk, "h": imports.digest(content), "u": actor_id(actor)}, salt=imports.SALT
    )
    return checked, handle


def import_commit(*, actor: Actor, handle: str) -> tuple[AttendeeImport, bool]:
    """(the import, whether this call made it): the same handle twice has one effect."""
    from apps.tenancy import links

    require(actor, EventsPerm.IMPORT)
    payload = links.unsign(handle, salt=imports.SALT, max_age=imports.MAX_AGE)
    if payload is None or payload.get("u") != actor_id(actor):
        raise errors.ImportHandleInvalid(details={"handle": ["invalid"]})
    key = hashlib.sha256(handle.encode()).hexdigest()
    with transaction.atomic():
        event = Event.objects.fetch(actor, payload["e"], "change", lock=True)
        done = AttendeeImport.objects.filter(handle_digest=key).first()
        if done is not None:
            return done, False
        _not_cancelled(event)
        file, content = _import_file(actor, payload["f"])
        if imports.digest(content) != payload["h"]:
            raise errors.ImportFileChanged(file=file.pk, details={"handle": ["file changed"]})
        existing = {email.lower() for email in event.attendees.values_list("email", flat=True)}
        checked = imports.check(
            imports.table_of(content, file.name), existing=existing, with_needs=_records_needs(actor)
        )
        now, places = timezone.now(), None
        if event.capacity is not None:
            places = max(0, event.capacity - taken_places(event))
        made = []
        for row in checked.rows:
            _not_over(event, row.status)
            status = row.status
            if status == Attendee.Status.REGISTERED and places is not None:
                status = Attendee.Status.REGISTERED if places > 0 else Attendee.Status.WAITLISTED
                places -= 1 if places > 0 else 0
            made.append(
                Attendee(
                    event=event,
                    name=row.name,
                    email=row.email,
                    organisation=row.organisation,
                    type=row.type,
                    status=status,
                    waitlisted_at=now if status == Attendee.Status.WAITLISTED else None,
                    created_by=person(actor),
                )
            )
        Attendee.objects.bulk_create(made)
        needs = [
            AttendeeNeeds(attendee=attendee, dietary=row.dietary, accessibility=row.accessibility)
            for attendee, row in zip(made, checked.rows, strict=True)
            if row.dietary or row.accessibility
        ]
        AttendeeNeeds.objects.bulk_create(needs)
        record = AttendeeImport.objects.create(
            event=event,
            handle_digest=key,
            file_id=file.pk,
            file_name=file.name,
            created=len(made),
            skipped=len(checked.duplicates),
            rejected=len(checked.errors),
            committed_by=person(actor),
            committed_at=now,
        )
    logger.info("event %s: import %s made %s attendees", event.pk, record.pk, len(made))
    return record, True


# --- suppliers and budget lines -------------------------------------------------------------------


def _rate(*, source: str, target: str, day: date, given: Decimal | None) -> Decimal:
    """What one `source` is worth in `target` on `day` (apps.accounting.api.rate): 1 for the same
    currency, else the rate the planner gave with the amounts; NoBudgetRate when there is none."""
    try:
        return accounting.rate(source=source, target=target, on=day, given=given, look_up=False).value
    except NoExchangeRate:
        raise errors.NoBudgetRate(
            source=source,
            target=target,
            date=day.isoformat(),
            details={"rate": ["required for another currency"]},
        ) from None


def supplier_add(*, actor: Actor, event: Event, fields: dict[str, Any]) -> Supplier:
    require(actor, EventsPerm.EDIT)
    event = Event.objects.fetch(actor, event.pk, "change")
    return Supplier.objects.create(
        event=event,
        name=clean.text(fields.get("name"), field="name", limit=200, required=True),
        service=clean.text(fields.get("service"), field="service", limit=200, required=True),
        email=clean.email(fields.get("email")),
        contract=clean.text(fields.get("contract"), field="contract", limit=200),
        created_by=person(actor),
    )


def cost_lines_add(
    *, actor: Actor, event: Event, supplier: Supplier | None, lines: list[dict[str, Any]]
) -> list[BudgetLine]:
    require(actor, EventsPerm.EDIT)
    made = []
    for index, line in enumerate(lines):
        where = f"costLines[{index}]"
        currency = clean.currency(line.get("currency") or event.currency, field=f"{where}.currency")
        day = line.get("rate_date") or timezone.localdate()
        amounts = {key: dec(line.get(key)) for key in ("planned", "committed", "actual")}
        if any(value < 0 for value in amounts.values()):
            raise invalid(where, _("amounts cannot be negative"))
        given = dec(line["rate"], "0.00000001") if line.get("rate") else None
        rate = _rate(source=currency, target=event.currency, day=day, given=given)
        made.append(
            BudgetLine(
                event=event,
                supplier=supplier,
                category=clean.text(
                    line.get("category"), field=f"{where}.category", limit=60, required=True
                ).lower(),
                description=clean.text(
                    line.get("description"), field=f"{where}.description", limit=200, required=True
                ),
                currency=currency,
                vat_rate=dec(line.get("vat_rate")),
                rate=rate,
                rate_date=day,
                **amounts,
            )
        )
    return BudgetLine.objects.bulk_create(made)


# --- hotels ---------------------------------------------------------------------------------------


def _apply_block(event: Event, block: HotelBlock, fields: dict[str, Any]) -> None:
    kept_currency = block.currency
    for key, limit in (("hotel", 200), ("room_type", 80)):
        if key in fields:
            setattr(block, key, clean.text(fields[key], field=key, limit=limit, required=True))
    for key in ("first_night", "nights", "rooms", "cut_off"):
        if key in fields and fields[key] is not None:
            setattr(block, key, fields[key])
    for key in ("rate", "attrition_percent"):
        if key in fields and fields[key] is not None:
            setattr(block, key, dec(fields[key]))
    if "currency" in fields:
        block.currency = clean.currency(fields["currency"] or event.currency)
    missing = [
        key
        for key in ("hotel", "room_type", "first_night", "nights", "rooms", "rate", "cut_off")
        if getattr(block, key, None) in (None, "")
    ]
    if missing:
        raise invalid(missing[0], _("is required to add a block"))
    if block.nights < 1 or block.rooms < 1:
        raise invalid("rooms", _("a block has at least one room for one night"))
    if block.rate < 0:
        raise invalid("rate", _("cannot be negative"))
    if not 0 <= block.attrition_percent <= 100:
        raise invalid("attritionPercent", _("between 0 and 100"))
    if block.cut_off > block.first_night:
        raise invalid("cutOff", _("the cut-off is on or before the first night"))
    _covers_the_event(event, block)
    given = dec(fields["exchange_rate"], "0.00000001") if fields.get("exchange_rate") else None
    if given is None and block.pk is not None and block.currency == kept_currency:
        given = block.exchange_rate  # the rate it was given, for the currency it still has
    block.exchange_rate = _rate(
        source=block.currency, target=event.currency, day=block.first_night, given=given
    )


def _covers_the_event(event: Event, block: HotelBlock) -> None:
    """A block holds every night of its event, in the event's zone: from its first day to the night
    before its last; for a one-day event, the night of that day or the night before it."""
    zone = ZoneInfo(event.time_zone)
    first, last = event.starts_at.astimezone(zone).date(), event.ends_at.astimezone(zone).date()
    block_last = block.first_night + timedelta(days=block.nights - 1)
    if first == last:
        first, last = first - timedelta(days=1), first
        covered = block.first_night <= last and block_last >= first
    else:
        last -= timedelta(days=1)
        covered = block.first_night <= first and block_last >= last
    if not covered:
        raise invalid(
            "firstNight",
            _("the block must cover the event's nights, {first} to {last}"),
            first=first.isoformat(),
            last=last.isoformat(),
        )


@transaction.atomic
def block_save(*, actor: Actor, event: Event, block: HotelBlock | None, fields: dict[str, Any]) -> HotelBlock:
    require(actor, EventsPerm.EDIT)
    event = Event.objects.fetch(actor, event.pk, "change", lock=True)
    _not_cancelled(event)
    if block is None:
        block = HotelBlock(event=event, created_by=person(actor), currency=event.currency)
    _apply_block(event, block, fields)
    if block.pk is not None:
        for night, used in _nights_used(block).items():
            if not block.first_night <= night < block.first_night + timedelta(days=block.nights) and used:
                raise invalid(
                    "firstNight",
                    _("rooms are allocated on {night}, outside the new nights"),
                    night=night.isoformat(),
                )
            if used > block.rooms:
                raise errors.BlockCannotShrink(used=used, night=night.isoformat(), rooms=block.rooms)
    block.save()
    return block


def block_remove(*, actor: Actor, block: HotelBlock) -> None:
    require(actor, EventsPerm.EDIT)
    block = HotelBlock.objects.fetch(actor, block.pk, "change")
    block.allocations.all().delete()
    block.trash(actor)


def _nights_used(block: HotelBlock, *, excluding: int | None = None) -> dict[date, int]:
    used: dict[date, int] = {}
    rows = block.allocations.exclude(pk=excluding) if excluding else block.allocations.all()
    for allocation in rows:
        for offset in range(allocation.nights):
            night = allocation.first_night + timedelta(days=offset)
            used[night] = used.get(night, 0) + 1
    return used


@transaction.atomic
def allocation_add(
    *,
    actor: Actor,
    block: HotelBlock,
    attendee: Attendee,
    first_night: date | None,
    nights: int | None,
    sharing_with: Attendee | None,
    today: date | None = None,
) -> RoomAllocation:
    """A room of the block; BlockFull when a night of it has no room left, nothing written."""
    require(actor, EventsPerm.EDIT)
    block = HotelBlock.objects.select_related("event").fetch(actor, block.pk, "change", lock=True)
    _not_cancelled(block.event)
    if attendee.event_id != block.event_id or (
        sharing_with is not None and sharing_with.event_id != block.event_id
    ):
        raise invalid("attendeeId", _("the attendee is not at this block's event"))
    if attendee.status == Attendee.Status.CANCELLED:
        raise invalid("attendeeId", _("attendee {attendee} has cancelled"), attendee=attendee.pk)
    if sharing_with is not None:
        if sharing_with.pk == attendee.pk:
            raise invalid("sharingWithAttendeeId", _("an attendee does not share a room with themselves"))
        if sharing_with.status == Attendee.Status.CANCELLED:
            raise invalid(
                "sharingWithAttendeeId", _("attendee {attendee} has cancelled"), attendee=sharing_with.pk
            )
    today = today or timezone.localdate()
    if today > block.cut_off:
        raise invalid(
            "blockId",
            _("the block's cut-off ({cut_off}) has passed; the hotel has its rooms back"),
            cut_off=block.cut_off.isoformat(),
        )
    first = first_night or block.first_night
    count = nights or (block.nights - (first - block.first_night).days)
    last = block.first_night + timedelta(days=block.nights)
    if first < block.first_night or count < 1 or first + timedelta(days=count) > last:
        raise invalid(
            "nights",
            _("the block has nights from {first_night} to {last_night}"),
            first_night=block.first_night.isoformat(),
            last_night=(last - timedelta(days=1)).isoformat(),
        )
    if block.allocations.filter(Q(attendee=attendee) | Q(sharing_with=attendee)).exists():
        raise invalid(
            "attendeeId", _("attendee {attendee} has a room in this block already"), attendee=attendee.pk
        )
    if (
        sharing_with is not None
        and block.allocations.filter(Q(attendee=sharing_with) | Q(sharing_with=sharing_with)).exists()
    ):
        raise invalid(
            "sharingWithAttendeeId",
            _("attendee {sharing_with} has a room in this block already"),
            sharing_with=sharing_with.pk,
        )
    used = _nights_used(block)
    for offset in range(count):
        night = first + timedelta(days=offset)
        if used.get(night, 0) >= block.rooms:
            raise errors.BlockFull(
                block=block.pk,
                hotel=block.hotel,
                room_type=block.room_type,
                rooms=block.rooms,
                night=night.isoformat(),
            )
    return RoomAllocation.objects.create(
        block=block, attendee=attendee, sharing_with=sharing_with, first_night=first, nights=count
    )


def allocation_cancel(*, actor: Actor, block: HotelBlock, attendee: Attendee) -> int:
    require(actor, EventsPerm.EDIT)
    block = HotelBlock.objects.fetch(actor, block.pk, "change")
    removed = block.allocations.filter(attendee=attendee).delete()[0]
    if not removed:
        raise invalid(
            "attendeeId",
            _("attendee {attendee} has no room of block {block}"),
            attendee=attendee.pk,
            block=block.pk,
        )
    return removed


# --- travel ---------------------------------------------------------------------------------------


def travel_plan(*, actor: Actor, attendee: Attendee, fields: dict[str, Any]) -> TravelPlan:
    require(actor, EventsPerm.EDIT)
    attendee = Attendee.objects.fetch(actor, attendee.pk, "change")
    plan = TravelPlan.objects.filter(attendee=attendee).first() or TravelPlan(attendee=attendee)
    zone = attendee.event.time_zone
    for key, field in (("arrive_by", "arriveBy"), ("depart_after", "departAfter")):
        if key in fields:
            setattr(plan, key, in_zone(fields[key], zone, field=field) if fields[key] else None)
    if plan.arrive_by and plan.depart_after and plan.depart_after <= plan.arrive_by:
        raise invalid("departAfter", _("the departure is after the arrival"))
    for key, limit in (("origin", 200),):
        if key in fields:
            setattr(plan, key, clean.text(fields[key], field=key, limit=limit))
    for key in ("mode", "status"):
        if key in fields and fields[key] is not None:
            setattr(plan, key, fields[key])
    if "plan" in fields:
        plan.plan = (fields["plan"] or "").strip()[:4000]
    if plan.status == TravelPlan.Status.PLANNED and not (plan.plan or plan.mode):
        raise errors.TripNeedsHow(details={"plan": ["required when planned"]})
    plan.updated_by = person(actor)
    plan.save()
    return plan
