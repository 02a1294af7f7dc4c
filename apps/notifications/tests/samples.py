"""A normal call of every Notifications tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`."""

import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.contacts.tests.factories import ContactFactory
from apps.notifications import services
from apps.notifications.models import Notification


def unique(prefix: str = "Note") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def make_notification(recipient: Any, **fields: Any) -> Notification:
    fields.setdefault("title", unique())
    notification = services.notify(recipient=recipient, **fields)
    assert notification is not None
    return notification


@sample("createNotification")
def create_notification(actor: Any) -> Sample:
    return Sample({"title": unique(), "body": "Call them back"})


@sample("listNotifications")
def list_notifications(actor: Any) -> Sample:
    notification = make_notification(actor)
    return Sample({"limit": 100}, private=[notification.title])


@sample("searchNotifications")
def search_notifications(actor: Any) -> Sample:
    notification = make_notification(actor)
    return Sample({"query": notification.title}, private=[notification.title])


@sample("examineNotifications")
def examine_notifications(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    notification = make_notification(actor, entity=contact)
    return Sample({}, private=[notification.title, contact.first_name])


@sample("updateNotification")
def update_notification(actor: Any) -> Sample:
    notification = make_notification(actor)
    return Sample({"notificationIds": [notification.pk], "action": "read"}, private=[notification.title])


@sample("openNotifications")
def open_notifications(actor: Any) -> Sample:
    notification = make_notification(actor)
    return Sample({}, private=[notification.title])


@sample("createWatcher")
def create_watcher(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    return Sample({"entityType": "contact", "entityId": contact.pk}, private=[contact.first_name])


@sample("listWatchers")
def list_watchers(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    services.watch(user=actor, entity=contact)
    return Sample({}, private=[contact.first_name])


@sample("cancelWatcher")
def cancel_watcher(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    watcher, _created = services.watch(user=actor, entity=contact)
    return Sample({"watcherId": watcher.pk}, private=[contact.first_name])
