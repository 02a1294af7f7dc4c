"""What people and agents did, read from the two logs the service already keeps: the catalogue's
log of tool calls (`catalogue.ToolCall`: who called which tool, and how it ended; never the
arguments or the result) and the areas' record histories (every model on `apps.core.history.Trail`:
who changed which record, through which door).

Who reads what:

- A holder of `platform.audit` (the built-in admins and owners) reads everyone's entries; anyone
  else only their own.
- An entry of a record's history is read only by those who may see the record now
  (`restrict(actor, "view")`, the trash included: its area's own rule, so another person's private
  record, or an HR record hidden from the person it is about, is never listed, found or named), and
  says no more than the record's own history tools do to them.
- A history whose record is not a record kind (a mailbox's settings) is left out: nothing names
  those records to the rest of the service.

Entries are ordered newest first, with the log they come from and their id to break ties, and read
a page at a time by a cursor (the last entry's place): new entries arriving meanwhile do not shift
the pages already read.
"""

import base64
import binascii
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.apps import apps
from django.db import models
from django.db.models import Q, QuerySet
from django.utils.dateparse import parse_datetime

from apps.catalogue import registry
from apps.catalogue.models import ToolCall
from apps.core import history, kinds
from apps.core.actors import Actor, can
from apps.core.kinds import Kind
from apps.platform import errors
from apps.platform.permissions import PlatformPerm

CALLS = "call"  # the source key of the log of tool calls; a history's is its model's label


@dataclass(frozen=True)
class History:
    """A record history: its model, the foreign key to the record and the record's kind."""

    model: type[history.Trail]
    record_field: str
    kind: Kind

    @property
    def key(self) -> str:
        return self.model._meta.label_lower

    @property
    def area(self) -> str:
        return self.model._meta.app_label


def histories() -> list[History]:
    """Every model on `Trail` whose record is a record kind, by label: the kit has no list of
    them, each area declares its own history model (apps.core.history)."""
    found = []
    for model in apps.get_models():
        if not issubclass(model, history.Trail):
            continue
        for field in model._meta.get_fields():
            if not isinstance(field, models.ForeignKey) or field.name == "actor":
                continue
            related = field.related_model
            kind = kinds.kind_of_model(related) if isinstance(related, type) else None
            if kind is not None:
                found.append(History(model=model, record_field=field.name, kind=kind))
                break
    return sorted(found, key=lambda found_history: found_history.key)


def history_named(key: str) -> History | None:
    return next((found for found in histories() if found.key == key), None)


def audits(actor: Actor) -> bool:
    return can(actor, PlatformPerm.AUDIT)


# --- the filters ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filters:
    person_id: int | None = None
    tool: str = ""
    area: str = ""
    kind: Kind | None = None
    record_id: int | None = None
    outcome: str = ""
    since: datetime | None = None
    until: datetime | None = None
    source: str = ""  # "calls", "changes", or both


def known_areas() -> list[str]:
    return sorted({spec.area for spec in registry.all_tools()} | {found.area for found in histories()})


def check_area(area: str) -> str:
    key = area.strip().lower()
    if key and key not in known_areas():
        raise errors.UnknownActivityArea(area=area, known=", ".join(known_areas()))
    return key


# --- the cursor -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """An entry's place in the order: newest first, then by source key and id, both descending."""

    at: datetime
    source: str
    pk: int

    def encode(self) -> str:
        raw = json.dumps([self.at.isoformat(), self.source, self.pk]).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, cursor: str) -> "Place":
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            at_text, source, pk = json.loads(raw)
            at = parse_datetime(at_text)
            if at is None or not isinstance(source, str) or not isinstance(pk, int):
                raise ValueError(cursor)
        except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
            raise errors.BadActivityCursor() from None
        return cls(at=at, source=source, pk=pk)

    def sort_key(self) -> tuple[datetime, str, int]:
        return (self.at, self.source, self.pk)


def _after(place: Place | None, source: str) -> Q:
    """The rows of `source` after `place` in the order (older, or as old and further on)."""
    if place is None:
        return Q()
    same_time = Q(at=place.at)
    if source < place.source:
        later = same_time
    elif source == place.source:
        later = same_time & Q(pk__lt=place.pk)
    else:
        later = Q(pk__in=[])
    return Q(at__lt=place.at) | later


# --- the rows ------------------------------------------------------------------------------------


def calls(actor: Actor, filters: Filters) -> QuerySet[ToolCall]:
    """The tool calls `actor` may read that match `filters`."""
    rows = ToolCall.objects.select_related("user")
    if not audits(actor):
        rows = rows.filter(user_id=actor.pk)
    if filters.person_id is not None:
        rows = rows.filter(user_id=filters.person_id)
    if filters.tool:
        rows = rows.filter(tool=filters.tool)
    if filters.area:
        rows = rows.filter(tool__in=[spec.name for spec in registry.all_tools() if spec.area == filters.area])
    if filters.outcome:
        rows = rows.filter(outcome=filters.outcome)
    return _in_time(rows, filters)


def changes(actor: Actor, found: History, filters: Filters) -> QuerySet[Any]:
    """The entries of one history `actor` may read that match `filters`: those of records they may
    see now, theirs alone unless they audit."""
    record_model = found.kind.model_class
    if not found.kind.installed:
        return found.model.objects.none()  # type: ignore[attr-defined]
    seen = record_model.objects.restrict(actor, "view", trash="include")  # type: ignore[attr-defined]
    rows = found.model.objects.select_related("actor", found.record_field).filter(  # type: ignore[attr-defined]
        **{f"{found.record_field}__in": seen.values("pk")}
    )
    if not audits(actor):
        rows = rows.filter(actor_id=actor.pk)
    if filters.person_id is not None:
        rows = rows.filter(actor_id=filters.person_id)
    if filters.tool:
        rows = rows.filter(tool=filters.tool)
    if filters.area and filters.area != found.area:
        return found.model.objects.none()  # type: ignore[attr-defined]
    if filters.kind is not None:
        if filters.kind.key != found.kind.key:
            return found.model.objects.none()  # type: ignore[attr-defined]
        rows = rows.filter(**{f"{found.record_field}_id": filters.record_id})
    if filters.outcome and filters.outcome != ToolCall.Outcome.OK:
        return found.model.objects.none()  # type: ignore[attr-defined]
    return _in_time(rows, filters)


def _in_time(rows: QuerySet[Any], filters: Filters) -> QuerySet[Any]:
    if filters.since is not None:
        rows = rows.filter(at__gte=filters.since)
    if filters.until is not None:
        rows = rows.filter(at__lt=filters.until)
    return rows


@dataclass(frozen=True)
class Entry:
    """One entry of either log, with where it came from."""

    source: str  # CALLS, or the history's key
    row: Any
    found: History | None = None

    @property
    def place(self) -> Place:
        return Place(at=self.row.at, source=self.source, pk=self.row.pk)

    @property
    def id(self) -> str:
        return f"{self.source}:{self.row.pk}"


def _sources(actor: Actor, filters: Filters) -> Iterator[tuple[str, QuerySet[Any], History | None]]:
    wants_calls = filters.source in ("", "calls") and filters.kind is None
    if wants_calls:
        yield CALLS, calls(actor, filters), None
    if filters.source in ("", "changes"):
        for found in histories():
            yield found.key, changes(actor, found, filters), found


def search(actor: Actor, filters: Filters, *, limit: int, cursor: str = "") -> tuple[list[Entry], str | None]:
    """One page of entries, newest first, and the cursor of the next page (None: the last)."""
    place = Place.decode(cursor) if cursor else None
    entries: list[Entry] = []
    for source, rows, found in _sources(actor, filters):
        window = rows.filter(_after(place, source)).order_by("-at", "-pk")[: limit + 1]
        entries.extend(Entry(source=source, row=row, found=found) for row in window)
    entries.sort(key=lambda entry: entry.place.sort_key(), reverse=True)
    page = entries[:limit]
    more = len(entries) > limit
    return page, page[-1].place.encode() if more and page else None


def entry(actor: Actor, entry_id: str) -> Entry:
    """The entry `entry_id` ("call:12", "deals.dealevent:7") if `actor` may read it; otherwise
    "not found", the same as an id that does not exist."""
    source, _colon, pk_text = entry_id.partition(":")
    if not pk_text.isdigit():
        raise errors.ActivityNotFound(entry=entry_id)
    pk = int(pk_text)
    if source == CALLS:
        call = calls(actor, Filters()).filter(pk=pk).first()
        if call is None:
            raise errors.ActivityNotFound(entry=entry_id)
        return Entry(source=CALLS, row=call)
    found = history_named(source)
    change = changes(actor, found, Filters()).filter(pk=pk).first() if found else None
    if change is None:
        raise errors.ActivityNotFound(entry=entry_id)
    return Entry(source=source, row=change, found=found)
