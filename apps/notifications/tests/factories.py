"""Test data of the Notifications area (factory_boy).

    NotificationFactory(recipient=people["member"], entity=contact, priority="high")
    WatcherFactory(user=people["viewer"], entity=contact)

`entity` is the record it is about (of a registered kind: apps.core.kinds), linked as the
services link it, with its title at the time.
"""

import uuid
from typing import Any

import factory
from factory.django import DjangoModelFactory

from apps.catalogue.testing import listed
from apps.core import factories, kinds
from apps.core.factories import AccessRows, access_rows
from apps.notifications.models import Notification, Watcher


def _link(row: Any) -> kinds.Entity | None:
    return kinds.of_record(row.entity) if row.entity is not None else None


class _LinkedFactory(DjangoModelFactory):
    class Meta:
        abstract = True

    class Params:
        entity: Any = None

    content_type = factory.LazyAttribute(
        lambda row: link.kind.content_type() if (link := _link(row)) else None
    )
    object_id = factory.LazyAttribute(lambda row: link.id if (link := _link(row)) else None)
    entity_title = factory.LazyAttribute(lambda row: link.title if (link := _link(row)) else "")


class NotificationFactory(_LinkedFactory):
    class Meta:
        model = Notification

    recipient: Any = None  # a person of the workspace
    title = factory.LazyFunction(lambda: f"Note{uuid.uuid4().hex[:10]}")


class WatcherFactory(_LinkedFactory):
    class Meta:
        model = Watcher

    user: Any = None  # who watches `entity` (required)


@access_rows("notifications.Notification")
def _notifications(people: dict[str, Any]) -> AccessRows:
    """The member's notification and the owner's: each their recipient's alone, admins too."""
    return AccessRows(
        own={
            "member": [NotificationFactory(recipient=people["member"])],
            "owner": [NotificationFactory(recipient=people["owner"])],
        },
        listed=lambda person: listed(person, "listNotifications", {"limit": 100}),
    )


@access_rows("notifications.Watcher")
def _watchers(people: dict[str, Any]) -> AccessRows:
    """The member watching a contact, the viewer made to watch it by the member, and the owner."""
    from apps.contacts.tests.factories import ContactFactory

    member, owner, viewer = people["member"], people["owner"], people["viewer"]
    contact = ContactFactory(actor=owner)
    added = WatcherFactory(user=viewer, entity=contact, added_by=member)
    return AccessRows(
        own={
            "member": [WatcherFactory(user=member, entity=contact), added],
            "viewer": [added],
            "owner": [WatcherFactory(user=owner, entity=contact)],
        }
    )


@factories.privacy_rows("notifications")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's notification (theirs alone)."""
    notification = NotificationFactory(
        recipient=people["owner"], title=f"{marker} note", body=f"{marker} body"
    )
    rows.add("notificationId", record=notification)
