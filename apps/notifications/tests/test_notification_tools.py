"""Notifications through call_tool: per tool a normal call, a bad input and a refusal."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.catalogue import registry
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import (
    assert_refused_without_its_permission,
    call,
    ok,
    person_with,
    refused,
)
from apps.contacts.tests.factories import ContactFactory
from apps.notifications.models import Notification, Watcher
from apps.notifications.tests.factories import NotificationFactory, WatcherFactory


@pytest.fixture(autouse=True)
def no_demo_notifications(people):  # type: ignore[no-untyped-def]
    """Only this test's notifications: the demo workspaces' own (leave approved, a ticket
    escalated) are removed inside the test's transaction."""
    Notification.objects.all().delete()


# --- refusals: a role without the tool's permission neither sees nor calls it ----------------------


@pytest.mark.parametrize(
    ("name", "permission"),
    [
        ("createNotification", "notifications.send"),
        ("listNotifications", "notifications.view"),
        ("searchNotifications", "notifications.view"),
        ("examineNotifications", "notifications.view"),
        ("openNotifications", "notifications.mark"),
        ("updateNotification", "notifications.mark"),
        ("createWatcher", "notifications.watch"),
        ("listWatchers", "notifications.view"),
        ("cancelWatcher", "notifications.watch"),
    ],
)
def test_a_role_without_the_permission_is_refused(acme, name, permission):
    spec = registry.get(name)

    assert spec.permission == permission
    assert_refused_without_its_permission(spec)


def test_viewers_read_their_notifications_but_cannot_send_mark_or_watch(people):
    NotificationFactory(recipient=people["viewer"])

    assert ok(people["viewer"], "listNotifications")["total"] == 1
    for name in (
        "createNotification",
        "updateNotification",
        "openNotifications",
        "createWatcher",
        "cancelWatcher",
    ):
        with pytest.raises(ToolNotFound):
            call(people["viewer"], name, {})


# --- createNotification ---------------------------------------------------------------------------


def test_create_notification_notifies_a_colleague_about_a_record(people):
    contact = ContactFactory(actor=people["member"], first_name="Ada")

    answer = ok(
        people["member"],
        "createNotification",
        {
            "title": "Call Ada back",
            "body": "She asked about the renewal.",
            "recipientEmail": "Viewer@acme.example",
            "entityType": "contact",
            "entityId": contact.pk,
            "priority": "high",
        },
    )

    notification = Notification.objects.get(pk=answer["id"])
    assert notification.recipient == people["viewer"]
    assert notification.actor == people["member"]
    assert (notification.title, notification.priority, notification.entity_title) == (
        "Call Ada back",
        "high",
        "Ada",
    )
    assert answer["entity"] == {"type": "contact", "id": contact.pk, "title": "Ada"}
    assert answer["sender"]["email"] == "member@acme.example"
    assert answer["read"] is False


def test_create_notification_to_yourself_by_default(people):
    answer = ok(people["member"], "createNotification", {"title": "Remember the milk"})

    assert Notification.objects.get(pk=answer["id"]).recipient == people["member"]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"title": "x", "recipientEmail": "nobody@acme.example"}, "nobody@acme.example"),
        ({"title": "x", "entityType": "contact"}, "entityId"),
        ({"title": "x", "entityType": "spaceship", "entityId": 1}, "'spaceship' is not a kind of record"),
        ({"title": "x", "entityType": "contact", "entityId": 999999}, "Contact 999999 was not found"),
        ({"title": "", "body": "no title"}, "`title`"),
        ({"title": "x", "priority": "urgent"}, "`priority`"),
    ],
)
def test_create_notification_refuses_bad_input_and_sends_nothing(people, arguments, expected):
    message = refused(people["member"], "createNotification", arguments)

    assert expected in message, message
    assert not Notification.objects.exists()


def test_create_notification_will_not_point_someone_at_a_record_they_cannot_see(people):
    private = ContactFactory(actor=people["member"], visibility="private")

    message = refused(
        people["member"],
        "createNotification",
        {
            "title": "Look",
            "recipientEmail": "viewer@acme.example",
            "entityType": "contact",
            "entityId": private.pk,
        },
    )

    assert "may not see contact" in message
    assert not Notification.objects.exists()


def test_a_contact_of_another_workspace_is_not_found(people, globex):
    from django_tenants.utils import schema_context

    with schema_context("globex"):
        from apps.accounts.models import User

        stranger = ContactFactory(actor=User.objects.get(email="owner@globex.example"))
    message = refused(
        people["member"],
        "createNotification",
        {"title": "x", "entityType": "contact", "entityId": stranger.pk},
    )

    assert "was not found" in message


# --- listNotifications, searchNotifications ---------------------------------------------------------


def test_list_notifications_shows_only_your_own_newest_first(people):
    older = NotificationFactory(recipient=people["member"], title="first")
    newer = NotificationFactory(recipient=people["member"], title="second")
    NotificationFactory(recipient=people["admin"], title="not yours")
    Notification.objects.filter(pk=older.pk).update(created_at=timezone.now() - timedelta(hours=1))

    answer = ok(people["member"], "listNotifications")

    assert [item["id"] for item in answer["items"]] == [newer.pk, older.pk]
    assert answer["total"] == 2


def test_list_notifications_filters_by_status_and_archive(people):
    read = NotificationFactory(recipient=people["member"], title="read one")
    unread = NotificationFactory(recipient=people["member"], title="unread one")
    archived = NotificationFactory(recipient=people["member"], title="archived one")
    Notification.objects.filter(pk=read.pk).update(read_at=timezone.now())
    Notification.objects.filter(pk=archived.pk).update(archived_at=timezone.now())

    assert [i["id"] for i in ok(people["member"], "listNotifications", {"status": "unread"})["items"]] == [
        unread.pk
    ]
    assert [i["id"] for i in ok(people["member"], "listNotifications", {"status": "read"})["items"]] == [
        read.pk
    ]
    only = ok(people["member"], "listNotifications", {"archived": "only"})["items"]
    assert [i["id"] for i in only] == [archived.pk]


def test_list_notifications_refuses_an_unknown_status(people):
    assert "`status`" in refused(people["member"], "listNotifications", {"status": "fresh"})


def test_search_notifications_by_words_time_and_record(people):
    contact = ContactFactory(actor=people["member"], first_name="Grace")
    about = NotificationFactory(
        recipient=people["member"], title="Quarterly review", body="budget figures", entity=contact
    )
    NotificationFactory(recipient=people["member"], title="Lunch", body="pizza")
    old = NotificationFactory(recipient=people["member"], title="Quarterly planning")
    Notification.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=40))

    by_words = ok(people["member"], "searchNotifications", {"query": "quarterly budget"})
    since = (timezone.now() - timedelta(days=7)).date().isoformat()
    by_time = ok(people["member"], "searchNotifications", {"query": "quarterly", "since": since})
    by_record = ok(people["member"], "searchNotifications", {"entityType": "contact", "entityId": contact.pk})

    assert [item["id"] for item in by_words["items"]] == [about.pk]
    assert [item["id"] for item in by_time["items"]] == [about.pk]
    assert [item["id"] for item in by_record["items"]] == [about.pk]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"since": "last tuesday"}, "`since`"),
        ({"until": "2025-13-45"}, "`until`"),
        ({"since": "2025-02-01T00:00:00Z", "until": "2025-01-01T00:00:00Z"}, "must be before"),
        ({"entityId": 3}, "entityType"),
    ],
)
def test_search_notifications_refuses_bad_dates_and_half_records(people, arguments, expected):
    assert expected in refused(people["member"], "searchNotifications", arguments)


# --- updateNotification ---------------------------------------------------------------------------


def test_update_notification_marks_read_unread_archive(people):
    first = NotificationFactory(recipient=people["member"])
    second = NotificationFactory(recipient=people["member"])

    answer = ok(
        people["member"], "updateNotification", {"notificationIds": [first.pk, second.pk], "action": "read"}
    )
    again = ok(people["member"], "updateNotification", {"notificationIds": [first.pk], "action": "read"})
    archived = ok(
        people["member"], "updateNotification", {"notificationIds": [second.pk], "action": "archive"}
    )

    assert answer["changed"] == 2 and again["changed"] == 0
    assert all(item["read"] for item in answer["notifications"])
    assert archived["notifications"][0]["archivedAt"] is not None
    first.refresh_from_db()
    assert first.read_at is not None and first.seen_at is not None
    ok(people["member"], "updateNotification", {"notificationIds": [first.pk], "action": "unread"})
    first.refresh_from_db()
    assert first.read_at is None


def test_update_notification_marks_every_unread_one_read(people):
    for _ in range(3):
        NotificationFactory(recipient=people["member"])
    NotificationFactory(recipient=people["admin"])

    answer = ok(people["member"], "updateNotification", {"allUnread": True, "action": "read"})

    assert answer["changed"] == 3
    assert not Notification.objects.filter(recipient=people["member"], read_at__isnull=True).exists()
    assert Notification.objects.filter(recipient=people["admin"], read_at__isnull=True).count() == 1


@pytest.mark.parametrize(
    "arguments",
    [
        {"action": "read"},
        {"action": "read", "notificationIds": [1], "allUnread": True},
        {"action": "unread", "allUnread": True},
        {"action": "shred", "notificationIds": [1]},
    ],
)
def test_update_notification_refuses_bad_input(people, arguments):
    refused(people["member"], "updateNotification", arguments)


def test_update_notification_will_not_touch_someone_elses_and_changes_nothing(people):
    mine = NotificationFactory(recipient=people["member"])
    theirs = NotificationFactory(recipient=people["admin"])

    message = refused(
        people["member"], "updateNotification", {"notificationIds": [mine.pk, theirs.pk], "action": "read"}
    )

    assert f"Notification {theirs.pk} was not found" in message
    mine.refresh_from_db()
    assert mine.read_at is None


def test_an_admin_of_notifications_does_not_see_another_persons(people):
    theirs = NotificationFactory(recipient=people["member"], title="Private reminder")
    NotificationFactory(recipient=people["admin"], title="For the admin")

    listed = ok(people["admin"], "listNotifications")
    found = ok(people["admin"], "searchNotifications", {"query": "Private reminder"})
    examined = ok(people["admin"], "examineNotifications")
    message = refused(
        people["admin"], "updateNotification", {"notificationIds": [theirs.pk], "action": "read"}
    )

    assert [item["title"] for item in listed["items"]] == ["For the admin"]
    assert found["total"] == 0 and examined["total"] == 1
    assert f"Notification {theirs.pk} was not found" in message
    theirs.refresh_from_db()
    assert theirs.read_at is None


# --- examineNotifications, openNotifications --------------------------------------------------------


def test_examine_notifications_summarises_what_needs_attention(people):
    contact = ContactFactory(actor=people["member"], first_name="Linus")
    WatcherFactory(user=people["member"], entity=contact)
    for _ in range(2):
        NotificationFactory(recipient=people["member"], entity=contact, kind="change")
    NotificationFactory(recipient=people["member"], priority="high")
    read = NotificationFactory(recipient=people["member"])
    Notification.objects.filter(pk=read.pk).update(read_at=timezone.now())

    answer = ok(people["member"], "examineNotifications")

    assert (answer["total"], answer["unread"], answer["highPriorityUnread"]) == (4, 3, 1)
    assert {row["key"]: row["count"] for row in answer["unreadByKind"]} == {"change": 2, "message": 1}
    assert answer["unreadByRecord"] == [
        {"entity": {"type": "contact", "id": contact.pk, "title": "Linus"}, "unread": 2}
    ]
    assert answer["watchingCount"] == 1
    assert answer["watching"][0]["entity"]["available"] is True
    assert len(answer["latestUnread"]) == 3


def test_examine_notifications_takes_no_arguments(people):
    assert "is not an argument it takes" in refused(people["member"], "examineNotifications", {"since": "x"})


def test_open_notifications_marks_everything_seen_but_not_read(people):
    NotificationFactory(recipient=people["member"])
    NotificationFactory(recipient=people["member"])

    answer = ok(people["member"], "openNotifications")
    again = ok(people["member"], "openNotifications")

    assert answer["page"] == "/settings/notifications/"
    assert (answer["newlySeen"], answer["unread"], len(answer["latestUnread"])) == (2, 2, 2)
    assert again["newlySeen"] == 0
    assert not Notification.objects.filter(recipient=people["member"], seen_at__isnull=True).exists()
    assert Notification.objects.filter(recipient=people["member"], read_at__isnull=True).count() == 2


def test_open_notifications_takes_no_arguments(people):
    assert "is not an argument it takes" in refused(people["member"], "openNotifications", {"all": True})


# --- createWatcher, listWatchers, cancelWatcher -------------------------------------------------------


def test_create_watcher_for_yourself_and_for_a_colleague(people):
    contact = ContactFactory(actor=people["member"])

    mine = ok(people["member"], "createWatcher", {"entityType": "contact", "entityId": contact.pk})
    twice = ok(people["member"], "createWatcher", {"entityType": "contact", "entityId": contact.pk})
    theirs = ok(
        people["member"],
        "createWatcher",
        {"entityType": "contact", "entityId": contact.pk, "personEmail": "viewer@acme.example"},
    )

    assert mine["created"] is True and twice["created"] is False
    assert theirs["watcher"]["person"]["email"] == "viewer@acme.example"
    assert theirs["watcher"]["addedBy"]["email"] == "member@acme.example"
    assert Watcher.objects.filter(object_id=contact.pk).count() == 2


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"entityType": "contact", "entityId": 999999}, "was not found"),
        ({"entityType": "Contact!", "entityId": 1}, "`entityType`"),
        ({"entityType": "planet", "entityId": 1}, "'planet' is not a kind of record"),
        ({"entityType": "contact"}, "`entityId` is required"),
    ],
)
def test_create_watcher_refuses_unknown_records(people, arguments, expected):
    assert expected in refused(people["member"], "createWatcher", arguments)
    assert not Watcher.objects.exists()


def test_only_people_who_may_notify_others_can_add_them_as_watchers(people):
    contact = ContactFactory(actor=people["member"])
    private = ContactFactory(actor=people["member"], visibility="private")

    watcher_only = person_with(
        {"notifications.view", "notifications.watch", "contacts.view"}, email="w@acme.example"
    )
    by_watcher_only = refused(
        watcher_only,
        "createWatcher",
        {"entityType": "contact", "entityId": contact.pk, "personEmail": "admin@acme.example"},
    )
    hidden = refused(
        people["member"],
        "createWatcher",
        {"entityType": "contact", "entityId": private.pk, "personEmail": "viewer@acme.example"},
    )

    assert "permission" in by_watcher_only
    assert ok(watcher_only, "createWatcher", {"entityType": "contact", "entityId": contact.pk})["created"]
    assert "may not see contact" in hidden
    assert Watcher.objects.get().user == watcher_only


def test_list_watchers_of_mine_of_a_record_and_of_someone_else(people):
    first = ContactFactory(actor=people["member"])
    second = ContactFactory(actor=people["member"])
    WatcherFactory(user=people["member"], entity=first)
    WatcherFactory(user=people["member"], entity=second)
    WatcherFactory(user=people["viewer"], entity=first)

    mine = ok(people["member"], "listWatchers")
    of_record = ok(people["member"], "listWatchers", {"entityType": "contact", "entityId": first.pk})
    as_admin = ok(people["admin"], "listWatchers", {"personEmail": "viewer@acme.example"})

    assert mine["total"] == 2
    assert sorted(item["person"]["email"] for item in of_record["items"]) == [
        "member@acme.example",
        "viewer@acme.example",
    ]
    assert [item["entity"]["id"] for item in as_admin["items"]] == [first.pk]
    assert "only your own watchers" in refused(
        people["member"], "listWatchers", {"personEmail": "viewer@acme.example"}
    )


def test_cancel_watcher_by_id_or_by_record(people):
    first = ContactFactory(actor=people["member"])
    second = ContactFactory(actor=people["member"])
    watcher = WatcherFactory(user=people["member"], entity=first)
    WatcherFactory(user=people["member"], entity=second)

    by_id = ok(people["member"], "cancelWatcher", {"watcherId": watcher.pk})
    by_record = ok(people["member"], "cancelWatcher", {"entityType": "contact", "entityId": second.pk})

    assert by_id["cancelled"] == [watcher.pk]
    assert by_record["cancelled"]
    assert not Watcher.objects.exists()


def test_cancel_watcher_refuses_someone_elses_and_bad_input(people):
    contact = ContactFactory(actor=people["member"])
    watcher = WatcherFactory(user=people["admin"], entity=contact)

    assert f"Watcher {watcher.pk} was not found" in refused(
        people["member"], "cancelWatcher", {"watcherId": watcher.pk}
    )
    assert "not both" in refused(
        people["member"],
        "cancelWatcher",
        {"watcherId": watcher.pk, "entityType": "contact", "entityId": contact.pk},
    )
    assert "You do not watch" in refused(
        people["member"], "cancelWatcher", {"entityType": "contact", "entityId": contact.pk}
    )
    assert Watcher.objects.filter(pk=watcher.pk).exists()
    ok(people["admin"], "cancelWatcher", {"watcherId": watcher.pk})
    assert not Watcher.objects.exists()


def test_a_custom_role_with_only_view_cannot_mark_or_watch(acme):
    person = person_with({"notifications.view"}, email="looker@acme.example")
    NotificationFactory(recipient=person)

    assert ok(person, "listNotifications")["total"] == 1
    for name in ("updateNotification", "createWatcher", "cancelWatcher", "createNotification"):
        with pytest.raises(ToolNotFound):
            call(person, name, {})
