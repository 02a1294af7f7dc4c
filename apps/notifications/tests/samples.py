"""A normal call of every Notifications tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`."""

import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.contacts.tests.factories import ContactFactory
from apps.notifications.tests.factories import NotificationFactory, WatcherFactory


def unique(prefix: str = "Note") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


@sample("createNotification")
def create_notification(actor: Any) -> Sample:
    return Sample({"title": unique(), "body": "Call them back"})


@sample("listNotifications")
def list_notifications(actor: Any) -> Sample:
    notification = NotificationFactory(recipient=actor)
    return Sample({"limit": 100}, private=[notification.title])


@sample("searchNotifications")
def search_notifications(actor: Any) -> Sample:
    notification = NotificationFactory(recipient=actor)
    return Sample({"query": notification.title}, private=[notification.title])


@sample("examineNotifications")
def examine_notifications(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    notification = NotificationFactory(recipient=actor, entity=contact)
    return Sample({}, private=[notification.title, contact.first_name])


@sample("updateNotification")
def update_notification(actor: Any) -> Sample:
    notification = NotificationFactory(recipient=actor)
    return Sample({"notificationIds": [notification.pk], "action": "read"}, private=[notification.title])


@sample("openNotifications")
def open_notifications(actor: Any) -> Sample:
    notification = NotificationFactory(recipient=actor)
    return Sample({}, private=[notification.title])


@sample("createWatcher")
def create_watcher(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    return Sample({"entityType": "contact", "entityId": contact.pk}, private=[contact.first_name])


@sample("listWatchers")
def list_watchers(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    WatcherFactory(user=actor, entity=contact)
    return Sample({}, private=[contact.first_name])


@sample("cancelWatcher")
def cancel_watcher(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    watcher = WatcherFactory(user=actor, entity=contact)
    return Sample({"watcherId": watcher.pk}, private=[contact.first_name])
