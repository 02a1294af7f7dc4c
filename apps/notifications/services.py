"""Writes about notifications and watchers.

Two kinds of callers (docs/notifications.md):

- other areas' services, which tell people of what happened. No permission of the actor is
  needed to be told of something: `notify`, `entity_changed`, `watch`, `unwatch`, `watchers_of`.
- the tools and the settings page, acting for a person, which check that person's permissions:
  `notification_send`, `notifications_mark`, `notifications_open`, `watcher_create`,
  `watcher_cancel`.

Everything runs in the caller's transaction: a tool that fails writes no notification either.
Logs carry ids only.
"""

import logging
from typing import Any

from django.db.models import QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core import kinds
from apps.core.actors import actor_id, can, require
from apps.core.errors import AppError, invalid
from apps.core.kinds import Entity
from apps.notifications.models import Notification, Watcher
from apps.notifications.permissions import NotificationsPerm

logger = logging.getLogger(__name__)

MAX_TITLE = 200
MAX_BODY = 4000


def _entity(entity: Any) -> Entity:
    return entity if isinstance(entity, Entity) else kinds.of_record(entity)


def _may_see(person: Any, entity: Entity) -> bool:
    try:
        entity.kind.fetch(actor=person, pk=entity.id)
    except AppError:
        return False
    return True


def _check_may_see(person: Any, entity: Entity, *, field: str, problem: Any) -> None:
    """`problem` (naming the person's `email` and the record's `type` and `id`) about `field`,
    unless `person` may see the record."""
    if not _may_see(person, entity):
        raise invalid(field, problem, email=person.email, type=entity.type, id=entity.id)


def _may_receive(person: Any) -> bool:
    return bool(person.is_active) and can(person, NotificationsPerm.VIEW)


def _check_may_receive(person: Any, *, field: str) -> None:
    """Refuses a person named in `field` whom nothing may be delivered to."""
    if not _may_receive(person):
        raise invalid(
            field,
            _("{email} cannot receive notifications (their role does not include them)"),
            email=person.email,
        )


def _build(
    *,
    recipient: Any,
    title: str,
    body: str,
    actor: Any,
    entity: Entity | None,
    kind: str,
    priority: str,
) -> Notification:
    notification = Notification(
        recipient=recipient,
        kind=kind,
        priority=priority,
        title=title.strip()[:MAX_TITLE],
        body=body.strip()[:MAX_BODY],
        actor=actor if getattr(actor, "pk", None) else None,
    )
    if entity is not None:
        notification.content_type = entity.kind.content_type()
        notification.object_id = entity.id
        notification.entity_title = entity.title
    return notification


# --- the API other areas call ---------------------------------------------------------------------


def notify(
    *,
    recipient: Any,
    title: str,
    body: str = "",
    actor: Any = None,
    entity: Any = None,
    kind: str = Notification.Kind.MESSAGE,
    priority: str = Notification.Priority.NORMAL,
) -> Notification | None:
    """Tells one person something. `entity` (a record of a registered kind, or an Entity) is
    what it is about. Nothing is delivered (None) to a deactivated person or one whose role,
    or workspace, has no notifications."""
    if not _may_receive(recipient):
        return None
    notification = _build(
        recipient=recipient,
        title=title,
        body=body,
        actor=actor,
        entity=_entity(entity) if entity is not None else None,
        kind=kind,
        priority=priority,
    )
    notification.save()
    return notification


def entity_changed(
    *, entity: Any, actor: Any, summary: str, title: str | None = None, kind: str = Notification.Kind.CHANGE
) -> list[Notification]:
    """A watched record changed: every watcher of `entity` other than `actor` who may still see
    it gets a notification saying `summary`. Areas call it from their services after a change."""
    entity = _entity(entity)
    watchers = Watcher.objects.filter(
        content_type=entity.kind.content_type(), object_id=entity.id
    ).select_related("user", "user__role")
    if (acting := actor_id(actor)) is not None:
        watchers = watchers.exclude(user_id=acting)
    heading = title or _("%(kind)s “%(title)s” changed") % {
        "kind": entity.kind.key.replace("_", " ").capitalize(),
        "title": entity.title,
    }
    notifications = [
        _build(
            recipient=watcher.user,
            title=heading,
            body=summary,
            actor=actor,
            entity=entity,
            kind=kind,
            priority=Notification.Priority.NORMAL,
        )
        for watcher in watchers
        if _may_receive(watcher.user) and _may_see(watcher.user, entity)
    ]
    created = Notification.objects.bulk_create(notifications)
    if created:
        logger.info("%s %s changed: %d watchers notified", entity.kind.key, entity.id, len(created))
    return created


def watch(*, user: Any, entity: Any, added_by: Any = None) -> tuple[Watcher, bool]:
    """Makes `user` a watcher of `entity` (once); True when they were not one already."""
    entity = _entity(entity)
    watcher, created = Watcher.objects.get_or_create(
        user=user,
        content_type=entity.kind.content_type(),
        object_id=entity.id,
        defaults={
            "entity_title": entity.title,
            "added_by": added_by if getattr(added_by, "pk", None) else None,
        },
    )
    return watcher, created


def unwatch(*, user: Any, entity: Any) -> bool:
    entity = _entity(entity)
    deleted, _rows = Watcher.objects.filter(
        user=user, content_type=entity.kind.content_type(), object_id=entity.id
    ).delete()
    return bool(deleted)


def watchers_of(entity: Any) -> QuerySet[Any]:
    from apps.accounts.models import User

    entity = _entity(entity)
    return User.objects.filter(
        watching__content_type=entity.kind.content_type(), watching__object_id=entity.id
    ).order_by("email")


# --- acting for a person (tools, pages) -----------------------------------------------------------


def notification_send(
    *,
    actor: Any,
    recipient: Any,
    title: str,
    body: str = "",
    entity: Entity | None = None,
    priority: str = Notification.Priority.NORMAL,
) -> Notification:
    require(actor, NotificationsPerm.SEND)
    if not title.strip():
        raise invalid("title", _("give a title"))
    _check_may_receive(recipient, field="recipient_email")
    if entity is not None and recipient.pk != actor.pk:
        _check_may_see(
            recipient,
            entity,
            field="entity_id",
            problem=_("{email} may not see {type} {id}, so it cannot be pointed out to them"),
        )
    notification = notify(
        recipient=recipient, title=title, body=body, actor=actor, entity=entity, priority=priority
    )
    assert notification is not None  # _check_may_receive was called above
    logger.info("notification %s sent by %s to %s", notification.pk, actor.pk, recipient.pk)
    return notification


MARKS = ("read", "unread", "archive", "unarchive")


def notifications_mark(*, actor: Any, notifications: Any, action: str) -> int:
    """Marks some of `actor`'s own notifications; returns how many changed."""
    require(actor, NotificationsPerm.MARK)
    rows = notifications.restrict(actor, "change")
    now = timezone.now()
    if action == "read":
        return rows.filter(read_at__isnull=True).update(read_at=now, seen_at=Coalesce("seen_at", now))
    if action == "unread":
        return rows.filter(read_at__isnull=False).update(read_at=None)
    if action == "archive":
        return rows.filter(archived_at__isnull=True).update(
            archived_at=now, read_at=Coalesce("read_at", now), seen_at=Coalesce("seen_at", now)
        )
    if action == "unarchive":
        return rows.filter(archived_at__isnull=False).update(archived_at=None)
    raise ValueError(f"unknown action {action!r}")


def notifications_open(*, actor: Any) -> int:
    """Everything `actor` has not been shown yet counts as seen now (not read)."""
    require(actor, NotificationsPerm.MARK)
    unseen = Notification.objects.restrict(actor, "change").filter(seen_at__isnull=True)
    return unseen.update(seen_at=timezone.now())


def watcher_create(*, actor: Any, person: Any, entity: Entity) -> tuple[Watcher, bool]:
    """`person` (the actor, or someone else) starts watching a record the actor can see."""
    require(actor, NotificationsPerm.WATCH if person.pk == actor.pk else NotificationsPerm.SEND)
    if person.pk != actor.pk:
        _check_may_receive(person, field="person_email")
        _check_may_see(
            person,
            entity,
            field="person_email",
            problem=_("{email} may not see {type} {id}, so they cannot watch it"),
        )
    watcher, created = watch(user=person, entity=entity, added_by=actor)
    if created:
        logger.info("watcher %s on %s %s added by %s", watcher.pk, entity.type, entity.id, actor.pk)
    return watcher, created


def watcher_cancel(*, actor: Any, watcher: Watcher) -> None:
    """Stops a watcher the actor sees: theirs, one they added, or (admins) anyone's."""
    require(actor, NotificationsPerm.WATCH)
    if watcher.user_id != actor.pk and watcher.added_by_id != actor.pk:
        require(actor, NotificationsPerm.ADMIN)
    logger.info("watcher %s cancelled by %s", watcher.pk, actor.pk)
    watcher.delete()
