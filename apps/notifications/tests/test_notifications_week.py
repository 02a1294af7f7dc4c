"""What a week of notifications found: a notification about a record its recipient may no longer
see (a contact its owner made private) still named the record in the list, the breakdown and
the bell; stopping a watcher by its id quoted the title of a record the person stopping it may not
see."""

import pytest

from apps.catalogue.testing import ok, person_without
from apps.contacts.tests.factories import ContactFactory
from apps.notifications.models import Notification
from apps.notifications.tests.factories import NotificationFactory, WatcherFactory


@pytest.fixture(autouse=True)
def no_demo_notifications(people):  # type: ignore[no-untyped-def]
    Notification.objects.all().delete()


def test_a_notification_does_not_name_a_record_hidden_from_its_recipient(people):
    admin, member = people["admin"], people["member"]
    deal = ContactFactory(actor=admin, first_name="Acme", last_name="Takeover")
    told = NotificationFactory(recipient=member, entity=deal, title="Have a look")
    assert ok(member, "listNotifications", {})["items"][0]["entity"]["title"] == "Acme Takeover"
    # Its owner takes it back to themselves: the member no longer reads its name anywhere.
    deal.visibility = "private"
    deal.save(update_fields=["visibility"])
    answers = [
        ok(member, "listNotifications", {}),
        ok(member, "examineNotifications", {}),
        ok(member, "openNotifications", {}),
        ok(member, "updateNotification", {"action": "read", "notificationIds": [told.pk]}),
    ]
    for answer in answers:
        assert "Takeover" not in str(answer)
    entity = answers[0]["items"][0]["entity"]
    assert (entity["type"], entity["id"], entity["title"]) == ("contact", deal.pk, "")
    # The owner, told of it too, still reads it.
    NotificationFactory(recipient=admin, entity=deal, title="Yours")
    assert ok(admin, "listNotifications", {})["items"][0]["entity"]["title"] == "Acme Takeover"


def test_the_page_marks_what_it_is_given_and_names_no_hidden_record(acme_client, people):
    admin, member = people["admin"], people["member"]
    deal = ContactFactory(actor=admin, first_name="Acme", last_name="Takeover", visibility="private")
    told = NotificationFactory(recipient=member, entity=deal, title="Have a look")
    acme_client.force_login(member)
    page = acme_client.get("/settings/notifications/").content.decode()
    assert "Have a look" in page and "Takeover" not in page
    # Ids a browser never sends (a superscript digit, a number past any id) are left out.
    for odd in ("\u00b2", "9" * 30, str(told.pk)):
        answer = acme_client.post("/settings/notifications/mark/", {"id": odd, "action": "read"})
        assert answer.status_code == 302
    told.refresh_from_db()
    assert told.read_at is not None


def test_stopping_a_watcher_does_not_quote_a_record_hidden_from_whoever_stops_it(people):
    member = people["member"]
    # The notifications' admin, who is no contacts' admin.
    admin = person_without("contacts.admin", email="bell-keeper@acme.example")
    mine = ContactFactory(actor=member, first_name="Private", last_name="Lead", visibility="private")
    watcher = WatcherFactory(user=member, entity=mine, added_by=member)
    listed = ok(admin, "listWatchers", {"personEmail": member.email})["items"]
    assert [row["entity"]["title"] for row in listed] == [""]
    said = ok(admin, "cancelWatcher", {"watcherId": watcher.pk})
    assert said["cancelled"] == [watcher.pk] and "Lead" not in said["message"]
    # Its owner, who sees the record, is told which one.
    again = WatcherFactory(user=member, entity=mine, added_by=member)
    assert "Private Lead" in ok(member, "cancelWatcher", {"watcherId": again.pk})["message"]
