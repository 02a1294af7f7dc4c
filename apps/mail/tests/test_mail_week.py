"""A week of two people's mail: an administrator and a member, each with a mailbox of their own,
and a shared mailbox they answer together. Mail arrives from outside as mail programs and
strangers write it, is read, searched, labelled, archived, answered and forwarded; drafts carry
files and are changed over days. What broke: one message from outside that stopped a mailbox
for good, a reply whose threading went with the message it answered, a reply to one's own sent
message addressed to oneself, and what one person may touch of another's mailbox."""

import imaplib
import time
import uuid
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

import pytest
from django.utils import timezone

from apps.catalogue.testing import ok, person_with, refused
from apps.files.tests.factories import FileFactory
from apps.mail import servers, services, sync
from apps.mail.models import Draft, Mailbox, MailboxMember, Message, Outgoing
from apps.mail.testing import inbox_of
from apps.mail.tests.factories import mailbox
from apps.mail.tests.test_mail_tools import CONFIRM

pytestmark = pytest.mark.usefixtures("mail_server")


def _unique(word: str) -> str:
    return f"{word} {uuid.uuid4().hex[:8]}"


def _letter(*, sender: str, to: str, subject: str, text: str = "Hello.", **headers: str) -> EmailMessage:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, subject
    message["Date"] = format_datetime(timezone.now())
    message["Message-ID"] = make_msgid(domain="example.org")
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(text)
    return message


def _deliver(box: Mailbox, raw: bytes, folder: str = "INBOX") -> None:
    """Puts a message in the mailbox's folder on the server, as mail arriving there does."""
    with servers.imap(box) as client:
        status, _data = client.append(sync.quoted(folder), "", imaplib.Time2Internaldate(time.time()), raw)
        assert status == "OK"


def _arrives(box: Mailbox, message: EmailMessage) -> Message:
    _deliver(box, message.as_bytes())
    sync.sync(box)
    return Message.objects.get(mailbox=box, message_id=message["Message-ID"])


def _raw(subject: str, *, head: str = "", body: bytes = b"Hello.\r\n", date: str = "") -> bytes:
    """A message as a stranger's program may write it, byte for byte."""
    return (
        f"From: Stranger <stranger@example.org>\r\nTo: someone@acme.example\r\nSubject: {subject}\r\n"
        f"Date: {date or format_datetime(timezone.now())}\r\n"
        f"Message-ID: <{uuid.uuid4().hex}@example.org>\r\nMIME-Version: 1.0\r\n{head}"
    ).encode() + body


@pytest.fixture
def boxes(people):
    """The admin's and the member's own mailboxes, and one they share (the admin owns it)."""
    admin, member = people["admin"], people["member"]
    own = {"admin": mailbox(admin, name="Admin"), "member": mailbox(member, name="Member")}
    shared = mailbox(admin, name="Team", shared=True, members=(member,))
    for box in (*own.values(), shared):
        sync.sync(box)
    return {**own, "shared": shared}


# --- mail from outside that a mailbox must take whatever it holds ---------------------------------


@pytest.mark.parametrize(
    "date",
    [
        "Fri, 31 Dec 9999 23:59:59 -1200",
        "Mon, 01 Jan 0100 00:00:00 +1400",
        "Sat, 01 Jan 10000 00:00:00 +0000",
    ],
)
def test_a_message_dated_far_away_neither_stops_the_sync_nor_any_listing(boxes, people, date):
    member, box = people["member"], boxes["member"]
    subject = _unique("Far date")
    _deliver(box, _raw(subject, head="Content-Type: text/plain\r\n\r\n", date=date))
    sync.sync(box)  # no error, and the mailbox stays working
    box.refresh_from_db()
    assert box.status == "ok"
    listed = ok(member, "getInboxMessages", {"inboxId": box.pk})["items"]
    assert subject in [item["subject"] for item in listed]
    found = ok(member, "findAndReadEmail", {"query": subject})["message"]
    assert found["subject"] == subject
    assert ok(member, "listInboxes")["items"]
    # The next message is copied too: the folder's cursor moved past it.
    later = _arrives(box, _letter(sender="a@example.org", to=box.address, subject=_unique("After")))
    assert later.folder.role == "inbox"


def test_an_attachment_named_with_nul_or_typed_with_control_bytes_does_not_stop_the_sync(boxes, people):
    member, box = people["member"], boxes["member"]
    subject = _unique("Odd attachment")
    body = (
        b"--b1\r\nContent-Type: text/plain\r\n\r\nSee attached.\r\n"
        b"--b1\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; "
        b"filename*=utf-8''in%00voice%FF.pdf\r\n\r\nJVBERi0=\r\n"
        b'--b1\r\nContent-Type: application/x\x00y; name="a\x00b.txt"\r\n'
        b"Content-Disposition: attachment\r\n\r\nhello\r\n--b1--\r\n"
    )
    _deliver(box, _raw(subject, head='Content-Type: multipart/mixed; boundary="b1"\r\n\r\n', body=body))
    sync.sync(box)
    box.refresh_from_db()
    assert box.status == "ok"
    read = ok(member, "findAndReadEmail", {"query": subject})["message"]
    assert read["subject"] == subject and len(read["attachments"]) == 2
    assert all("\x00" not in item["name"] and "\x00" not in item["type"] for item in read["attachments"])


# --- who touches whose mail -------------------------------------------------------------------------


def test_the_admin_neither_sees_nor_changes_the_member_s_own_mail(boxes, people):
    admin, member = people["admin"], people["member"]
    secret = _unique("Private appraisal")
    message = _arrives(
        boxes["member"], _letter(sender="hr@example.org", to=boxes["member"].address, subject=secret)
    )
    draft = ok(
        member, "updateDraft", {"inboxId": boxes["member"].pk, "subject": secret, "to": ["x@example.org"]}
    )
    assert boxes["member"].pk not in [item["id"] for item in ok(admin, "listInboxes")["items"]]
    for name, arguments in [
        ("getInboxMessages", {"inboxId": boxes["member"].pk}),
        ("getInboxFolders", {"inboxId": boxes["member"].pk}),
        ("findAndReadEmail", {"messageId": message.pk}),
        ("manageEmail", {"messageIds": [message.pk], "action": "trash"}),
        ("manageEmail", {"messageIds": [message.pk], "action": "read"}),
        ("getDraft", {"draftId": draft["id"]}),
        ("updateDraft", {"draftId": draft["id"], "body": "changed"}),
        ("deleteDraft", {"draftId": draft["id"]}),
        ("sendEmail", {"draftId": draft["id"]}),
        ("forwardEmail", {"messageId": message.pk, "to": ["spy@example.org"]}),
        ("updateDraft", {"replyToMessageId": message.pk, "body": "x"}),
        ("listDrafts", {"inboxId": boxes["member"].pk}),
        ("getEmailSignature", {"inboxId": boxes["member"].pk}),
        ("manageInboxFolder", {"inboxId": boxes["member"].pk, "action": "create", "name": "Spy"}),
    ]:
        said = refused(admin, name, arguments, **CONFIRM)
        assert "not found" in said and secret not in said, (name, said)
    assert ok(admin, "findAndReadEmail", {"query": secret})["message"] is None
    assert Message.objects.get(pk=message.pk).folder.role == "inbox" and message.unread
    assert Draft.objects.get(pk=draft["id"]).deleted_at is None


# --- replies -------------------------------------------------------------------------------------------


def test_a_reply_drafted_to_one_s_own_sent_message_goes_to_its_recipients(boxes, people, mail_server):
    member, box = people["member"], boxes["member"]
    customer = f"customer-{uuid.uuid4().hex[:8]}@example.org"
    first = ok(
        member, "updateDraft", {"inboxId": box.pk, "to": [customer], "subject": "Proposal", "body": "Here."}
    )
    ok(member, "sendEmail", {"draftId": first["id"]}, **CONFIRM)
    sync.sync(box)
    sent = Message.objects.get(mailbox=box, folder__role="sent", subject="Proposal", to=[customer])
    # A nudge, a day later, to the same thread.
    nudge = ok(member, "updateDraft", {"replyToMessageId": sent.pk, "body": "Any thoughts?"})
    assert nudge["to"] == [customer] and nudge["subject"] == "Re: Proposal"


def test_a_reply_draft_keeps_its_threading_when_the_message_it_answers_leaves_the_folder(
    boxes, people, mail_server
):
    member, box = people["member"], boxes["shared"]
    customer = f"customer-{uuid.uuid4().hex[:8]}@example.org"
    ask = _arrives(box, _letter(sender=customer, to=box.address, subject="Invoice question"))
    draft = ok(member, "updateDraft", {"replyToMessageId": ask.pk, "body": "Looking into it."})
    # A colleague's mail program deletes it on the server; the next sync drops the copy here.
    with servers.imap(box) as client:
        client.select("INBOX")
        client.uid("STORE", str(ask.uid), "+FLAGS.SILENT", "(\\Deleted)")
        client.expunge()
    sync.sync(box)
    assert not Message.objects.filter(pk=ask.pk).exists()
    assert ok(member, "getDraft", {"draftId": draft["id"]})["to"] == [customer]
    ok(member, "sendEmail", {"draftId": draft["id"]}, **CONFIRM)
    received = inbox_of(mail_server, customer)[-1]
    assert received["In-Reply-To"] == ask.message_id
    assert ask.message_id in str(received["References"])


# --- drafts over a week --------------------------------------------------------------------------------


def test_a_draft_changed_over_days_keeps_every_field_not_named(boxes, people, mail_server):
    member, box = people["member"], boxes["member"]
    report = FileFactory(actor=member, name="report.txt", text="numbers")
    box.send_as = ["sales@acme.example"]
    box.save(update_fields=["send_as"])
    draft = ok(
        member,
        "updateDraft",
        {
            "inboxId": box.pk,
            "to": ["a@example.org"],
            "cc": ["b@example.org"],
            "bcc": ["c@example.org"],
            "subject": "Weekly report",
            "body": "Attached.",
            "sender": "sales@acme.example",
            "attachmentFileIds": [report.pk],
        },
    )
    for change in (
        {"body": "Attached, v2."},
        {"subject": "Weekly report (final)"},
        {"to": ["d@example.org"]},
    ):
        draft = ok(member, "updateDraft", {"draftId": draft["id"], **change})
    kept = ok(member, "getDraft", {"draftId": draft["id"]})
    assert kept["cc"] == ["b@example.org"] and kept["bcc"] == ["c@example.org"]
    assert kept["sender"] == "sales@acme.example" and kept["attachmentFileIds"] == [report.pk]
    assert kept["body"] == "Attached, v2." and kept["subject"] == "Weekly report (final)"
    assert kept["version"] == 4


def test_bad_input_to_the_mail_tools_is_refused_by_its_field_and_writes_nothing(boxes, people):
    member, box = people["member"], boxes["member"]
    drafts, outgoing = Draft.objects.count(), Outgoing.objects.count()
    for arguments in [
        {"inboxId": box.pk, "to": ["a@example.org\r\nBcc: victim@example.org"]},
        {"inboxId": box.pk, "to": ["<>"]},
        {"inboxId": box.pk, "to": [""]},
        {"inboxId": box.pk, "to": ["@"]},
        {"inboxId": box.pk, "cc": ["a@@example.org"]},
        {"inboxId": box.pk, "sender": "member@acme.example\nBcc: x@example.org"},
        {"inboxId": box.pk, "subject": "x\x00y"},
        {"inboxId": box.pk, "body": "x\x00y"},
        {"inboxId": 2**63 - 1},
        {"draftId": 2**63 - 1},
        {"inboxId": box.pk, "replyToMessageId": 2**63 - 1},
        {"inboxId": box.pk, "attachmentFileIds": [2**63 - 1]},
    ]:
        refused(member, "updateDraft", arguments)
    assert Draft.objects.count() == drafts
    for name, arguments in [
        ("getInboxMessages", {"inboxId": box.pk, "folder": "x\x00"}),
        ("getInboxMessages", {"inboxId": box.pk, "folder": ""}),
        ("findAndReadEmail", {"query": "x\x00"}),
        ("findAndReadEmail", {"sender": "\x00"}),
        ("updateEmailSignature", {"inboxId": box.pk, "text": "a\x00b"}),
        ("manageEmail", {"messageIds": [2**63 - 1], "action": "read"}),
        ("manageEmail", {"messageIds": [1], "action": "explode"}),
        ("manageInboxFolder", {"inboxId": box.pk, "action": "rename", "name": "x\x00", "newName": "y"}),
        ("forwardEmail", {"messageId": 2**63 - 1, "to": ["a@example.org"]}),
        ("resendEmail", {"messageId": 1, "to": ["a@example.org\r\nX: y"]}),
    ]:
        refused(member, name, arguments, **CONFIRM)
    assert Outgoing.objects.count() == outgoing
    # Spaces and line breaks in a subject are one line, never a header of its own.
    draft = ok(member, "updateDraft", {"inboxId": box.pk, "subject": "Hi\r\nBcc: victim@example.org"})
    assert draft["subject"] == "Hi Bcc: victim@example.org"


# --- the shared mailbox ------------------------------------------------------------------------------


def test_in_the_shared_mailbox_a_draft_is_changed_by_who_wrote_it_and_read_by_all(boxes, people):
    admin, member, shared = people["admin"], people["member"], boxes["shared"]
    mine = ok(member, "updateDraft", {"inboxId": shared.pk, "to": ["a@example.org"], "subject": "Mine"})
    assert ok(member, "updateDraft", {"draftId": mine["id"], "body": "changed"})["version"] == 2
    theirs = ok(admin, "updateDraft", {"inboxId": shared.pk, "to": ["a@example.org"], "subject": "Admin's"})
    assert {d["id"] for d in ok(member, "listDrafts", {"inboxId": shared.pk})["items"]} == {
        mine["id"],
        theirs["id"],
    }
    assert ok(member, "getDraft", {"draftId": theirs["id"]})["subject"] == "Admin's"
    said = refused(member, "updateDraft", {"draftId": theirs["id"], "body": "overwritten"})
    assert said.startswith(f"Draft {theirs['id']} is another person's"), said
    assert Draft.objects.get(pk=theirs["id"]).body == "" and Draft.objects.get(pk=theirs["id"]).version == 1
    # The mailbox's owner tidies the drafts of their mailbox.
    assert ok(admin, "updateDraft", {"draftId": mine["id"], "body": "tidied"})["version"] == 3
    assert ok(admin, "deleteDraft", {"draftId": mine["id"]}, **CONFIRM)["inTrash"] is True


def test_forwarding_inline_keeps_the_attachments(boxes, people, mail_server):
    member, box = people["member"], boxes["member"]
    colleague = f"colleague-{uuid.uuid4().hex[:8]}@example.org"
    letter = _letter(
        sender="vendor@example.org", to=box.address, subject=_unique("Invoice"), text="Attached."
    )
    letter.add_attachment(b"%PDF-1.4 fake", maintype="application", subtype="pdf", filename="invoice.pdf")
    message = _arrives(box, letter)
    ok(member, "forwardEmail", {"messageId": message.pk, "to": [colleague], "note": "Please pay."}, **CONFIRM)
    received = inbox_of(mail_server, colleague)[-1]
    assert [part.get_filename() for part in received.iter_attachments()] == ["invoice.pdf"]


def test_labels_archive_and_search_over_a_week(boxes, people):
    member, box = people["member"], boxes["member"]
    subject = _unique("Contract renewal")
    message = _arrives(box, _letter(sender="Lee <lee@example.org>", to=box.address, subject=subject))
    reply = _arrives(
        box,
        _letter(
            sender="lee@example.org",
            to=box.address,
            subject="Re: " + subject,
            In_Reply_To=message.message_id,
            References=message.message_id,
        ),
    )
    assert reply.thread_id == message.thread_id
    ok(member, "manageInboxFolder", {"inboxId": box.pk, "action": "create", "name": "Clients/Lee"})
    ok(
        member,
        "manageEmail",
        {"messageIds": [message.pk, reply.pk], "action": "move", "folder": "Clients/Lee"},
    )
    ok(
        member,
        "manageInboxFolder",
        {"inboxId": box.pk, "action": "rename", "name": "Clients", "newName": "Customers"},
    )
    listed = ok(member, "getInboxMessages", {"inboxId": box.pk, "folder": "Customers/Lee"})["items"]
    assert {item["id"] for item in listed} == {message.pk, reply.pk}
    sync.sync(box)
    assert {row.pk for row in Message.objects.filter(mailbox=box, folder__name="Customers/Lee")} == {
        message.pk,
        reply.pk,
    }
    found = ok(member, "findAndReadEmail", {"query": subject.split()[-1], "inboxId": box.pk})
    assert found["message"]["id"] == reply.pk and [m["id"] for m in found["message"]["thread"]] == [
        message.pk
    ]
    changed = ok(member, "manageEmail", {"messageIds": [message.pk, message.pk], "action": "archive"})
    assert changed["changed"] == 1
    folders = {f["name"]: f for f in ok(member, "getInboxFolders", {"inboxId": box.pk})["items"]}
    assert folders["Archive"]["total"] == 1


def test_sending_a_draft_with_nobody_to_send_to_says_so(boxes, people):
    member, box = people["member"], boxes["member"]
    draft = ok(member, "updateDraft", {"inboxId": box.pk, "subject": "Nobody", "body": "x"})
    said = refused(member, "sendEmail", {"draftId": draft["id"]}, **CONFIRM)
    assert "recipient" in said.lower() or "to" in said, said
    assert not Outgoing.objects.filter(draft_id=draft["id"]).exists()


def test_a_reply_to_a_message_with_a_very_long_subject_is_drafted(boxes, people):
    member, box = people["member"], boxes["member"]
    subject = "Long " + "word " * 400
    message = _arrives(box, _letter(sender="long@example.org", to=box.address, subject=subject))
    draft = ok(member, "updateDraft", {"replyToMessageId": message.pk, "body": "Short answer."})
    assert draft["subject"].startswith("Re: Long word") and len(draft["subject"]) <= 998
    assert draft["to"] == ["long@example.org"]


def test_the_member_finds_nothing_of_the_admin_s_own_mailbox(boxes, people):
    member = people["member"]
    secret = _unique("Salary review")
    _arrives(boxes["admin"], _letter(sender="ceo@example.org", to=boxes["admin"].address, subject=secret))
    shared = _arrives(
        boxes["shared"], _letter(sender="ceo@example.org", to=boxes["shared"].address, subject=secret)
    )
    found = ok(member, "findAndReadEmail", {"query": secret})
    assert found["message"]["id"] == shared.pk and found["others"] == []
    assert found["message"]["thread"] == []
    inboxes = {item["id"]: item for item in ok(member, "listInboxes")["items"]}
    assert boxes["admin"].pk not in inboxes and boxes["shared"].pk in inboxes
    assert "not found" in refused(member, "findAndReadEmail", {"query": secret, "inboxId": boxes["admin"].pk})


def test_addresses_that_break_the_header_parser_neither_stop_the_sync_nor_a_report(boxes, people):
    member, box = people["member"], boxes["member"]
    subject = _unique("Broken header")
    # Python's parser raises on these (AttributeError, IndexError) when the header is read.
    head = "Content-Type: text/plain\r\n\r\n"
    raw = _raw(subject, head=head).replace(b"From: Stranger <stranger@example.org>", b"From: a@[")
    _deliver(box, raw.replace(b"To: someone@acme.example", b"To: <a@b>,<"))
    report = (
        'Content-Type: multipart/report; report-type=delivery-status; boundary="r1"\r\n\r\n'
        "--r1\r\nContent-Type: text/plain\r\n\r\nNot delivered.\r\n"
        "--r1\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\n"
        "Final-Recipient: rfc822; gone@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n"
        '--r1\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: a@[\r\nTo: "\r\nMessage-ID: <\r\n'
        "\r\n--r1--\r\n"
    )
    _deliver(box, _raw(_unique("Undelivered"), head=report))
    sync.sync(box)
    box.refresh_from_db()
    assert box.status == "ok"
    read = ok(member, "findAndReadEmail", {"query": subject})["message"]
    assert read["subject"] == subject and read["sender"] == "a@["


def test_a_mailbox_named_with_a_line_break_still_sends(boxes, people, mail_server):
    admin = people["admin"]
    address = f"team-{uuid.uuid4().hex[:8]}@acme.example"
    box = services.mailbox_create(
        actor=admin, name="Team\r\nBcc: victim@example.org", address=address, owner=admin
    )
    assert box.name == "Team Bcc: victim@example.org"
    customer = f"customer-{uuid.uuid4().hex[:8]}@example.org"
    draft = ok(admin, "updateDraft", {"inboxId": box.pk, "to": [customer], "subject": "Hello", "body": "Hi."})
    assert ok(admin, "sendEmail", {"draftId": draft["id"]}, **CONFIRM)["status"] == "sent"
    received = inbox_of(mail_server, customer)[-1]
    assert received["Bcc"] is None and "victim" not in str(received["From"].addresses[0].addr_spec)


def test_a_colleague_s_trashed_draft_is_restored_only_by_who_may_delete_it(boxes, people, acme_client):
    admin, shared = people["admin"], boxes["shared"]
    helper = person_with(
        {"emailinbox.view", "emailinbox.edit", "emailinbox.delete"},
        email=f"helper-{uuid.uuid4().hex[:6]}@acme.example",
    )
    MailboxMember.objects.create(mailbox=shared, user=helper)
    theirs = ok(admin, "updateDraft", {"inboxId": shared.pk, "to": ["a@example.org"], "subject": "Parked"})
    ok(admin, "deleteDraft", {"draftId": theirs["id"]}, **CONFIRM)
    acme_client.force_login(helper)
    acme_client.post(f"/settings/mail/drafts/{theirs['id']}/restore")
    assert Draft.objects.get(pk=theirs["id"]).deleted_at is not None
    acme_client.force_login(admin)
    acme_client.post(f"/settings/mail/drafts/{theirs['id']}/restore")
    assert Draft.objects.get(pk=theirs["id"]).deleted_at is None


def test_a_reply_draft_is_from_the_alias_the_message_was_written_to(boxes, people):
    member, box = people["member"], boxes["member"]
    box.send_as = ["billing@acme.example"]
    box.save(update_fields=["send_as"])
    message = _arrives(box, _letter(sender="payer@example.org", to="billing@acme.example", subject="Refund"))
    draft = ok(member, "updateDraft", {"replyToMessageId": message.pk, "body": "Done."})
    assert draft["sender"] == "billing@acme.example" and draft["to"] == ["payer@example.org"]


def test_a_draft_named_with_another_mailbox_is_refused_not_silently_kept_where_it_was(boxes, people):
    member = people["member"]
    draft = ok(member, "updateDraft", {"inboxId": boxes["member"].pk, "subject": "Where?"})
    said = refused(
        member, "updateDraft", {"draftId": draft["id"], "inboxId": boxes["shared"].pk, "body": "x"}
    )
    assert said.startswith("`inboxId`: ") and Draft.objects.get(pk=draft["id"]).body == ""
    # Naming its own mailbox is no change of mailbox.
    assert (
        ok(member, "updateDraft", {"draftId": draft["id"], "inboxId": boxes["member"].pk, "body": "y"})[
            "body"
        ]
        == "y"
    )


def test_a_member_discards_their_own_draft(boxes, people):
    member = people["member"]
    draft = ok(
        member, "updateDraft", {"inboxId": boxes["member"].pk, "to": ["a@example.org"], "subject": "Oops"}
    )

    ok(member, "deleteDraft", {"draftId": draft["id"]}, **CONFIRM)

    assert Draft.objects.get(pk=draft["id"]).deleted_at is not None


def test_a_member_of_the_shared_mailbox_triages_its_mail_but_not_its_folders(boxes, people, nora):
    member, shared = people["member"], boxes["shared"]
    question = _arrives(
        shared, _letter(sender="client@example.org", to=shared.address, subject=_unique("Order"))
    )
    # Opened by a member it is read for the team; they flag it and archive it as a shared inbox's members do.
    ok(member, "findAndReadEmail", {"query": question.subject.split()[-1], "inboxId": shared.pk})
    assert "\\Seen" in Message.objects.get(pk=question.pk).flags
    ok(member, "manageEmail", {"messageIds": [question.pk], "action": "flag"})
    assert ok(member, "manageEmail", {"messageIds": [question.pk], "action": "archive"})["changed"] == 1
    sync.sync(shared)
    assert Message.objects.get(message_id=question.message_id, mailbox=shared).folder.role == "archive"
    # Its folders stay the owner's to arrange; someone who is not a member changes nothing.
    assert refused(member, "manageInboxFolder", {"inboxId": shared.pk, "action": "create", "name": "Mine"})
    assert "was not found" in refused(nora, "manageEmail", {"messageIds": [question.pk], "action": "unflag"})
