"""Reads about notifications and watchers, filtered to what the actor may see.

A person sees only their own notifications. Watchers: your own, the watchers of a record you can
see, and (notifications.admin) everyone's. Anything else is "not found".
"""

from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet

from apps.core.actors import can
from apps.core.errors import Forbidden
from apps.core.kinds import Entity
from apps.notifications import errors
from apps.notifications.models import Notification, Watcher
from apps.notifications.permissions import NotificationsPerm


def notification_visible(*, actor: Any) -> QuerySet[Notification]:
    if not can(actor, NotificationsPerm.VIEW):
        return Notification.objects.none()
    return Notification.objects.filter(recipient=actor).select_related("actor")


def notification_list(
    *,
    actor: Any,
    status: str = "all",
    archived: str = "exclude",
    kind: str | None = None,
    priority: str | None = None,
    entity: Entity | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> QuerySet[Notification]:
    """`status`: unread, read or all; `archived`: exclude, include or only."""
    rows = notification_visible(actor=actor)
    if status == "unread":
        rows = rows.filter(read_at__isnull=True)
    elif status == "read":
        rows = rows.filter(read_at__isnull=False)
    if archived == "exclude":
        rows = rows.filter(archived_at__isnull=True)
    elif archived == "only":
        rows = rows.filter(archived_at__isnull=False)
    if kind:
        rows = rows.filter(kind=kind)
    if priority:
        rows = rows.filter(priority=priority)
    if entity is not None:
        rows = rows.filter(content_type=entity.kind.content_type(), object_id=entity.id)
    if since is not None:
        rows = rows.filter(created_at__gte=since)
    if until is not None:
        rows = rows.filter(created_at__lt=until)
    return rows


def notification_search(*, actor: Any, query: str, **filters: Any) -> QuerySet[Notification]:
    """Every word of `query` appears in the title, the text, the record's title or the sender."""
    rows = notification_list(actor=actor, **filters)
    for term in query.split()[:8]:
        rows = rows.filter(
            Q(title__icontains=term)
            | Q(body__icontains=term)
            | Q(entity_title__icontains=term)
            | Q(actor__email__icontains=term)
            | Q(actor__full_name__icontains=term)
        )
    return rows


def notification_get(*, actor: Any, notification_id: int) -> Notification:
    notification = notification_visible(actor=actor).filter(pk=notification_id).first()
    if notification is None:
        raise errors.NotificationNotFound(notification_id)
    return notification


def notifications_get_many(*, actor: Any, notification_ids: list[int]) -> QuerySet[Notification]:
    """All of them, or NotificationNotFound naming the first that is not the actor's."""
    rows = notification_visible(actor=actor).filter(pk__in=notification_ids)
    found = set(rows.values_list("pk", flat=True))
    missing = [pk for pk in notification_ids if pk not in found]
    if missing:
        raise errors.NotificationNotFound(missing[0])
    return rows


def watcher_list(*, actor: Any, entity: Entity | None = None, person: Any = None) -> QuerySet[Watcher]:
    """Your watchers; with `entity`, everyone watching that record (which you can see: the
    caller resolved it for you); with `person`, theirs (yours, or anyone's for admins)."""
    if not can(actor, NotificationsPerm.VIEW):
        return Watcher.objects.none()
    rows = Watcher.objects.select_related("user", "added_by")
    if entity is not None:
        rows = rows.filter(content_type=entity.kind.content_type(), object_id=entity.id)
    if person is not None and person.pk != actor.pk:
        if not can(actor, NotificationsPerm.ADMIN):
            raise Forbidden("You may list only your own watchers (or the watchers of one record).")
        rows = rows.filter(user=person)
    elif entity is None:
        rows = rows.filter(user=actor)
    return rows


def watcher_get(*, actor: Any, watcher_id: int) -> Watcher:
    """A watcher the actor may cancel: their own, one they added, or any (admins)."""
    rows = Watcher.objects.select_related("user").filter(pk=watcher_id)
    if not can(actor, NotificationsPerm.ADMIN):
        rows = rows.filter(Q(user=actor) | Q(added_by=actor))
    watcher = rows.first() if can(actor, NotificationsPerm.VIEW) else None
    if watcher is None:
        raise errors.WatcherNotFound(watcher_id)
    return watcher
