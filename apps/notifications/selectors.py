"""Reads about notifications and watchers beyond what the access model gives (apps.core.records:
`Notification.objects.restrict(actor)`, `Watcher.objects.fetch(actor, id)`; the rule is in
apps.notifications.models)."""

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from apps.core import search
from apps.core.actors import Actor
from apps.core.kinds import Entity
from apps.notifications.errors import OthersWatchers
from apps.notifications.models import Notification, Watcher


def notification_list(
    *,
    actor: Actor,
    status: str = "all",
    archived: str = "exclude",
    kind: str | None = None,
    priority: str | None = None,
    entity: Entity | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> QuerySet[Notification]:
    """`status`: unread, read or all; `archived`: exclude, include or only."""
    rows = Notification.objects.restrict(actor).select_related("actor", "recipient__role")
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


def notification_search(*, actor: Actor, query: str, **filters: Any) -> QuerySet[Notification]:
    """Every word of `query` appears in the title, the text, the record's title or the sender."""
    return search.matching(
        notification_list(actor=actor, **filters),
        query,
        ("title", "body", "entity_title", "actor__email", "actor__full_name"),
    )


def notifications_named(*, actor: Actor, ids: Sequence[int]) -> QuerySet[Notification]:
    """The actor's notifications `ids`, every one of them: "not found" names the first that is not
    theirs."""
    rows = Notification.objects.restrict(actor).filter(pk__in=ids)
    found = set(rows.values_list("pk", flat=True))
    missing = next((pk for pk in ids if pk not in found), None)
    if missing is not None:
        raise Notification.access.not_found(Notification, missing)
    return rows


def watcher_list(*, actor: Actor, entity: Entity | None = None, person: Any = None) -> QuerySet[Watcher]:
    """Your watchers; with `entity`, everyone watching that record (which you can see: the
    caller resolved it for you); with `person`, theirs (yours, or anyone's for admins)."""
    if entity is None:
        rows = Watcher.objects.restrict(actor)
    elif Watcher.access.may(actor, "view"):
        rows = Watcher.objects.filter(content_type=entity.kind.content_type(), object_id=entity.id)
    else:
        rows = Watcher.objects.none()
    rows = rows.select_related("user", "added_by")
    if person is not None and person.pk != actor.pk:
        if not Watcher.access.all_rows(actor):
            raise OthersWatchers()
        return rows.filter(user=person)
    return rows if entity is not None else rows.filter(user=actor.pk)
