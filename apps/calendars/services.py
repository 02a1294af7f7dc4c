"""Writes about calendars and events. Each checks the actor's permission itself (every door comes
through here) and logs ids only, never names or addresses."""

import logging
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import User
from apps.calendars.models import Attendee, Calendar, Event
from apps.calendars.permissions import CalendarsPerm
from apps.core import clean, recurrence
from apps.core.actors import require
from apps.core.errors import invalid
from apps.core.records import Visibility, derived_visibility, save_changes

logger = logging.getLogger(__name__)

MAX_ATTENDEES = 100
# Changes to these make earlier invitations outdated (iCalendar SEQUENCE goes up).
SCHEDULING_FIELDS = ("starts_at", "ends_at", "recurrence", "excluded", "location", "status", "all_day")


def _text(fields: dict[str, Any], name: str, limit: int, *, required: bool = False) -> str:
    value = (fields.get(name) or "").strip()
    if required and not value:
        raise invalid(name, _("is required and cannot be empty"))
    if len(value) > limit:
        raise invalid(name, _("at most {limit} characters"), limit=limit)
    return value


def _apply_texts(record: Any, fields: dict[str, Any], limits: dict[str, int], *, creating: bool) -> None:
    """Sets each text field given (at most its limit of characters); the first is required, and
    set when creating even if not given."""
    required = next(iter(limits))
    for name, limit in limits.items():
        if name in fields or (creating and name == required):
            setattr(record, name, _text(fields, name, limit, required=name == required))


# A date-time and a date as an agent writes them, within the years every tool's dates keep to.
when = recurrence.parse_when
day = recurrence.parse_day


def rule_of(text: str, *, start: datetime, zone: ZoneInfo) -> str:
    """The canonical rule (recurrence.normalise_rule); an UNTIL so far that its time in UTC is out
    of reach (the year 9999 west of UTC) is refused like any UNTIL out of the kit's years."""
    try:
        rule = recurrence.normalise_rule(text, start=start, zone=zone)
    except OverflowError:
        rule = ""
    until = recurrence.describe_rule(rule).get("UNTIL")
    if not rule or (until and not clean.within_years(int(until[:4]))):
        raise invalid("recurrence", _("UNTIL {problem}"), problem=clean.years_problem())
    return rule


# --- calendars ------------------------------------------------------------------------------------


def calendar_create(*, actor: Any, fields: dict[str, Any]) -> Calendar:
    require(actor, CalendarsPerm.MANAGE)
    calendar = Calendar(owner=actor, created_by=actor, time_zone=recurrence.workspace_zone().key)
    _apply_calendar(calendar, {"visibility": Visibility.WORKSPACE, **fields}, creating=True)
    calendar.save()
    logger.info("calendar %s created", calendar.pk)
    return calendar


def calendar_update(*, actor: Any, calendar: Calendar, fields: dict[str, Any]) -> list[str]:
    require(actor, CalendarsPerm.MANAGE)
    names = ("name", "description", "colour", "time_zone", "visibility")
    changed = save_changes(calendar, names, lambda: _apply_calendar(calendar, fields, creating=False))
    if "visibility" in changed:
        for event in Event.objects.filter(calendar=calendar).select_related("calendar"):
            unname_private_contacts(event)
    return changed


def _apply_calendar(calendar: Calendar, fields: dict[str, Any], *, creating: bool) -> None:
    _apply_texts(calendar, fields, {"name": 120, "description": 5000}, creating=creating)
    if "colour" in fields:
        colour = (fields["colour"] or "").strip()
        if colour and not (
            len(colour) == 7 and colour[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in colour[1:])
        ):
            raise invalid("colour", _("a hex colour such as #3366cc"))
        calendar.colour = colour.lower()
    if fields.get("time_zone"):
        calendar.time_zone = recurrence.zone_named(fields["time_zone"], field="time_zone").key
    if fields.get("visibility"):
        calendar.visibility = fields["visibility"]


def calendar_archive(*, actor: Any, calendar: Calendar) -> Calendar:
    require(actor, CalendarsPerm.DELETE)
    calendar.is_default = False
    calendar.trash(actor, also=["is_default"])
    logger.info("calendar %s archived", calendar.pk)
    return calendar


def calendar_restore(*, actor: Any, calendar: Calendar) -> Calendar:
    require(actor, CalendarsPerm.DELETE)
    if calendar.deleted_at is None:
        raise invalid("calendar_id", _("the calendar is not archived"))
    calendar.untrash()
    return calendar


def default_calendar(*, actor: Any) -> Calendar:
    """The actor's own calendar, made the first time it is needed."""
    calendar = Calendar.objects.live().filter(owner=actor, is_default=True).first()
    if calendar is None:
        calendar = Calendar.objects.create(
            owner=actor,
            created_by=actor,
            is_default=True,
            name=(actor.full_name or actor.email)[:120],
            time_zone=recurrence.workspace_zone().key,
        )
    return calendar


# --- events ---------------------------------------------------------------------------------------


def event_create(
    *, actor: Any, calendar: Calendar, fields: dict[str, Any], attendees: list[dict[str, Any]]
) -> Event:
    require(actor, CalendarsPerm.EDIT)
    event = Event(calendar=calendar, organizer=actor, created_by=actor, time_zone=calendar.time_zone)
    _apply_event(event, {"status": Event.Status.CONFIRMED, **fields}, creating=True)
    event.save()
    for spec in attendees:
        attendee_add(actor=actor, event=event, spec=spec)
    _check_attendee_count(event)
    logger.info("event %s created on calendar %s", event.pk, calendar.pk)
    return event


def event_update(
    *,
    actor: Any,
    event: Event,
    fields: dict[str, Any],
    add: list[dict[str, Any]] = (),  # type: ignore[assignment]
    remove: list[str] = (),  # type: ignore[assignment]
) -> list[str]:
    """Applies `fields`, adds and removes attendees; returns what changed."""
    require(actor, CalendarsPerm.EDIT)
    tracked = ("calendar_id", "title", "description", "busy", "time_zone", *SCHEDULING_FIELDS)
    before = {name: getattr(event, name) for name in tracked}
    if "calendar_id" in fields:
        calendar_id = fields.pop("calendar_id")
        if calendar_id is None:
            raise invalid(
                "calendar_id",
                _("an event is always on a calendar; give the one to move it to (getCalendarSummary)"),
            )
        event.calendar = Calendar.objects.fetch(actor, calendar_id, "change")
        unname_private_contacts(event)
    _apply_event(event, fields, creating=False)
    changed = [name.removesuffix("_id") for name, value in before.items() if getattr(event, name) != value]
    for spec in add:
        if attendee_add(actor=actor, event=event, spec=spec):
            changed.append(f"attendee {spec.get('email') or 'contact ' + str(spec.get('contact_id'))} added")
    for email in remove:
        deleted, _kinds = event.attendees.filter(email__iexact=email.strip()).delete()
        if not deleted:
            raise invalid(
                "remove_attendees",
                _("{email} is not an attendee of event {event}"),
                email=email,
                event=event.pk,
            )
        changed.append(f"attendee {email.strip().lower()} removed")
    _check_attendee_count(event)
    if any(name in changed for name in SCHEDULING_FIELDS):
        event.sequence += 1
    if changed:
        event.save()
    return changed


def event_delete(*, actor: Any, event: Event) -> Event:
    require(actor, CalendarsPerm.EDIT)
    event.trash(actor)
    return event


def _check_attendee_count(event: Event) -> None:
    if event.attendees.count() > MAX_ATTENDEES:
        raise invalid("attendees", _("at most {most} attendees"), most=MAX_ATTENDEES)


def _apply_event(event: Event, fields: dict[str, Any], *, creating: bool) -> None:
    _apply_texts(event, fields, {"title": 300, "description": 10_000, "location": 300}, creating=creating)
    if fields.get("status"):
        event.status = fields["status"]
    if fields.get("busy") is not None:
        event.busy = bool(fields["busy"])
    was = (event.starts_at, ZoneInfo(event.time_zone)) if not creating else None
    if fields.get("time_zone"):
        event.time_zone = recurrence.zone_named(fields["time_zone"], field="time_zone").key
    zone = ZoneInfo(event.time_zone)
    timing = {"start", "end", "duration_minutes", "all_day"} & set(fields)
    if creating or timing or ("time_zone" in fields and fields.get("time_zone")):
        _apply_times(event, fields, zone, creating=creating, was=was[1] if was else zone)
    if "recurrence" in fields:
        rule = (fields["recurrence"] or "").strip()
        event.recurrence = rule_of(rule, start=event.starts_at, zone=zone) if rule else ""
    elif event.recurrence and timing:
        # The series moves with its start: check the rule still has occurrences from there.
        event.recurrence = rule_of(event.recurrence, start=event.starts_at, zone=zone)
    if was is not None and event.excluded:
        event.excluded = _moved_exceptions(event, *was, zone)
    if fields.get("cancel_occurrence"):
        _exclude(event, fields["cancel_occurrence"], zone)
    for text in fields.get("cancelled_occurrences") or ():  # a file's row (apps.calendars.transfer)
        _exclude(event, text, zone, field="cancelled_occurrences")
    last = recurrence.last_start(event.recurrence, start=event.starts_at, zone=zone)
    length = recurrence.wall_length(event.starts_at, event.ends_at, zone)
    event.recurrence_ends_at = last.astimezone(zone) + length if last is not None else None


def _moved_exceptions(
    event: Event, old_start: datetime, old_zone: ZoneInfo, zone: ZoneInfo
) -> list[datetime]:
    """The cancelled occurrences of a series whose start (or zone) changed, moved with it: each by
    the wall-clock shift of the first start (an hour later, a day later), so the occurrence that
    was cancelled stays cancelled. One that the rule no longer has is dropped."""
    shift = recurrence.local_naive(event.starts_at, zone) - recurrence.local_naive(old_start, old_zone)
    if not shift and old_zone == zone:
        return event.excluded
    moved = []
    for moment in event.excluded:
        local = recurrence.local_naive(moment, old_zone) + shift
        candidate = _occurrence_at(event, local.replace(tzinfo=zone), zone) if event.recurrence else None
        if candidate is not None:
            moved.append(candidate)
    return moved


def _occurrence_at(event: Event, moment: datetime, zone: ZoneInfo) -> datetime | None:
    """The start of the occurrence of `event` that starts at the instant `moment`, as the
    expansion gives it (and searchCalendarEvents lists it), or None. Compared as instants: on the
    night the clocks go forward, 01:30 in London is the instant the expansion writes 02:30+01:00."""
    utc = ZoneInfo("UTC")
    for start in recurrence.occurrences(
        event.recurrence,
        start=event.starts_at,
        duration=recurrence.wall_length(event.starts_at, event.ends_at, zone),
        zone=zone,
        # A second either side: the expansion adds the duration to wall-clock times, so an
        # occurrence starting in the skipped hour seems to end when it starts.
        window_start=moment - timedelta(seconds=1),
        window_end=moment + timedelta(seconds=1),
    ):
        if start.astimezone(utc) == moment.astimezone(utc):
            return start
    return None


def _apply_times(
    event: Event, fields: dict[str, Any], zone: ZoneInfo, *, creating: bool, was: ZoneInfo
) -> None:
    """Sets the event's times from `fields`, read in `zone`; `was` is the zone it had (an all-day
    event moved to another zone keeps its days: midnight in London is the day before in New York)."""
    all_day = (
        fields["all_day"] if fields.get("all_day") is not None else (event.all_day if not creating else False)
    )
    if creating and not fields.get("start"):
        raise invalid("start", _("is required"))
    if fields.get("end") and fields.get("duration_minutes"):
        raise invalid("duration_minutes", _("give either `end` or `durationMinutes`, not both"))
    # Moved, it keeps its length on the clock (a night shift ends at six on any night).
    duration = recurrence.wall_length(event.starts_at, event.ends_at, was) if not creating else None
    if all_day:
        if fields.get("duration_minutes"):
            raise invalid(
                "duration_minutes", _("an all-day event lasts whole days; give its last day as `end`")
            )
        start_day = (
            _whole_day(fields["start"], zone=zone, field="start")
            if fields.get("start")
            else event.starts_at.astimezone(was).date()
        )
        starts_at = datetime.combine(start_day, time(0), tzinfo=zone)
        if fields.get("end"):
            end_day = _whole_day(fields["end"], zone=zone, field="end")
            # An all-day end is the last day of the event, inclusive.
            ends_at = datetime.combine(end_day + timedelta(days=1), time(0), tzinfo=zone)
        else:
            days = max(1, round((duration or timedelta(days=1)) / timedelta(days=1)))
            ends_at = datetime.combine(start_day + timedelta(days=days), time(0), tzinfo=zone)
    else:
        starts_at = (
            when(fields["start"], zone=zone, field="start") if fields.get("start") else event.starts_at
        )
        if fields.get("end"):
            ends_at = when(fields["end"], zone=zone, field="end")
        elif fields.get("duration_minutes"):
            # Minutes elapsed: eight hours from 22:00 end at 05:00 on the night the clocks go back.
            ends_at = (starts_at.astimezone(UTC) + timedelta(minutes=fields["duration_minutes"])).astimezone(
                zone
            )
        else:
            ends_at = starts_at.astimezone(zone) + (duration or timedelta(hours=1))
    if ends_at <= starts_at:
        raise invalid(
            "end",
            _("the event ends ({ends}) before or when it starts ({starts}); give an end after the start"),
            ends=ends_at.astimezone(zone).isoformat(),
            starts=starts_at.astimezone(zone).isoformat(),
        )
    if ends_at - starts_at > timedelta(days=366):
        raise invalid("end", _("an event lasts at most a year; use a recurrence rule for repeats"))
    event.starts_at, event.ends_at, event.all_day = starts_at, ends_at, all_day


def _whole_day(text: str, *, zone: ZoneInfo, field: str) -> date:
    """The day of an all-day event's start or end: a date, or that date's midnight (a spreadsheet's
    date cell reads so). Another time would be dropped without a word: refused."""
    given = text.strip()
    if len(given) == 10:
        return day(given, field=field)
    moment = when(given, zone=zone, field=field)
    if moment.time() != time(0):
        raise invalid(
            field, _("an all-day event's {name} is a date such as 2026-03-10, without a time"), name=field
        )
    return moment.date()


def _exclude(event: Event, text: str, zone: ZoneInfo, field: str = "cancel_occurrence") -> None:
    if not event.recurrence:
        raise invalid(field, _("the event does not repeat; cancel it with status cancelled"))
    moment = _occurrence_at(event, when(text, zone=zone, field=field, allow_date=event.all_day), zone)
    if moment is None:
        raise invalid(
            field,
            _("{text} is not the start of an occurrence of event {event}; searchCalendarEvents lists them"),
            text=text,
            event=event.pk,
        )
    if moment not in event.excluded:
        event.excluded = [*event.excluded, moment]


# --- attendees ------------------------------------------------------------------------------------


def _named_after(event: Event, contact: Any) -> bool:
    """Whether an attendee may be named after `contact`: where the name would be seen by no more
    people than see the contact (a private contact's, in an event everyone sees, would show it to
    all)."""
    return derived_visibility(event, contact) == derived_visibility(event)


def unname_private_contacts(event: Event) -> None:
    """Forgets the names copied from contacts that are now less visible than the event (it moved
    to a calendar more people see, or its calendar was opened to the workspace)."""
    for attendee in event.attendees.filter(contact__isnull=False, user__isnull=True).select_related(
        "contact"
    ):
        contact = attendee.contact
        if (
            contact
            and attendee.name
            and attendee.name == contact.display_name
            and not _named_after(event, contact)
        ):
            attendee.name = ""
            attendee.save(update_fields=["name"])


def attendee_add(*, actor: Any, event: Event, spec: dict[str, Any]) -> bool:
    """Adds one attendee (an e-mail address, a workspace person's or a contact's); False when
    they were already invited."""
    from apps.contacts import api as contacts_api

    email = (spec.get("email") or "").strip().lower()
    contact = None
    if spec.get("contact_id"):
        contact = contacts_api.contact(actor=actor, contact_id=spec["contact_id"])
        email = email or (contact.email or "").lower()
        if not email:
            raise invalid(
                "attendees",
                _("contact {contact} has no e-mail address; add one with updateContact first"),
                contact=contact.pk,
            )
    if not email:
        raise invalid("attendees", _("each attendee needs an `email` or a `contactId`"))
    email = clean.email(email, field="attendees")
    if event.attendees.filter(email__iexact=email).exists():
        return False
    user = User.objects.filter(email=email, is_active=True).first()
    if contact is None:
        contact = contacts_api.contacts(actor).filter(email__iexact=email).order_by("pk").first()
    # A name from a contact is copied only where it would be seen by no more people than see the
    # contact: a private contact's, into an event everyone sees, would show it to all.
    named = contact is not None and _named_after(event, contact)
    name = (
        (spec.get("name") or "").strip()[:200]
        or (user.full_name if user else "")
        or (contact.display_name if contact is not None and named else "")
    )
    Attendee.objects.create(
        event=event,
        email=email,
        name=name,
        user=user,
        contact=contact,
        optional=bool(spec.get("optional")),
        response=Attendee.Response.ACCEPTED
        if user is not None and user.pk == event.organizer_id
        else Attendee.Response.NEEDS_ACTION,
    )
    return True


def response_record(*, attendee: Attendee, response: str, comment: str = "") -> bool:
    """An attendee's answer (from the invitation's links, or told to an agent); False if unchanged."""
    if response not in Attendee.Response.values:
        raise invalid("response", _("one of {choices}"), choices=", ".join(Attendee.Response.values))
    comment = (comment or "").strip()[:500]
    if attendee.response == response and attendee.comment == comment:
        return False
    attendee.response = response
    attendee.comment = comment
    attendee.responded_at = timezone.now()
    attendee.save(update_fields=["response", "comment", "responded_at"])
    logger.info("attendee %s of event %s answered %s", attendee.pk, attendee.event_id, response)
    return True


def responses_record(*, actor: Any, event: Event, answers: list[dict[str, Any]]) -> list[str]:
    require(actor, CalendarsPerm.EDIT)
    changed = []
    for answer in answers:
        email = (answer.get("email") or "").strip()
        attendee = event.attendees.filter(email__iexact=email).first()
        if attendee is None:
            raise invalid(
                "responses", _("{email} is not an attendee of event {event}"), email=email, event=event.pk
            )
        if response_record(
            attendee=attendee, response=answer["response"], comment=answer.get("comment") or ""
        ):
            changed.append(f"{attendee.email} answered {attendee.response}")
    return changed
