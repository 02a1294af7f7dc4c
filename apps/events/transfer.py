"""Events as people import and export them as spreadsheets (apps.core.transfer).

- `event`: imported as createEvent plans one (`services.event_create`, its cleaning and checks:
  times read in the row's time zone, a start ahead, a span of at most a year); two rows are one
  event when they have the same name and start at the same instant (the area has no other rule
  for "the same event"; two events of one name at one moment are a file read twice). Exported
  with its times in its own zone.
- `event_attendee`: export only, the people on the lists of the events the person may see. An
  event's attendees are imported into that event by its own import (validateAttendeeImport and
  commitAttendeeImport: one event, its capacity and waitlist, needs for who may record them).
  Dietary and accessibility needs are in no export: special-category data, read one attendee at
  a time with events.needs.
"""

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.utils.translation import gettext_lazy as _

from apps.core import clean, transfer
from apps.core.actors import actor_id
from apps.core.errors import AppError, invalid
from apps.core.records import Visibility
from apps.core.transfer import Column
from apps.events import services
from apps.events.models import Attendee, Event
from apps.events.permissions import EventsPerm


def _when(field: str) -> Any:
    def parse(text: str) -> datetime:
        try:
            moment = datetime.fromisoformat(text.strip())
        except ValueError:
            raise invalid(
                field,
                _("{text!r} is not a date and time (2026-03-10T14:30, in the row's time zone)"),
                text=text,
            ) from None
        # The years createEvent takes: far outside them, the time moved to UTC is no datetime.
        return clean.in_years(moment, field=field)

    return parse


# createEvent's bound of a capacity.
MOST_PLACES = 1_000_000


def _capacity(text: str) -> int:
    try:
        places = int(text.strip())
    except ValueError:
        raise invalid("capacity", _("{text!r} is not a whole number"), text=text) from None
    if places > MOST_PLACES:
        raise invalid("capacity", _("at most {most} places"), most=MOST_PLACES)
    return places


def _visibility(text: str) -> str:
    value = text.strip().lower()
    if value not in (Visibility.WORKSPACE, Visibility.PRIVATE):
        raise invalid("visibility", _("workspace or private, not {text!r}"), text=text)
    return value


COLUMNS = (
    Column("name", "name", "as attendees see it"),
    Column("startsAt", "starts_at", "2026-03-10T09:00, in timeZone", parse=_when("startsAt")),
    Column("endsAt", "ends_at", "2026-03-10T17:00, in timeZone", parse=_when("endsAt")),
    Column("timeZone", "time_zone", "IANA, e.g. Europe/Berlin; UTC by default"),
    Column("venue", "venue", "place and address"),
    Column("capacity", "capacity", "places; empty: no limit", parse=_capacity),
    Column("currency", "currency", "of its budget, EUR by default"),
    Column("description", "description"),
    Column("visibility", "visibility", "workspace (the default) or private", parse=_visibility),
)


def _new(actor: Any, fields: dict[str, Any]) -> Event:
    return Event(
        created_by_id=actor_id(actor),
        owner_id=actor_id(actor),
        time_zone=clean.zone(fields.get("time_zone") or "UTC"),
    )


# What createEvent requires (its arguments without a default).
REQUIRED = (("name", "name"), ("starts_at", "startsAt"), ("ends_at", "endsAt"))


def _complete(fields: dict[str, Any]) -> dict[str, Any]:
    for field, column in REQUIRED:
        if not fields.get(field):
            raise invalid(column, _("is required"))
    return fields


def check(actor: Any, fields: dict[str, Any]) -> None:
    if existing(actor, set(keys(fields))):
        return  # the import leaves it out as a duplicate
    services._apply_event(actor, _new(actor, fields), _complete(fields), True)


def create(actor: Any, fields: dict[str, Any]) -> int:
    return services.event_create(actor=actor, fields=_complete(fields)).pk


def _instant(value: Any, zone: Any) -> datetime | None:
    if not isinstance(value, datetime):
        return None
    try:
        local = value if value.tzinfo else value.replace(tzinfo=ZoneInfo(str(zone or "UTC").strip()))
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return local.astimezone(UTC)


def _key(name: str, instant: datetime) -> str:
    return f"event:{instant.isoformat()}|{' '.join(name.lower().split())}"


def keys(fields: dict[str, Any]) -> list[str]:
    instant = _instant(fields.get("starts_at"), fields.get("time_zone"))
    name = str(fields.get("name") or "").strip()
    return [_key(name, instant)] if instant is not None and name else []


def existing(actor: Any, wanted: set[str]) -> dict[str, int]:
    starts = []
    for key in wanted:
        if key.startswith("event:"):
            try:
                starts.append(datetime.fromisoformat(key.removeprefix("event:").partition("|")[0]))
            except ValueError:
                continue
    if not starts:
        return {}
    rows = Event.objects.restrict(actor, "view").filter(starts_at__in=starts).order_by("id")
    found: dict[str, int] = {}
    for pk, name, starts_at in rows.values_list("pk", "name", "starts_at"):
        key = _key(name, starts_at.astimezone(UTC))
        if key in wanted:
            found.setdefault(key, pk)
    return found


transfer.importable(
    transfer.Importable(
        kind="event",
        label=_("Event"),
        permission=EventsPerm.EDIT,
        columns=COLUMNS,
        check=check,
        create=create,
        keys=keys,
        existing=existing,
        description="event: an event of the same name starting at the same instant",
    )
)


def _local(moment: datetime | None, zone: str) -> str:
    """A moment as the wall-clock time of `zone`, with its offset (ISO 8601)."""
    if moment is None:
        return ""
    try:
        return moment.astimezone(ZoneInfo(zone)).isoformat()
    except (ZoneInfoNotFoundError, ValueError, AppError):
        return moment.isoformat()


# The import's columns after the event's id, and what it has that the import does not make.
transfer.exportable(
    transfer.Exportable(
        kind="event",
        label=_("Event"),
        permission=EventsPerm.VIEW,
        columns=(
            ("id", lambda event: event.pk),
            ("name", lambda event: event.name),
            ("startsAt", lambda event: _local(event.starts_at, event.time_zone)),
            ("endsAt", lambda event: _local(event.ends_at, event.time_zone)),
            ("timeZone", lambda event: event.time_zone),
            ("venue", lambda event: event.venue),
            ("capacity", lambda event: event.capacity),
            ("currency", lambda event: event.currency),
            ("description", lambda event: event.description),
            ("visibility", lambda event: event.visibility),
            ("stage", lambda event: event.stage.name if event.stage else ""),
            ("ownerEmail", lambda event: event.owner.email if event.owner else ""),
            ("cancelledAt", lambda event: event.cancelled_at),
            ("createdAt", lambda event: event.created_at),
        ),
        rows=lambda actor: (
            Event.objects.restrict(actor, "view").select_related("stage", "owner").order_by("starts_at", "id")
        ),
        search=("name", "venue", "description"),
    )
)


transfer.exportable(
    transfer.Exportable(
        kind="event_attendee",
        label=_("Event attendee"),
        permission=EventsPerm.VIEW,
        columns=(
            ("id", lambda attendee: attendee.pk),
            ("eventId", lambda attendee: attendee.event_id),
            ("eventName", lambda attendee: attendee.event.name),
            ("eventStartsAt", lambda attendee: _local(attendee.event.starts_at, attendee.event.time_zone)),
            ("name", lambda attendee: attendee.name),
            ("email", lambda attendee: attendee.email),
            ("organisation", lambda attendee: attendee.organisation),
            ("type", lambda attendee: attendee.type),
            ("status", lambda attendee: attendee.status),
            ("createdAt", lambda attendee: attendee.created_at),
        ),
        rows=lambda actor: (
            Attendee.objects.restrict(actor, "view")
            .filter(event__deleted_at__isnull=True)
            .select_related("event")
            .order_by("event__starts_at", "event_id", "name", "id")
        ),
        search=("name", "email", "organisation", "event__name"),
    )
)
