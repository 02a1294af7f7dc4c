"""The Notifications area of the catalogue (SPEC 4.7): thin doors onto services and selectors."""

from datetime import datetime
from typing import Annotated, Literal

from django.db.models import Count
from django.urls import reverse
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import (
    EntityId,
    EntityOut,
    EntityRef,
    EntityType,
    Limit,
    Offset,
    Out,
    Page,
    aware,
    paginate,
)
from apps.core import clean, kinds
from apps.notifications import errors, selectors, services
from apps.notifications.models import Notification, Watcher
from apps.notifications.permissions import NotificationsPerm
from apps.notifications.shapes import NotificationOut, WatcherOut, entity_of

Kind = Literal["message", "change", "task", "system"]
Priority = Literal["low", "normal", "high"]
Status = Literal["unread", "read", "all"]
OptionalType = Annotated[EntityType | None, Field(description="With entityId: a record kind, e.g. task")]
OptionalId = Annotated[EntityId | None, Field(description="With entityType")]


@tool("createNotification", permission=NotificationsPerm.SEND, title="Send a notification")
def create_notification(
    ctx: ToolContext,
    *,
    title: Annotated[str, Field(min_length=1, max_length=200, description="What it says, in a line")],
    body: Annotated[str, Field(max_length=4000, description="More text, if needed")] = "",
    recipient_email: Annotated[str | None, Field(max_length=254, description="Default: you")] = None,
    entity_type: OptionalType = None,
    entity_id: OptionalId = None,
    priority: Annotated[Priority, Field(description="How urgent")] = "normal",
) -> NotificationOut:
    """Notify a person of the workspace (a notification), or remind yourself, maybe about a record."""
    recipient = clean.person_by_email(recipient_email) if recipient_email else ctx.actor
    entity = kinds.resolve_optional(actor=ctx.actor, entity_type=entity_type, entity_id=entity_id)
    notification = services.notification_send(
        actor=ctx.actor, recipient=recipient, title=title, body=body, entity=entity, priority=priority
    )
    return NotificationOut.of(notification)


@tool("listNotifications", permission=NotificationsPerm.VIEW, title="List your notifications", read_only=True)
def list_notifications(
    ctx: ToolContext,
    *,
    status: Annotated[Status, Field(description="Read or not")] = "all",
    kind: Annotated[Kind | None, Field(description="Only this kind")] = None,
    priority: Annotated[Priority | None, Field(description="Only this priority")] = None,
    archived: Annotated[
        Literal["exclude", "include", "only"],
        Field(description="Leave archived ones out, add them, or only them"),
    ] = "exclude",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[NotificationOut]:
    """List your notifications, newest first. By words, time or record: searchNotifications."""
    rows = selectors.notification_list(
        actor=ctx.actor, status=status, archived=archived, kind=kind, priority=priority
    )
    return paginate(rows, limit=limit, offset=offset, item=NotificationOut.of)


@tool(
    "searchNotifications",
    permission=NotificationsPerm.VIEW,
    title="Search your notifications",
    read_only=True,
)
def search_notifications(
    ctx: ToolContext,
    *,
    query: Annotated[
        str,
        Field(max_length=200, description="All must appear in the title, text, record or sender"),
    ] = "",
    since: Annotated[
        datetime | None, Field(description="Sent then or later; no zone: the workspace's")
    ] = None,
    until: Annotated[datetime | None, Field(description="Sent before")] = None,
    status: Annotated[Status, Field(description="Read or not")] = "all",
    kind: Annotated[Kind | None, Field(description="Only this kind")] = None,
    entity_type: OptionalType = None,
    entity_id: OptionalId = None,
    include_archived: Annotated[bool, Field(description="Archived ones too")] = True,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[NotificationOut]:
    """Find your notifications by words, time, kind or record, newest first. All of them:
    listNotifications."""
    since, until = aware(since), aware(until)
    if since is not None and until is not None and since >= until:
        raise errors.SinceAfterUntil(details={"since": ["after until"]})
    entity = kinds.resolve_optional(actor=ctx.actor, entity_type=entity_type, entity_id=entity_id)
    rows = selectors.notification_search(
        actor=ctx.actor,
        query=query,
        status=status,
        kind=kind,
        entity=entity,
        since=since,
        until=until,
        archived="include" if include_archived else "exclude",
    )
    return paginate(rows, limit=limit, offset=offset, item=NotificationOut.of)


class UpdatedNotificationsOut(Out):
    action: str
    changed: int = Field(description="The others were so already")
    notifications: list[NotificationOut]


@tool(
    "updateNotification",
    permission=NotificationsPerm.MARK,
    title="Mark notifications read, unread or archived",
    idempotent=True,
)
def update_notification(
    ctx: ToolContext,
    *,
    action: Annotated[
        Literal["read", "unread", "archive", "unarchive"],
        Field(description="archive also marks read"),
    ],
    notification_ids: Annotated[list[EntityId] | None, Field(max_length=100, description="Up to 100")] = None,
    all_unread: Annotated[
        bool, Field(description="Instead of ids, all your unread (read or archive)")
    ] = False,
) -> UpdatedNotificationsOut:
    """Mark your notifications read or unread, archive or unarchive them; or all unread at once."""
    if bool(notification_ids) == all_unread:
        raise errors.IdsOrAllUnread(details={"notification_ids": ["required"]})
    if all_unread:
        if action not in ("read", "archive"):
            raise errors.AllUnreadAction(details={"action": ["read or archive"]})
        rows = selectors.notification_list(actor=ctx.actor, status="unread", archived="include")
        ids = list(rows.values_list("pk", flat=True)[:10_000])
    else:
        ids = list(dict.fromkeys(notification_ids or []))
    named = selectors.notifications_named(actor=ctx.actor, ids=ids)
    changed = services.notifications_mark(actor=ctx.actor, notifications=named, action=action)
    shown = (
        Notification.objects.restrict(ctx.actor)
        .select_related("actor", "recipient__role")
        .filter(pk__in=ids[:100])
    )
    return UpdatedNotificationsOut(
        action=action, changed=changed, notifications=[NotificationOut.of(n) for n in shown]
    )


class CountOut(Out):
    key: str
    count: int


class EntityCountOut(Out):
    entity: EntityRef
    unread: int


class ExaminedNotificationsOut(Out):
    total: int = Field(description="Archived ones left out")
    unread: int
    unseen: int = Field(description="Not shown yet (openNotifications)")
    high_priority_unread: int
    unread_by_kind: list[CountOut]
    unread_by_record: list[EntityCountOut] = Field(description="Top 10")
    latest_unread: list[NotificationOut] = Field(description="Newest 10")
    watching: list[WatcherOut] = Field(description="First 25")
    watching_count: int


@tool(
    "examineNotifications",
    permission=NotificationsPerm.VIEW,
    title="Examine your notifications",
    read_only=True,
)
def examine_notifications(ctx: ToolContext) -> ExaminedNotificationsOut:
    """Get everything about your notifications in one answer, to decide what needs attention first."""
    actor = ctx.actor
    live = selectors.notification_list(actor=actor)
    unread = live.filter(read_at__isnull=True)
    by_kind = unread.order_by().values("kind").annotate(count=Count("id")).order_by("-count", "kind")
    by_record = (
        unread.filter(content_type__isnull=False)
        .order_by()
        .values("content_type_id", "object_id")
        .annotate(count=Count("id"))
        .order_by("-count", "object_id")[:10]
    )
    titles = {
        (row.content_type_id, row.object_id): row
        for row in unread.filter(content_type__isnull=False).order_by("-created_at")[:200]
    }
    watchers = selectors.watcher_list(actor=actor)
    return ExaminedNotificationsOut(
        total=live.count(),
        unread=unread.count(),
        unseen=live.filter(seen_at__isnull=True).count(),
        high_priority_unread=unread.filter(priority=Notification.Priority.HIGH).count(),
        unread_by_kind=[CountOut(key=row["kind"], count=row["count"]) for row in by_kind],
        unread_by_record=[
            EntityCountOut(
                entity=entity_of(titles[(row["content_type_id"], row["object_id"])]),  # type: ignore[arg-type]
                unread=row["count"],
            )
            for row in by_record
            if (row["content_type_id"], row["object_id"]) in titles
        ],
        latest_unread=[NotificationOut.of(n) for n in unread[:10]],
        watching=[WatcherOut.of(watcher, actor) for watcher in watchers[:25]],
        watching_count=watchers.count(),
    )


class OpenedOut(Out):
    page: str = Field(description="The notifications page's path")
    newly_seen: int
    unread: int
    latest_unread: list[NotificationOut] = Field(description="Newest 20")


@tool(
    "openNotifications",
    permission=NotificationsPerm.MARK,
    title="Open your notifications",
    idempotent=True,
)
def open_notifications(ctx: ToolContext) -> OpenedOut:
    """Open your notifications as their page does: all now count as seen (not read: updateNotification)."""
    unread = selectors.notification_list(actor=ctx.actor, status="unread")
    latest = [NotificationOut.of(n) for n in unread[:20]]
    newly_seen = services.notifications_open(actor=ctx.actor)
    return OpenedOut(
        page=reverse("notifications:list"), newly_seen=newly_seen, unread=unread.count(), latest_unread=latest
    )


class WatchOut(Out):
    watcher: WatcherOut
    created: bool = Field(description="False: watching already")


@tool("createWatcher", permission=NotificationsPerm.WATCH, title="Watch a record", idempotent=True)
def create_watcher(
    ctx: ToolContext,
    *,
    entity_type: EntityType,
    entity_id: Annotated[EntityId, Field(description="Of that kind")],
    person_email: Annotated[
        str | None, Field(max_length=254, description="Default: you; others need notifications.send")
    ] = None,
) -> WatchOut:
    """Watch a record (a contact, a task, ...): others' changes to it notify the watcher."""
    entity = kinds.resolve(actor=ctx.actor, entity_type=entity_type, entity_id=entity_id)
    person = clean.person_by_email(person_email) if person_email else ctx.actor
    watcher, created = services.watcher_create(actor=ctx.actor, person=person, entity=entity)
    return WatchOut(watcher=WatcherOut.of(watcher, ctx.actor), created=created)


@tool("listWatchers", permission=NotificationsPerm.VIEW, title="List watchers", read_only=True)
def list_watchers(
    ctx: ToolContext,
    *,
    entity_type: OptionalType = None,
    entity_id: OptionalId = None,
    person_email: Annotated[
        str | None, Field(max_length=254, description="Whose (default: yours; others: admins)")
    ] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[WatcherOut]:
    """List the records you (or a person) watch, or who watches a given record, newest first."""
    entity = kinds.resolve_optional(actor=ctx.actor, entity_type=entity_type, entity_id=entity_id)
    person = clean.person_by_email(person_email) if person_email else None
    rows = selectors.watcher_list(actor=ctx.actor, entity=entity, person=person)
    return paginate(rows, limit=limit, offset=offset, item=lambda watcher: WatcherOut.of(watcher, ctx.actor))


class CancelledOut(Out):
    cancelled: list[int]
    message: str


@tool("cancelWatcher", permission=NotificationsPerm.WATCH, title="Stop watching a record", idempotent=True)
def cancel_watcher(
    ctx: ToolContext,
    *,
    watcher_id: Annotated[EntityId | None, Field(description="From listWatchers")] = None,
    entity_type: OptionalType = None,
    entity_id: OptionalId = None,
) -> CancelledOut:
    """Stop a watcher by its id, or stop watching a record yourself. To start: createWatcher."""
    if (watcher_id is None) == (entity_type is None and entity_id is None):
        raise errors.WatcherOrRecord(details={"watcher_id": ["required"]})
    if watcher_id is not None:
        watcher = Watcher.objects.select_related("user").fetch(ctx.actor, watcher_id)
    else:
        entity = kinds.resolve_optional(actor=ctx.actor, entity_type=entity_type, entity_id=entity_id)
        mine = selectors.watcher_list(actor=ctx.actor, entity=entity).filter(user=ctx.actor.pk).first()
        if mine is None:
            raise errors.NotWatching(
                entity_type=entity_type, entity_id=entity_id, details={"entity_id": ["not watched"]}
            )
        watcher = mine
    watcher_pk = watcher.pk
    # Named as the actor sees the record now: an admin stopping someone's watcher on a record
    # hidden from them is not told its title.
    seen = EntityOut.checked(watcher, ctx.actor)
    named = f"“{seen.title}”" if seen.available else f"{seen.type} {seen.id}"
    services.watcher_cancel(actor=ctx.actor, watcher=watcher)
    return CancelledOut(cancelled=[watcher_pk], message=f"Stopped watching {named}.")
