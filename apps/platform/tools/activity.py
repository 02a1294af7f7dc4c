"""What people and agents did: the log of tool calls and the records' histories, read together
(apps.platform.activity; admins, platform.audit, read everyone's, others their own); and what
was deleted, across the areas (apps.platform.trash)."""

from datetime import datetime
from typing import Annotated, Any, Literal

from django.db import models
from pydantic import Field

from apps.catalogue import registry
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.models import ToolCall
from apps.catalogue.registry import tool
from apps.catalogue.shapes import EntityType, Limit, Offset, Out, Page, PersonRef, id_field, page_of
from apps.core import history, kinds
from apps.platform import activity, errors, trash
from apps.platform.activity import Entry, Filters
from apps.platform.permissions import PlatformPerm

Outcome = Literal[
    "ok",
    "error",
    "invalid_arguments",
    "first_call_required",
    "confirmation_required",
    "input_required",
    "declined",
    "cancelled",
    "failed",
    "not_found",
]
EntryId = Annotated[
    str,
    Field(
        min_length=3,
        max_length=120,
        pattern=r"^[a-z_]+(\.[a-z_]+)?:[0-9]{1,19}$",
        description="From searchActivityLog: call:12, deals.dealevent:7",
    ),
]


class ActivityOut(Out):
    id: str = Field(description="For getActivityDetail")
    at: datetime
    source: Literal["call", "change"] = Field(
        description="call: a tool call (the log of calls); change: a change to a record (its history)"
    )
    who: PersonRef | None = Field(description="null: the service itself, or someone since erased")
    tool: str = Field(
        description="The tool called, or that made the change; empty: on a page or by the service"
    )
    area: str
    outcome: str = Field(description="How a call ended (ok, error, ...); ok for a change")
    error_code: str
    record_kind: str | None = Field(description="A change's record: its entityType")
    record_id: int | None
    record_title: str | None
    summary: str


class ActivityDetailOut(ActivityOut):
    door: str = Field(description="mcp or gateway for an agent's tool call; empty: a page or the service")
    client: str = Field(description="The app or API key that called")
    duration_ms: float | None
    refusal: str = Field(description="Why a call was not_found (admins only): role, scope, unknown_tool...")
    changes: dict[str, Any] = Field(description="What changed (field: [before, after]) and other facts")
    message: str


def _area_of(tool_name: str) -> str:
    spec = registry.get(tool_name)
    return spec.area if spec else ""


def _kind_label(row: Any) -> str:
    if not hasattr(row, "get_kind_display"):
        return ""
    return str(row.get_kind_display())


def _record(found: activity.History, row: Any) -> Any:
    return getattr(row, found.record_field)


def _summary(row: Any) -> str:
    parts = [_kind_label(row), getattr(row, "summary", "") or getattr(row, "step_title", "")]
    text = ": ".join(part for part in parts if part)
    return text or str(row)


def _listed(entry: Entry) -> dict[str, Any]:
    row = entry.row
    if entry.found is None:
        return {
            "id": entry.id,
            "at": row.at,
            "source": "call",
            "who": PersonRef.of(row.user),
            "tool": row.tool,
            "area": _area_of(row.tool),
            "outcome": row.outcome,
            "error_code": row.error_code,
            "record_kind": None,
            "record_id": None,
            "record_title": None,
            "summary": f"{row.tool}: {row.get_outcome_display()}",
        }
    record = _record(entry.found, row)
    return {
        "id": entry.id,
        "at": row.at,
        "source": "change",
        "who": PersonRef.of(row.actor),
        "tool": row.tool,
        "area": entry.found.area,
        "outcome": ToolCall.Outcome.OK.value,
        "error_code": "",
        "record_kind": entry.found.kind.key,
        "record_id": record.pk,
        "record_title": entry.found.kind.title_of(record),
        "summary": _summary(row),
    }


_BASE_FIELDS = {field.name for field in history.Event._meta.get_fields()} | {"id", "kind"}


def _facts(row: Any) -> dict[str, Any]:
    """A change's facts beyond its base: the fields that changed, and the history's own plain
    fields (a ticket's old and new status). JSON fields other than `changes` are left out: only
    the area's own tools read those."""
    facts: dict[str, Any] = dict(getattr(row, "changes", None) or {})
    for field in row._meta.concrete_fields:
        if field.name in _BASE_FIELDS or field.name == "message" or field.is_relation:
            continue
        if isinstance(field, models.JSONField):
            continue
        facts[field.name] = history.jsonable(getattr(row, field.attname))
    return facts


class ActivityPage(Out):
    items: list[ActivityOut]
    next_cursor: str | None = Field(description="Give it as cursor for the next page; null: no more")
    everyone: bool = Field(description="true: everyone's activity (platform.audit); false: your own")


@tool("searchActivityLog", permission=PlatformPerm.VIEW, title="Search the activity log", read_only=True)
def search_activity_log(
    ctx: ToolContext,
    *,
    person_id: Annotated[
        int | None, id_field("listWorkspaceUsers", description="Whose activity (admins: anyone's)")
    ] = None,
    tool_name: Annotated[
        str, Field(max_length=100, description="Only calls of, or changes made by, this tool")
    ] = "",
    area: Annotated[str, Field(max_length=50, description="An area's key: contacts, deals...")] = "",
    record_kind: Annotated[
        EntityType | None, Field(description="Only the changes to one record: its kind")
    ] = None,
    record_id: Annotated[int | None, Field(ge=1, le=2**63 - 1, description="With recordKind")] = None,
    outcome: Annotated[Outcome | None, Field(description="How the calls ended")] = None,
    source: Annotated[
        Literal["calls", "changes"] | None,
        Field(description="calls: tool calls only; changes: record changes only"),
    ] = None,
    since: Annotated[datetime | None, Field(description="From this time (ISO 8601)")] = None,
    until: Annotated[datetime | None, Field(description="Before this time")] = None,
    limit: Limit = 25,
    cursor: Annotated[str, Field(max_length=200, description="From nextCursor")] = "",
) -> ActivityPage:
    """Who did what: tool calls by agents and changes to records, newest first, filtered.

    Admins see everyone's, others their own; changes only to records you may see. One entry in full:
    getActivityDetail."""
    actor = ctx.actor
    if person_id is not None and person_id != actor.pk and not activity.audits(actor):
        raise errors.ActivityOfOthers()
    if (record_kind is None) != (record_id is None):
        raise errors.ActivityNeedsRecordId()
    if since is not None and until is not None and since >= until:
        raise errors.ActivityTimesReversed()
    kind = None
    if record_kind is not None and record_id is not None:
        kind = kinds.kind_named(record_kind)
        kind.fetch(actor=actor, pk=record_id, trash=True)  # not found unless they may see it
    filters = Filters(
        person_id=person_id,
        tool=tool_name.strip(),
        area=activity.check_area(area),
        kind=kind,
        record_id=record_id,
        outcome=outcome or "",
        since=since,
        until=until,
        source=source or "",
    )
    entries, next_cursor = activity.search(actor, filters, limit=limit, cursor=cursor.strip())
    return ActivityPage(
        items=[ActivityOut(**_listed(entry)) for entry in entries],
        next_cursor=next_cursor,
        everyone=activity.audits(actor),
    )


@tool("getActivityDetail", permission=PlatformPerm.VIEW, title="One activity entry", read_only=True)
def get_activity_detail(ctx: ToolContext, *, entry_id: EntryId) -> ActivityDetailOut:
    """One entry of the activity log in full: the call's client and duration, or what changed.

    The entries: searchActivityLog."""
    actor = ctx.actor
    found = activity.entry(actor, entry_id)
    row = found.row
    listed = _listed(found)
    if found.found is None:
        return ActivityDetailOut(
            **listed,
            door="",
            client=row.client,
            duration_ms=row.duration_ms,
            refusal=row.refusal if activity.audits(actor) else "",
            changes={},
            message="",
        )
    return ActivityDetailOut(
        **listed,
        door=row.door,
        client=row.client,
        duration_ms=None,
        refusal="",
        changes=_facts(row),
        message=getattr(row, "message", "") or "",
    )


# --- the trash ------------------------------------------------------------------------------------


class DeletedOut(Out):
    entity_type: str = Field(description="The record's kind, as searchWorkspace and links take it")
    label: str
    id: int
    title: str
    deleted_at: datetime
    deleted_by: PersonRef | None
    restore_with: str | None = Field(description="The tool that restores it; null: see restoreHint")
    restore_hint: str = Field(description="How it comes back")
    purge_at: datetime | None = Field(
        description="When it goes for good; null: kept until restored or erased"
    )


def _deleted(found: trash.Trashed) -> DeletedOut:
    access = found.kind.model_class.access  # type: ignore[attr-defined]
    record = found.record
    return DeletedOut(
        entity_type=found.kind.key,
        label=found.kind.label,
        id=record.pk,
        title=found.kind.title_of(record),
        deleted_at=record.deleted_at,
        deleted_by=PersonRef.of(getattr(record, "deleted_by", None)),
        restore_with=access.restore_with or None,
        restore_hint=access.how_to_restore(),
        purge_at=None,
    )


@tool("listRecentlyDeleted", permission=PlatformPerm.VIEW, title="Recently deleted records", read_only=True)
def list_recently_deleted(
    ctx: ToolContext,
    *,
    entity_type: Annotated[EntityType | None, Field(description="Only this kind: contact, deal...")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[DeletedOut]:
    """Records in the trash in every area you may see, last deleted first, with how to restore each.

    One area's trash of files: listFileTrash."""
    only = None
    if entity_type is not None:
        only = kinds.kind_named(entity_type)
        if only not in trash.trashable():
            raise errors.KindNotTrashed(kind=entity_type, known=", ".join(k.key for k in trash.trashable()))
    rows, total = trash.recently_deleted(ctx.actor, only=only, limit=limit, offset=offset)
    return page_of([_deleted(found) for found in rows], total=total, limit=limit, offset=offset)
