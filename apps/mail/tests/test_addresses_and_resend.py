"""Addresses as people write them, sent as the wire needs them: international domains reach
their recipient (in IDNA form on the wire), every address of an item is kept, an item with a line
break is refused naming it; and a received message is not resent, with the reason said."""

import uuid

import pytest

from apps.catalogue.testing import ok, refused
from apps.mail import addresses, errors, sending, services, sync
from apps.mail.models import Draft, Mailbox, Message, Outgoing
from apps.mail.tests.test_mail_tools import CONFIRM, inbox_of

pytestmark = pytest.mark.usefixtures("mail_server")


def test_an_international_domain_is_kept_as_written_and_sent_in_its_idna_form(people, mail_server):
    owner = people["owner"]
    mailbox = Mailbox.objects.get(address=owner.email)
    local = f"joerg-{uuid.uuid4().hex[:8]}"
    draft = ok(
        owner, "updateDraft", {"inboxId": mailbox.pk, "to": [f"{local}@bücher.example"], "body": "Hallo"}
    )
    assert draft["to"] == [f"{local}@bücher.example"]

    row = services.draft_send(actor=owner, draft=Draft.objects.get(pk=draft["id"]))

    assert row.status == "sent" and row.recipients == [f"{local}@xn--bcher-kva.example"]
    received = inbox_of(mail_server, f"{local}@xn--bcher-kva.example")
    assert len(received) == 1
    assert sync.parse(received[0])["To"] == f"{local}@xn--bcher-kva.example"


def test_an_outbox_row_kept_with_a_unicode_recipient_is_sent_not_left_sending(people, mail_server):
    owner = people["owner"]
    mailbox = Mailbox.objects.get(address=owner.email)
    local = f"anna-{uuid.uuid4().hex[:8]}"
    row = Outgoing.objects.create(
        mailbox=mailbox,
        kind="send",
        message_id=f"<{uuid.uuid4().hex}@acme.example>",
        sender=mailbox.address,
        recipients=[f"{local}@bücher.example"],
        raw=b"From: owner@acme.example\r\nSubject: Kept before\r\n\r\nHello\r\n",
    )

    sent = sending.deliver(row)

    assert sent.status == "sent"
    assert len(inbox_of(mail_server, f"{local}@xn--bcher-kva.example")) == 1


def test_a_non_ascii_local_part_is_refused_when_the_draft_is_saved(people):
    owner = people["owner"]
    drafts = Draft.objects.count()
    assert "'jörg@example.org' is not an e-mail address" in refused(
        owner, "updateDraft", {"to": ["jörg@example.org"], "body": "x"}
    )
    assert Draft.objects.count() == drafts


def test_every_address_of_an_item_is_kept_and_a_quoted_name_s_comma_splits_nothing(people):
    draft = ok(
        people["owner"],
        "updateDraft",
        {
            "to": ["a@x.example, B <b@y.example>", '"Doe, Jo" <jo@z.example>'],
            "cc": ["c@x.example; d@y.example"],
        },
    )
    assert draft["to"] == ["a@x.example", "b@y.example", "jo@z.example"]
    assert draft["cc"] == ["c@x.example", "d@y.example"]
    assert addresses.many(["a@x.example,a@X.example"]) == ["a@x.example"]


@pytest.mark.parametrize(
    "item", ["a@x.example\r\nBcc: evil@z.example", "a@x.example\nb@y.example", "a@x.example\x1b"]
)
def test_an_item_with_a_line_break_is_refused_naming_it_and_nothing_is_kept(people, item):
    owner = people["owner"]
    drafts = Draft.objects.count()
    message = refused(owner, "updateDraft", {"to": ["ok@x.example", item], "body": "x"})
    assert "line break" in message and "a@x.example" in message
    assert Draft.objects.count() == drafts
    with pytest.raises(errors.BadAddress):
        addresses.one(item)


def test_one_address_where_one_is_expected(people):
    with pytest.raises(errors.BadAddress, match="names several addresses"):
        addresses.one("a@x.example, b@y.example", field="from")
    assert "names several addresses" in refused(
        people["owner"], "updateDraft", {"sender": "owner@acme.example, ceo@acme.example"}
    )


def test_forward_sends_to_every_address_of_an_item(filled, people, mail_server):
    first, second = (f"{name}-{uuid.uuid4().hex[:8]}@example.org" for name in ("fa", "fb"))
    ask = Message.objects.get(mailbox=filled, subject="Pricing for 40 seats")
    sent = ok(people["owner"], "forwardEmail", {"messageId": ask.pk, "to": [f"{first}, {second}"]}, **CONFIRM)
    assert sent["recipients"] == 2
    assert len(inbox_of(mail_server, first)) == len(inbox_of(mail_server, second)) == 1


def test_resending_a_received_message_says_only_sent_mail_can_be_resent(filled, people):
    ask = Message.objects.get(mailbox=filled, subject="Pricing for 40 seats")
    message = refused(people["owner"], "resendEmail", {"messageId": ask.pk}, **CONFIRM)
    assert "Only mail this mailbox sent can be resent" in message and "forwardEmail" in message
