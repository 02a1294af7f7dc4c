"""Calendar events as people import and export them as spreadsheets (apps.core.transfer); an
iCalendar file is the area's own (manageCalendar's subscribe, the feeds).

`calendar_event`: a row becomes an event as createCalendarEvent adds one (`services.event_create`:
times read in the row's `timeZone`, else its calendar's; all-day dates; the rule made canonical;
attendees by e-mail address), on the calendar the row names (one the importer may add events to)
or on the importer's own. Two rows are one event when they are on the same calendar, start at the
same moment and have the same title (the feeds' other key, the iCalendar UID, is not in a
spreadsheet). Exported with its times in its own zone, an all-day event's as its first and last
day, as the import reads them."""

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.utils.translation import gettext_lazy as _

from apps.calendars import services
from apps.calendars.models import Calendar, Event
from apps.calendars.permissions import CalendarsPerm
from apps.core import clean, recurrence, transfer
from apps.core.actors import actor_id
from apps.core.errors import AppError, invalid
from apps.core.records import Action
from apps.core.transfer import Column

TRUE = ("true", "yes", "y", "1")
FALSE = ("false", "no", "n", "0")


def _flag(field: str) -> Any:
    def parse(text: str) -> bool:
        value = text.strip().lower()
        if value not in TRUE + FALSE:
            raise invalid(field, _("true or false, not {text!r}"), text=text)
        return value in TRUE

    return parse


def _minutes(text: str) -> int:
    try:
        minutes = int(text.strip())
    except ValueError:
        raise invalid("duration_minutes", _("{text!r} is not a whole number of minutes"), text=text) from None
    if not 1 <= minutes <= 60 * 24 * 14:
        raise invalid("duration_minutes", _("from 1 to {most} minutes"), most=60 * 24 * 14)
    return minutes


def _status(text: str) -> str:
    value = text.strip().lower()
    if value not in Event.Status.values:
        raise invalid("status", _("confirmed, tentative or cancelled, not {text!r}"), text=text)
    return value


# createCalendarEvent's bound of a rule (the column's width).
RULE_LENGTH = 500


def _rule(text: str) -> str:
    if len(text) > RULE_LENGTH:
        raise invalid("recurrence", _("at most {limit} characters"), limit=RULE_LENGTH)
    return text


def _attendees(text: str) -> list[dict[str, str]]:
    addresses = [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]
    if len(addresses) > services.MAX_ATTENDEES:
        raise invalid("attendees", _("at most {most} attendees"), most=services.MAX_ATTENDEES)
    return [{"email": clean.email(address, field="attendees")} for address in addresses]


def _starts(text: str) -> list[str]:
    return [part.strip() for part in text.replace(",", ";").split(";") if part.strip()]


COLUMNS = (
    Column("title", "title", "what the event is"),
    Column("start", "start", "2026-03-10T14:30 in timeZone; a date if all-day"),
    Column("end", "end", "likewise; all-day: the last day"),
    Column("durationMinutes", "duration_minutes", "instead of end (default 60)", parse=_minutes),
    Column("allDay", "all_day", "true: start and end are dates", parse=_flag("all_day")),
    Column("timeZone", "time_zone", "IANA, e.g. Europe/Berlin; the calendar's by default"),
    Column("recurrence", "recurrence", "an RRULE, e.g. FREQ=WEEKLY;COUNT=5; empty: once", parse=_rule),
    Column(
        "cancelledOccurrences",
        "cancelled_occurrences",
        "starts of the occurrences left out, separated by semicolons",
        parse=_starts,
    ),
    Column("location", "location"),
    Column("description", "description"),
    Column("status", "status", "confirmed (the default), tentative or cancelled", parse=_status),
    Column("busy", "busy", "false: it does not make its people busy", parse=_flag("busy")),
    Column("calendarName", "calendar_name", "a calendar you may add events to; your own by default"),
    Column("attendees", "attendees", "e-mail addresses separated by commas or semicolons", parse=_attendees),
)


def _calendar_named(actor: Any, name: str, action: Action = "change") -> Calendar | None:
    """The calendar of that name the actor may `action` (their own first), or None."""
    wanted = " ".join(name.split())
    rows = list(Calendar.objects.restrict(actor, action).filter(name__iexact=wanted).order_by("id"))
    mine = [calendar for calendar in rows if calendar.owner_id == actor_id(actor)]
    if len(mine) > 1 or (not mine and len(rows) > 1):
        raise invalid(
            "calendar_name",
            _("several calendars are called {name!r}; rename one with manageCalendar"),
            name=wanted,
        )
    chosen = mine or rows
    return chosen[0] if chosen else None


def _calendar(actor: Any, fields: dict[str, Any], *, making: bool) -> Calendar:
    """The row's calendar: the one it names, or the importer's own (made when an event is)."""
    name = str(fields.get("calendar_name") or "").strip()
    if name:
        found = _calendar_named(actor, name)
        if found is None:
            raise invalid(
                "calendar_name",
                _("no calendar called {name!r} that you may add events to; getCalendarSummary lists them"),
                name=name,
            )
        return found
    if making:
        return services.default_calendar(actor=actor)
    own = Calendar.objects.live().filter(owner_id=actor_id(actor), is_default=True).first()
    return own or Calendar(owner_id=actor_id(actor), time_zone=recurrence.workspace_zone().key)


def _fields(fields: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, str]]]:
    given = {name: value for name, value in fields.items() if name not in ("calendar_name", "attendees")}
    if not given.get("title"):
        raise invalid("title", _("is required"))
    return {"status": Event.Status.CONFIRMED, **given}, list(fields.get("attendees") or [])


def check(actor: Any, fields: dict[str, Any]) -> None:
    if existing(actor, set(keys(fields))):
        return  # the import leaves it out as a duplicate
    given, _attendees = _fields(fields)
    calendar = _calendar(actor, fields, making=False)
    event = Event(calendar=calendar, organizer_id=actor_id(actor), time_zone=calendar.time_zone)
    services._apply_event(event, given, creating=True)


def create(actor: Any, fields: dict[str, Any]) -> int:
    given, attendees = _fields(fields)
    calendar = _calendar(actor, fields, making=True)
    return services.event_create(actor=actor, calendar=calendar, fields=given, attendees=attendees).pk


def _start(text: Any) -> str:
    value = str(text or "").strip()
    try:
        return datetime.fromisoformat(value).isoformat()
    except ValueError:
        return value


def keys(fields: dict[str, Any]) -> list[str]:
    title = " ".join(str(fields.get("title") or "").lower().split())
    if not title or not fields.get("start"):
        return []
    calendar = " ".join(str(fields.get("calendar_name") or "").lower().split())
    zone = str(fields.get("time_zone") or "").strip()
    return [f"event:{calendar}|{zone}|{_start(fields['start'])}|{title}"]


def _held(actor: Any, key: str) -> int | None:
    calendar_name, zone_name, start, title = key.removeprefix("event:").split("|", 3)
    try:
        if calendar_name:
            calendar = _calendar_named(actor, calendar_name, "view")
        else:
            calendar = Calendar.objects.live().filter(owner_id=actor_id(actor), is_default=True).first()
        if calendar is None:
            return None
        zone = ZoneInfo(clean.zone(zone_name) if zone_name else calendar.time_zone)
        moment = services.when(start, zone=zone, field="start", allow_date=True)
    except AppError:
        return None
    rows = Event.objects.restrict(actor, "view").filter(
        calendar=calendar, starts_at=moment, title__iexact=title
    )
    found = rows.order_by("id").values_list("pk", flat=True).first()
    return found


def existing(actor: Any, wanted: set[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for key in wanted:
        if key.startswith("event:") and key.count("|") >= 3:
            pk = _held(actor, key)
            if pk is not None:
                found[key] = pk
    return found


transfer.importable(
    transfer.Importable(
        kind="calendar_event",
        label=_("Calendar event"),
        permission=CalendarsPerm.EDIT,
        columns=COLUMNS,
        check=check,
        create=create,
        keys=keys,
        existing=existing,
        description="event: an event of the same title on the same calendar starting at the same moment",
    )
)


def _start_of(event: Event) -> str:
    local = event.starts_at.astimezone(ZoneInfo(event.time_zone))
    return local.date().isoformat() if event.all_day else local.isoformat()


def _end_of(event: Event) -> str:
    local = event.ends_at.astimezone(ZoneInfo(event.time_zone))
    # An all-day end is the last day of the event, inclusive (as createCalendarEvent takes it).
    return (local - timedelta(days=1)).date().isoformat() if event.all_day else local.isoformat()


def _cancelled_of(event: Event) -> str:
    zone = ZoneInfo(event.time_zone)
    local = [moment.astimezone(zone) for moment in sorted(event.excluded)]
    return "; ".join(m.date().isoformat() if event.all_day else m.isoformat() for m in local)


# The import's columns after the event's id, and what it has that the import does not make.
transfer.exportable(
    transfer.Exportable(
        kind="calendar_event",
        label=_("Calendar event"),
        permission=CalendarsPerm.VIEW,
        columns=(
            ("id", lambda event: event.pk),
            ("title", lambda event: event.title),
            ("start", _start_of),
            ("end", _end_of),
            ("allDay", lambda event: event.all_day),
            ("timeZone", lambda event: event.time_zone),
            ("recurrence", lambda event: event.recurrence),
            ("cancelledOccurrences", _cancelled_of),
            ("location", lambda event: event.location),
            ("description", lambda event: event.description),
            ("status", lambda event: event.status),
            ("busy", lambda event: event.busy),
            ("calendarName", lambda event: event.calendar.name),
            ("attendees", lambda event: "; ".join(attendee.email for attendee in event.attendees.all())),
            ("organizerEmail", lambda event: event.organizer.email if event.organizer else ""),
            ("createdAt", lambda event: event.created_at),
        ),
        rows=lambda actor: (
            Event.objects.restrict(actor, "view")
            .filter(calendar__deleted_at__isnull=True)
            .select_related("calendar", "organizer")
            .prefetch_related("attendees")
            .order_by("starts_at", "id")
        ),
        search=("title", "location", "description"),
    )
)
