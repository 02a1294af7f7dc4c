"""Mail exported through the Platform's export tool (apps.mail.transfer): the headers of the
messages of one's own mailboxes and those one is a member of, never another person's, whatever
one's role, and never a message's text."""

import csv
import io
from datetime import UTC, datetime

from apps.catalogue.testing import ok, person_with, refused
from apps.mail.models import Folder, Message
from apps.mail.tests.factories import mailbox


def _table(user, query):
    answer = ok(user, "exportDataCsv", {"entityType": "mailMessage", "query": query})
    rows = list(csv.reader(io.StringIO(answer["csvText"])))
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def _message(box, subject, **fields):
    folder, _made = Folder.objects.get_or_create(
        mailbox=box, name="INBOX", defaults={"role": Folder.Role.INBOX}
    )
    uid = Message.objects.filter(folder=folder).count() + 1
    return Message.objects.create(mailbox=box, folder=folder, uid=uid, subject=subject, **fields)


def test_messages_headers_are_exported_from_ones_own_mailboxes_only(people):
    mine = mailbox(people["member"])
    shared = mailbox(people["owner"], shared=True, members=(people["member"],))
    _message(
        mine,
        "Mailmarker offer",
        sender="Ada <ada@example.org>",
        from_address="ada@example.org",
        to=[mine.address, "bo@example.org"],
        text="Secret body",
        attachments=[{"name": "a.pdf", "type": "application/pdf", "size": 3}],
        date=datetime(2026, 3, 2, 9, 30, tzinfo=UTC),
        flags=["\\Seen"],
    )
    _message(shared, "=Mailmarker shared")
    _message(mailbox(people["owner"]), "Mailmarker the owner's own")

    member = _table(people["member"], "Mailmarker")
    owner = _table(people["owner"], "Mailmarker")

    assert sorted(row["subject"] for row in member) == ["'=Mailmarker shared", "Mailmarker offer"]
    # The workspace's owner reads no other person's mailbox either.
    assert sorted(row["subject"] for row in owner) == ["'=Mailmarker shared", "Mailmarker the owner's own"]
    offer = next(row for row in member if row["subject"] == "Mailmarker offer")
    assert (offer["mailbox"], offer["folder"], offer["from"], offer["to"]) == (
        mine.address,
        "INBOX",
        "Ada <ada@example.org>",
        f"{mine.address}; bo@example.org",
    )
    assert (offer["attachments"], offer["unread"], offer["date"]) == (
        "1",
        "false",
        "2026-03-02T09:30:00+00:00",
    )
    assert "Secret" not in str(member)


def test_a_role_that_may_not_read_mail_may_not_export_it(acme):
    person = person_with({"platform.view", "files.view", "files.edit"}, email="no-mail@acme.example")

    assert "permission" in refused(person, "exportDataCsv", {"entityType": "mailMessage"})
