"""Files of the Files area attached to drafts and replies: a file the writer may read goes with the
message as a MIME part of its own; one they may not read is refused as "not found", its name never
said, and nothing is kept; the files an e-mail may carry are capped."""

import uuid

import pytest
from django.test import override_settings

from apps.catalogue.testing import ok, refused
from apps.files.tests.factories import FileFactory
from apps.mail import sync
from apps.mail.models import Draft, Message
from apps.mail.tests.test_mail_tools import CONFIRM, inbox_of

pytestmark = pytest.mark.usefixtures("mail_server")


def test_a_reply_carries_the_files_attached_to_its_draft(filled, people, mail_server):
    owner = people["owner"]
    customer = f"customer-{uuid.uuid4().hex[:8]}@example.org"
    ask = Message.objects.get(mailbox=filled, subject="Pricing for 40 seats")
    quote = FileFactory(actor=owner, name="quote-40-seats.txt", text="40 seats at 12 EUR")
    draft = ok(
        owner,
        "updateDraft",
        {
            "replyToMessageId": ask.pk,
            "to": [customer],
            "body": "Our quote is attached.",
            "attachmentFileIds": [quote.pk],
        },
    )
    assert draft["attachmentFileIds"] == [quote.pk]
    assert ok(owner, "getDraft", {"draftId": draft["id"]})["attachmentFileIds"] == [quote.pk]

    ok(owner, "sendEmail", {"draftId": draft["id"]}, **CONFIRM)
    sent = sync.parse(inbox_of(mail_server, customer)[-1])
    assert sent["In-Reply-To"] == ask.message_id
    parts = [part for part in sent.iter_attachments() if part.get_filename() == "quote-40-seats.txt"]
    assert len(parts) == 1 and "40 seats at 12 EUR" in parts[0].get_content()
    assert "Our quote is attached." in sent.get_body(preferencelist=("plain",)).get_content()

    # Taken off again with an empty list.
    other = ok(
        owner, "updateDraft", {"inboxId": filled.pk, "to": [customer], "attachmentFileIds": [quote.pk]}
    )
    assert (
        ok(owner, "updateDraft", {"draftId": other["id"], "attachmentFileIds": []})["attachmentFileIds"] == []
    )


def test_a_file_the_writer_may_not_read_is_refused_without_its_name(filled, people):
    owner, member = people["owner"], people["member"]
    secret = FileFactory(actor=owner, name="salaries-zq.txt", text="secret", visibility="private")
    drafts = Draft.objects.count()
    message = refused(member, "updateDraft", {"to": ["a@example.org"], "attachmentFileIds": [secret.pk]})
    assert "not found" in message and "salaries" not in message
    assert (
        refused(member, "updateDraft", {"to": ["a@example.org"], "attachmentFileIds": [2**62]}).replace(
            str(2**62), str(secret.pk)
        )
        == message
    )
    assert Draft.objects.count() == drafts

    # A file shared once and private to its owner again by the time the draft is sent: refused then.
    mine = FileFactory(actor=member, name="notes-zq.txt", text="mine")
    draft = ok(member, "updateDraft", {"to": ["a@example.org"], "attachmentFileIds": [mine.pk]})
    Draft.objects.filter(pk=draft["id"]).update(attachments=[secret.pk])
    assert "not found" in refused(member, "sendEmail", {"draftId": draft["id"]}, **CONFIRM)
    assert Draft.objects.get(pk=draft["id"]).sent_at is None


def test_too_many_or_too_large_files_are_refused_and_nothing_is_kept(filled, people):
    owner = people["owner"]
    small = FileFactory(actor=owner, name="small.txt", text="x" * 2000)
    assert "attachmentFileIds" in refused(
        owner, "updateDraft", {"inboxId": filled.pk, "attachmentFileIds": list(range(1, 12))}
    )
    drafts = Draft.objects.count()
    with override_settings(ATRIUM_MAIL_MAX_BYTES=1000):
        message = refused(owner, "updateDraft", {"inboxId": filled.pk, "attachmentFileIds": [small.pk]})
    assert "The files come to" in message and "at most 750 bytes of files" in message
    assert Draft.objects.count() == drafts
