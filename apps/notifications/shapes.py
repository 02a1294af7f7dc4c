"""What the notification tools answer (camelCase JSON; apps.catalogue.shapes.Out)."""

from datetime import datetime
from typing import Any

from pydantic import Field

from apps.catalogue.shapes import EntityOut, EntityRef, Out, PersonRef
from apps.notifications.models import Notification, Watcher


class NotificationOut(Out):
    id: int
    kind: str
    priority: str
    title: str
    body: str
    sender: PersonRef | None = Field(description="null: the service")
    entity: EntityRef | None = Field(description="As it was named then")
    created_at: datetime
    seen_at: datetime | None
    # "read" on the wire; in Python the model's `is_read` property.
    is_read: bool = Field(alias="read")
    read_at: datetime | None
    archived_at: datetime | None

    @classmethod
    def of(cls, notification: Notification) -> "NotificationOut":
        return cls.of_record(notification, sender=notification.actor, entity=entity_of(notification))


def entity_of(notification: Notification) -> EntityRef | None:
    """The record a notification is about, as it was named then; without its name once the
    recipient may no longer see it."""
    entity = EntityRef.of_link(notification)
    if entity is not None and not notification.entity_available:
        entity = entity.model_copy(update={"title": ""})
    return entity


class WatcherOut(Out):
    id: int
    person: PersonRef
    entity: EntityOut
    added_by: PersonRef | None
    since: datetime

    @classmethod
    def of(cls, watcher: Watcher, actor: Any) -> "WatcherOut":
        return cls.of_record(
            watcher, person=watcher.user, entity=EntityOut.checked(watcher, actor), since=watcher.created_at
        )
