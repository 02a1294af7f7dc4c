"""Watchers hear of changes (through Contacts, the first area that tells them), the API other
areas call, the settings page, and a scenario an agent would run."""

import pytest

from apps.catalogue.testing import call, ok, structured
from apps.contacts import services as contact_services
from apps.contacts.tests.factories import ContactFactory
from apps.notifications import services
from apps.notifications.models import Notification, Watcher
from apps.notifications.tests.factories import NotificationFactory, WatcherFactory


@pytest.fixture(autouse=True)
def no_demo_notifications(people):  # type: ignore[no-untyped-def]
    """Only this test's notifications: the demo workspaces' own (leave approved, a ticket
    escalated) are removed inside the test's transaction."""
    Notification.objects.all().delete()


def test_a_change_to_a_watched_contact_notifies_every_watcher_but_the_one_who_made_it(people):
    contact = ContactFactory(actor=people["admin"], first_name="Ada")
    for role in ("admin", "member", "viewer"):
        services.watch(user=people[role], entity=contact)

    ok(people["member"], "updateContact", {"contactId": contact.pk, "changes": {"city": "London"}})

    notified = Notification.objects.filter(kind="change").select_related("recipient")
    assert sorted(n.recipient.email for n in notified) == ["admin@acme.example", "viewer@acme.example"]
    notification = notified[0]
    assert notification.title == "Contact “Ada” changed"
    assert notification.body == "changed city"
    assert notification.actor == people["member"]
    assert (notification.content_type.model, notification.object_id) == ("contact", contact.pk)


def test_a_watcher_who_can_no_longer_see_the_contact_hears_nothing(people):
    contact = ContactFactory(actor=people["member"], first_name="Grace")
    services.watch(user=people["viewer"], entity=contact)

    ok(people["member"], "updateContact", {"contactId": contact.pk, "changes": {"visibility": "private"}})
    ok(people["member"], "updateContact", {"contactId": contact.pk, "changes": {"city": "Paris"}})

    assert not Notification.objects.filter(recipient=people["viewer"]).exists()


def test_a_failed_change_sends_no_notification(people):
    contact = ContactFactory(actor=people["member"])
    services.watch(user=people["admin"], entity=contact)

    result = call(
        people["member"], "updateContact", {"contactId": contact.pk, "changes": {"email": "not-an-address"}}
    )

    assert result["isError"]
    assert not Notification.objects.exists()


def test_archive_restore_and_merge_tell_the_watchers(people):
    contact = ContactFactory(actor=people["member"], first_name="Hedy")
    duplicate = ContactFactory(actor=people["member"], first_name="Hedy")
    services.watch(user=people["viewer"], entity=contact)
    services.watch(user=people["viewer"], entity=duplicate)

    contact_services.contact_delete(actor=people["admin"], contact=contact)
    contact_services.contact_restore(actor=people["admin"], contact=contact)
    contact_services.contacts_merge(actor=people["admin"], primary=contact, duplicates=[duplicate])

    bodies = list(
        Notification.objects.filter(recipient=people["viewer"]).order_by("id").values_list("body", flat=True)
    )
    assert bodies == ["archived", "restored", f"merged into {contact.pk}", f"merged {duplicate.pk}"]


def test_notify_skips_people_who_cannot_receive_notifications(people):
    people["viewer"].is_active = False
    people["viewer"].save()

    assert services.notify(recipient=people["viewer"], title="Hello") is None
    assert services.notify(recipient=people["member"], title="Hello") is not None


def test_watchers_of_lists_the_people(people):
    contact = ContactFactory(actor=people["member"])
    services.watch(user=people["viewer"], entity=contact)
    services.watch(user=people["admin"], entity=contact)

    assert [user.email for user in services.watchers_of(contact)] == [
        "admin@acme.example",
        "viewer@acme.example",
    ]
    assert services.unwatch(user=people["admin"], entity=contact) is True
    assert services.unwatch(user=people["admin"], entity=contact) is False


# --- the settings page ----------------------------------------------------------------------------


def test_the_page_shows_my_notifications_and_marks_them_seen(acme_client, people):
    contact = ContactFactory(actor=people["member"], first_name="Katherine")
    WatcherFactory(user=people["viewer"], entity=contact)
    mine = NotificationFactory(
        recipient=people["viewer"], title="Your weekly digest", body="Three new contacts"
    )
    NotificationFactory(recipient=people["admin"], title="Someone else's")
    acme_client.force_login(people["viewer"])

    page = acme_client.get("/settings/notifications/").content.decode()

    assert "Your weekly digest" in page and "Three new contacts" in page
    assert "Someone else" not in page
    assert "Katherine" in page  # a watched record
    assert 'href="/settings/notifications/"' in page  # in the navigation
    mine.refresh_from_db()
    assert mine.seen_at is None  # a viewer only reads; members' listed notifications become seen
    assert "Mark read" not in page


def test_the_page_marks_read_archives_and_stops_watching(acme_client, people):
    first = NotificationFactory(recipient=people["member"], title="first")
    NotificationFactory(recipient=people["member"], title="second")
    contact = ContactFactory(actor=people["admin"])
    watcher = WatcherFactory(user=people["member"], entity=contact)
    acme_client.force_login(people["member"])

    listed = acme_client.get("/settings/notifications/").content.decode()
    assert "Mark read" in listed
    assert not Notification.objects.filter(recipient=people["member"], seen_at__isnull=True).exists()
    acme_client.post("/settings/notifications/mark/", {"id": first.pk, "action": "archive"})
    acme_client.post("/settings/notifications/mark/", {"all": "1", "action": "read"})
    acme_client.post(f"/settings/notifications/watchers/{watcher.pk}/cancel/")

    first.refresh_from_db()
    assert first.archived_at is not None
    assert not Notification.objects.filter(recipient=people["member"], read_at__isnull=True).exists()
    assert not Watcher.objects.exists()
    assert "first" in acme_client.get("/settings/notifications/?show=archived").content.decode()


@pytest.mark.parametrize(
    ("who", "watching", "added_by", "status"),
    [
        ("member", "admin", None, 404),  # someone else's: not theirs to see, as if it did not exist
        ("member", "viewer", "member", 302),  # one they added for a colleague
        ("admin", "member", None, 302),  # notifications.admin: anyone's
    ],
)
def test_who_may_stop_a_watcher_on_the_page(acme_client, people, who, watching, added_by, status):
    contact = ContactFactory(actor=people["member"])
    watcher = WatcherFactory(
        user=people[watching], entity=contact, added_by=people[added_by] if added_by else None
    )
    acme_client.force_login(people[who])

    response = acme_client.post(f"/settings/notifications/watchers/{watcher.pk}/cancel/")

    assert response.status_code == status
    assert Watcher.objects.filter(pk=watcher.pk).exists() is (status == 404)


def test_the_page_answers_not_found_never_forbidden_for_a_missing_record(acme_client, people):
    mine = NotificationFactory(recipient=people["member"])
    acme_client.force_login(people["member"])

    missing = acme_client.post("/settings/notifications/watchers/999999/cancel/")
    marked = acme_client.post("/settings/notifications/mark/", {"id": ["999999", mine.pk], "action": "read"})

    assert missing.status_code == 404
    assert marked.status_code == 302  # the missing one is left out; theirs is marked
    mine.refresh_from_db()
    assert mine.read_at is not None


# --- a scenario -------------------------------------------------------------------------------------


def test_an_agent_watches_a_customer_for_a_colleague_and_the_colleague_catches_up(people):
    """An agent acting for the account owner makes a colleague watch a customer; someone else
    changes the customer; the colleague's agent examines their notifications, reads the change,
    marks it read and stops watching."""
    owner, colleague = people["member"], people["owner"]
    customer = structured(
        call(owner, "createContact", {"contact": {"organisationName": "Initech", "kind": "organisation"}})
    )["contact"]
    ok(
        owner,
        "createWatcher",
        {"entityType": "contact", "entityId": customer["id"], "personEmail": colleague.email},
    )
    ok(
        people["admin"],
        "updateContact",
        {"contactId": customer["id"], "changes": {"lifecycleStage": "customer"}},
    )

    digest = ok(colleague, "examineNotifications")
    [news] = digest["latestUnread"]
    found = ok(colleague, "searchNotifications", {"query": "Initech"})
    ok(colleague, "updateNotification", {"notificationIds": [news["id"]], "action": "read"})
    ok(colleague, "cancelWatcher", {"entityType": "contact", "entityId": customer["id"]})
    ok(people["admin"], "updateContact", {"contactId": customer["id"], "changes": {"city": "Austin"}})

    assert digest["unread"] == 1
    assert news["title"] == "Contact “Initech” changed"
    assert news["body"] == "changed lifecycle_stage"
    assert news["sender"]["email"] == "admin@acme.example"
    assert [item["id"] for item in found["items"]] == [news["id"]]
    assert ok(colleague, "listNotifications", {"status": "unread"})["total"] == 0
