"""Everyday inbox work on the real local mail server: a message read is marked read, messages
marked, flagged, archived, trashed and moved are so on the server (a sync afterwards changes
nothing back) and keep their id here; nobody but the mailbox's people may touch them."""

import uuid

import pytest
from django.test import override_settings

from apps.catalogue.testing import ok, refused
from apps.mail import servers, sync
from apps.mail.models import Mailbox, Message
from apps.mail.tests.test_mail_tools import CONFIRM, inbox_of

pytestmark = pytest.mark.usefixtures("mail_server")


def server_flags(mailbox: Mailbox, message: Message) -> list[str]:
    with servers.imap(mailbox) as client:
        client.select(sync.quoted(message.folder.name), readonly=True)
        _status, data = client.uid("FETCH", str(message.uid), "(FLAGS)")
    line = data[0] if data and isinstance(data[0], bytes) else b""
    match = sync.FLAGS.search(line)
    return match[1].decode().split() if match else []


def subjects_on_server(mailbox: Mailbox, folder: str) -> list[str]:
    with servers.imap(mailbox) as client:
        client.select(sync.quoted(folder), readonly=True)
        _status, data = client.uid("FETCH", "1:*", "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
    return [
        sync.parse(item[1])["Subject"] or "" for item in data if isinstance(item, tuple) and len(item) == 2
    ]


def test_reading_an_email_marks_it_read_on_the_server_and_a_sync_keeps_it(filled, people):
    message = Message.objects.select_related("folder").get(
        mailbox=filled, subject="Quarterly review moved to Friday"
    )
    assert message.unread and "\\Seen" not in server_flags(filled, message)

    read = ok(people["owner"], "findAndReadEmail", {"messageId": message.pk})["message"]

    assert read["unread"] is False
    assert "\\Seen" in server_flags(filled, message)
    sync.sync(filled)
    assert Message.objects.get(pk=message.pk).unread is False


def test_a_read_only_credential_reads_without_marking_anything_read(filled, people):
    # findAndReadEmail is declared read-only: under `mcp:read` it changes nothing, on the server or here.
    message = Message.objects.select_related("folder").get(
        mailbox=filled, subject="Quarterly review moved to Friday"
    )

    read = ok(people["owner"], "findAndReadEmail", {"messageId": message.pk}, scopes={"mcp:read"})["message"]

    assert read["subject"] == "Quarterly review moved to Friday" and read["unread"] is True
    assert "\\Seen" not in server_flags(filled, message)
    assert Message.objects.get(pk=message.pk).unread is True


def test_unread_and_flag_are_stored_on_the_server(filled, people):
    owner = people["owner"]
    message = Message.objects.select_related("folder").get(mailbox=filled, subject="Pricing for 40 seats")
    ok(owner, "findAndReadEmail", {"messageId": message.pk})

    answer = ok(owner, "manageEmail", {"messageIds": [message.pk], "action": "unread"})
    assert answer["changed"] == 1 and answer["items"][0]["unread"] is True
    ok(owner, "manageEmail", {"messageIds": [message.pk], "action": "flag"})

    assert set(server_flags(filled, message)) == {"\\Flagged"}
    sync.sync(filled)
    message.refresh_from_db()
    assert message.unread and "\\Flagged" in message.flags
    # Asked again, nothing changes.
    assert ok(owner, "manageEmail", {"messageIds": [message.pk], "action": "flag"})["changed"] == 0


def test_archive_trash_and_move_back_on_the_server_keeping_the_id(filled, people):
    owner = people["owner"]
    message = Message.objects.select_related("folder").get(mailbox=filled, subject="Pricing for 40 seats")
    archive_name = filled.folders.get(role="archive").name

    answer = ok(owner, "manageEmail", {"messageIds": [message.pk], "action": "archive"})

    assert answer["changed"] == 1 and answer["items"][0]["id"] == message.pk
    assert answer["items"][0]["folder"] == archive_name
    assert "Pricing for 40 seats" not in subjects_on_server(filled, "INBOX")
    assert "Pricing for 40 seats" in subjects_on_server(filled, archive_name)
    assert sync.sync(filled) == 0  # the copy already holds it where it is
    assert Message.objects.filter(mailbox=filled, message_id=message.message_id).count() == 1

    trashed = ok(owner, "manageEmail", {"messageIds": [message.pk], "action": "trash"})["items"][0]
    assert trashed["folder"] == filled.folders.get(role="trash").name
    back = ok(owner, "manageEmail", {"messageIds": [message.pk], "action": "move", "folder": "inbox"})
    assert back["items"][0]["folder"] == "INBOX"
    assert "Pricing for 40 seats" in subjects_on_server(filled, "INBOX")
    assert sync.sync(filled) == 0


def test_a_move_without_a_real_folder_names_the_problem_and_changes_nothing(filled, people):
    owner = people["owner"]
    message = Message.objects.get(mailbox=filled, subject="Pricing for 40 seats")
    assert "name the folder" in refused(owner, "manageEmail", {"messageIds": [message.pk], "action": "move"})
    assert "has no folder 'Nowhere'" in refused(
        owner, "manageEmail", {"messageIds": [message.pk], "action": "move", "folder": "Nowhere"}
    )
    assert Message.objects.get(pk=message.pk).folder.role == "inbox"
    assert "Pricing for 40 seats" in subjects_on_server(filled, "INBOX")


@pytest.mark.parametrize("role", ["member", "admin"])
def test_nobody_but_the_mailbox_s_people_may_touch_its_messages(filled, people, role):
    message = Message.objects.get(mailbox=filled, subject="Pricing for 40 seats")
    for action in ("read", "trash"):
        assert "not found" in refused(
            people[role], "manageEmail", {"messageIds": [message.pk], "action": action}
        )
    assert Message.objects.get(pk=message.pk).folder.role == "inbox"
    assert "not found" in refused(people[role], "findAndReadEmail", {"messageId": message.pk})


def test_a_server_out_of_reach_leaves_reading_working_and_the_message_unread(filled, people):
    message = Message.objects.get(mailbox=filled, subject="Quarterly review moved to Friday")
    with override_settings(ATRIUM_MAIL_LOCAL_IMAP="127.0.0.1:9"):
        read = ok(people["owner"], "findAndReadEmail", {"messageId": message.pk})["message"]
    assert read["subject"] == "Quarterly review moved to Friday" and read["unread"] is True


def test_a_reply_with_cc_is_sent_from_the_email_inbox_area_itself(filled, people, mail_server):
    owner = people["owner"]
    customer, colleague = (f"{name}-{uuid.uuid4().hex[:8]}@example.org" for name in ("cust", "cc"))
    ask = Message.objects.get(mailbox=filled, subject="Pricing for 40 seats")
    Message.objects.filter(pk=ask.pk).update(reply_to=[customer])
    draft = ok(owner, "updateDraft", {"replyToMessageId": ask.pk, "cc": [colleague], "body": "Agreed."})

    sent = ok(owner, "sendEmail", {"draftId": draft["id"]}, **CONFIRM)

    assert sent["status"] == "sent" and sent["recipients"] == 2 and sent["storedInSent"] is True
    received = sync.parse(inbox_of(mail_server, colleague)[0])
    assert received["Cc"] == colleague and received["To"] == customer
    assert received["In-Reply-To"] == ask.message_id
    assert len(inbox_of(mail_server, customer)) == 1
    assert "already sent" in refused(owner, "sendEmail", {"draftId": draft["id"]}, **CONFIRM)
    # Another person's draft is not found, for a member as for the area's administrator.
    for role in ("member", "admin"):
        assert "not found" in refused(people[role], "sendEmail", {"draftId": draft["id"]}, **CONFIRM)
