"""The Email Inbox tools and the mail app against the real local mail server (Dovecot IMAP and
the SMTP submission server, tests' own instance): sync with SPECIAL-USE roles and threading,
sanitised content, sending once through the outbox, the sending rules, and bad input that names
the problem and writes nothing."""

import imaplib
import time
import uuid

import pytest
from django.test import override_settings
from django_tenants.utils import schema_context

from apps.catalogue.testing import assert_refused_without_its_permission, ok, refused, tools_of
from apps.contacts.tests.factories import ContactFactory
from apps.mail import demo, errors, servers, services, sync
from apps.mail.models import Draft, Folder, Mailbox, Message, Outgoing

pytestmark = pytest.mark.usefixtures("mail_server")

MAIL_TOOLS = tools_of("emailinbox")
CONFIRM = {
    "capabilities": {"elicitation": {}},
    "elicit": lambda message, schema: {"action": "accept", "content": {"confirm": True}},
}


def inbox_of(mail_server, address: str) -> list[bytes]:
    """What the local server holds in the INBOX of `address` (raw messages)."""
    host, _, port = mail_server["ATRIUM_MAIL_LOCAL_IMAP"].rpartition(":")
    client = imaplib.IMAP4(host, int(port))
    client.login(address, mail_server["ATRIUM_MAIL_LOCAL_PASSWORD"])
    client.select("INBOX", readonly=True)
    _status, data = client.uid("SEARCH", "ALL")
    found = []
    for uid in (data[0] or b"").split():
        _status, fetched = client.uid("FETCH", uid.decode(), "(BODY.PEEK[])")
        found.append(fetched[0][1])
    client.logout()
    return found


def arrives(mailbox: Mailbox, *, sender: str, subject: str, text: str) -> Message:
    """A message from `sender` put in the mailbox's INBOX on the server, then synchronised."""
    message = demo._message(sender=sender, to=mailbox.address, subject=subject, text=text, days_ago=0)
    with servers.imap(mailbox) as client:
        client.append("INBOX", "", imaplib.Time2Internaldate(time.time()), message.as_bytes())
    sync.sync(mailbox)
    return Message.objects.get(mailbox=mailbox, message_id=message["Message-ID"])


def test_the_area_has_spec_s_twelve_tools_its_own_three_and_platform_s_deletedraft():
    assert sorted(spec.name for spec in MAIL_TOOLS) == [
        "deleteDraft",
        "findAndReadEmail",
        "forwardEmail",
        "getDraft",
        "getEmailSignature",
        "getInboxFolders",
        "getInboxMessages",
        "listDrafts",
        "listInboxes",
        "manageEmail",
        "manageInboxFolder",
        "openInboxSettings",
        "resendEmail",
        "sendEmail",
        "updateDraft",
        "updateEmailSignature",
    ]
    high_risk = {spec.name for spec in MAIL_TOOLS if "HIGH RISK" in spec.definition["description"]}
    assert high_risk == {"forwardEmail", "resendEmail", "sendEmail"}


@pytest.mark.parametrize("spec", MAIL_TOOLS, ids=lambda spec: spec.name)
def test_a_role_without_the_permission_cannot_call_it(acme, spec):
    assert_refused_without_its_permission(spec)


def test_sync_copies_folders_by_role_threads_replies_and_sanitises_html(filled):
    roles = dict(Folder.objects.filter(mailbox=filled).values_list("role", "name"))
    assert {"inbox", "sent", "drafts", "trash", "archive", "junk"} <= set(roles)
    pricing = Message.objects.filter(mailbox=filled, subject__icontains="Pricing for 40 seats")
    assert pricing.count() == 3
    assert len({message.thread_id for message in pricing}) == 1
    assert {message.folder.role for message in pricing} == {"inbox", "sent"}
    news = Message.objects.get(mailbox=filled, subject__startswith="This week")
    assert "<script" not in news.html and "tracker.northwind" not in news.html
    assert news.blocked_images == 1
    assert 'rel="noopener noreferrer nofollow"' in news.html
    # A second sync adds nothing: the cursor is kept per folder.
    assert sync.sync(filled) == 0


def test_the_reading_tools_answer_with_text_and_only_the_mailboxes_one_may_use(filled, people):
    inboxes = ok(people["owner"], "listInboxes")["items"]
    addresses = {inbox["address"]: inbox for inbox in inboxes}
    assert {"owner@acme.example", "support@acme.example"} <= set(addresses)
    assert addresses["owner@acme.example"]["unread"] >= 3
    viewer = {inbox["address"] for inbox in ok(people["viewer"], "listInboxes")["items"]}
    assert viewer == {"viewer@acme.example"}  # not a member of Support, not the owner's

    folders = ok(people["owner"], "getInboxFolders", {"inboxId": filled.pk})["items"]
    assert {"inbox", "sent"} <= {folder["role"] for folder in folders}
    listed = ok(people["owner"], "getInboxMessages", {"inboxId": filled.pk, "unreadOnly": True, "limit": 50})
    assert any(item["subject"] == "Quarterly review moved to Friday" for item in listed["items"])
    sent = ok(people["owner"], "getInboxMessages", {"inboxId": filled.pk, "folder": "sent"})
    assert [item["subject"] for item in sent["items"]][:1] == ["Re: Pricing for 40 seats"]

    found = ok(people["owner"], "findAndReadEmail", {"query": "Thursday works", "sender": "jo.brennan"})
    assert found["message"]["quotedTrimmed"] is True
    assert found["message"]["text"].startswith("Thursday at 10:00 works")
    assert "18 EUR" not in found["message"]["text"]
    assert len(found["message"]["thread"]) == 2
    news = ok(people["owner"], "findAndReadEmail", {"query": "shorten sales cycle"})["message"]
    assert "# Five ways" in news["text"] and news["blockedImages"] == 1 and "<" not in news["text"]
    assert ok(people["owner"], "openInboxSettings")["url"].endswith("/settings/mail/")


def test_other_people_s_mailboxes_and_other_workspaces_ids_are_not_found(filled, people, globex):
    message = Message.objects.filter(mailbox=filled).first()
    assert "not found" in refused(people["member"], "getInboxMessages", {"inboxId": filled.pk})
    assert "not found" in refused(people["member"], "findAndReadEmail", {"messageId": message.pk})
    # The area's administrator connects mailboxes but reads none but their own.
    assert "not found" in refused(people["admin"], "getInboxFolders", {"inboxId": filled.pk})
    # Globex's mailboxes live in Globex's schema: from Acme, an id past Acme's is simply unknown.
    with schema_context("globex"):
        assert Mailbox.objects.filter(address="owner@globex.example").exists()
    unknown = Mailbox.objects.order_by("-pk").first().pk + 1000
    assert "not found" in refused(people["owner"], "getInboxFolders", {"inboxId": unknown})
    secret = f"Board minutes {uuid.uuid4().hex[:8]}"
    arrives(filled, sender="chair@example.org", subject=secret, text="For the owner only.")
    assert ok(people["owner"], "findAndReadEmail", {"query": secret})["message"]["subject"] == secret
    assert ok(people["member"], "findAndReadEmail", {"query": secret})["message"] is None


def test_a_reply_is_sent_once_with_the_signature_above_the_quote_and_kept_in_sent(
    filled, people, mail_server
):
    owner = people["owner"]
    customer = f"jo-{uuid.uuid4().hex[:8]}@example.org"
    ask = Message.objects.get(mailbox=filled, subject="Pricing for 40 seats")
    Message.objects.filter(pk=ask.pk).update(reply_to=[customer])
    ok(owner, "updateEmailSignature", {"inboxId": filled.pk, "text": "Ada Owner\nAcme"})
    assert ok(owner, "getEmailSignature", {"inboxId": filled.pk})["text"] == "Ada Owner\nAcme"
    draft = ok(owner, "updateDraft", {"replyToMessageId": ask.pk, "body": "Thursday suits us."})
    assert draft["to"] == [customer] and draft["subject"] == "Re: Pricing for 40 seats"
    changed = ok(owner, "updateDraft", {"draftId": draft["id"], "body": "Thursday at 10:00 suits us."})
    assert changed["version"] == 2
    assert [d["id"] for d in ok(owner, "listDrafts", {"inboxId": filled.pk})["items"]] == [draft["id"]]

    row = services.draft_send(actor=owner, draft=Draft.objects.get(pk=draft["id"]))
    assert row.status == "sent" and row.stored_in_sent
    with pytest.raises(errors.AlreadySent):
        services.draft_send(actor=owner, draft=Draft.objects.get(pk=draft["id"]))
    received = inbox_of(mail_server, customer)
    assert len(received) == 1
    message = sync.parse(received[0])
    assert message["In-Reply-To"] == ask.message_id
    text = message.get_body(preferencelist=("plain",)).get_content()
    assert text.count("Ada Owner") == 1
    assert text.index("Thursday at 10:00 suits us.") < text.index("Ada Owner") < text.index("wrote:")
    sync.sync(filled)
    stored = Message.objects.get(mailbox=filled, folder__role="sent", message_id=row.message_id)
    assert stored.thread_id == ask.thread_id
    assert ok(owner, "getDraft", {"draftId": draft["id"]})["sent"] is True


def test_forward_inline_and_as_attachment_and_resend_with_a_new_message_id(filled, people, mail_server):
    owner = people["owner"]
    colleague = f"colleague-{uuid.uuid4().hex[:8]}@example.org"
    ask = Message.objects.get(mailbox=filled, subject="Pricing for 40 seats")
    inline = ok(owner, "forwardEmail", {"messageId": ask.pk, "to": [colleague], "note": "FYI"}, **CONFIRM)
    attached = ok(
        owner, "forwardEmail", {"messageId": ask.pk, "to": [colleague], "asAttachment": True}, **CONFIRM
    )
    assert inline["status"] == attached["status"] == "sent"
    received = sorted(
        (sync.parse(raw) for raw in inbox_of(mail_server, colleague)), key=lambda m: m.is_multipart()
    )
    assert [m["Subject"] for m in received] == ["Fwd: Pricing for 40 seats"] * 2
    assert (
        "Forwarded message" in received[0].get_content()
        and "40 seats from March" in received[0].get_content()
    )
    assert [part.get_content_type() for part in received[1].iter_attachments()] == ["message/rfc822"]

    # The demo's answer (the oldest: replies sent by other tests are in Sent too).
    answer = Message.objects.filter(
        mailbox=filled, folder__role="sent", subject="Re: Pricing for 40 seats"
    ).earliest("date")
    again = ok(owner, "resendEmail", {"messageId": answer.pk, "to": [colleague]}, **CONFIRM)
    assert again["messageId"] != answer.message_id
    resent = [sync.parse(raw) for raw in inbox_of(mail_server, colleague)][-1]
    assert resent["Message-ID"] == again["messageId"] and resent["Subject"] == "Re: Pricing for 40 seats"
    # A received message is not the mailbox's to resend: From is not an address it may send as.
    assert "Only mail this mailbox sent" in refused(owner, "resendEmail", {"messageId": ask.pk}, **CONFIRM)


def test_bad_input_names_the_problem_and_writes_nothing(filled, people):
    owner = people["owner"]
    drafts = Draft.objects.count()
    assert "'not an address' is not an e-mail address" in refused(
        owner, "updateDraft", {"inboxId": filled.pk, "to": ["not an address"], "body": "x"}
    )
    assert "may not send as" in refused(
        owner, "updateDraft", {"inboxId": filled.pk, "sender": "ceo@elsewhere.example"}
    )
    assert Draft.objects.count() == drafts
    assert "has no folder 'Nowhere'" in refused(
        owner, "getInboxMessages", {"inboxId": filled.pk, "folder": "Nowhere"}
    )
    ask = Message.objects.get(mailbox=filled, subject="Pricing for 40 seats")
    outgoing = Outgoing.objects.count()
    with override_settings(ATRIUM_MAIL_MAX_BYTES=1024):
        message = refused(
            owner,
            "forwardEmail",
            {"messageId": ask.pk, "to": ["a@example.org"], "note": "x" * 2000},
            **CONFIRM,
        )
    assert "MESSAGE_TOO_LARGE" in message or "at most 1024 bytes" in message
    assert Outgoing.objects.count() == outgoing


def test_a_server_that_is_down_or_refuses_the_login_is_a_clear_error_and_nothing_goes_twice(
    filled, people, mail_server
):
    owner = people["owner"]
    customer = f"retry-{uuid.uuid4().hex[:8]}@example.org"
    draft = services.draft_save(actor=owner, mailbox=filled, to=[customer], subject="Retry", body="Once.")
    with override_settings(ATRIUM_MAIL_LOCAL_SMTP="127.0.0.1:9"), pytest.raises(errors.ServerDown):
        services.draft_send(actor=owner, draft=draft)
    row = Outgoing.objects.get(draft=draft)
    assert row.status == "failed" and inbox_of(mail_server, customer) == []
    with override_settings(ATRIUM_MAIL_LOCAL_PASSWORD="wrong"), pytest.raises(errors.LoginRefused):
        sync.sync(filled)
    filled.refresh_from_db()
    assert filled.status == "failing" and "refused the login" in filled.problem
    # Tried again: the same outbox row and Message-ID, delivered once.
    sent = services.draft_send(actor=owner, draft=Draft.objects.get(pk=draft.pk))
    assert sent.pk == row.pk and sent.status == "sent" and sent.attempts == 2
    assert len(inbox_of(mail_server, customer)) == 1


def test_contacts_and_group_accounts_search_their_emails_in_the_mailboxes_one_may_use(filled, people):
    address = f"lee-{uuid.uuid4().hex[:8]}@example.org"
    arrives(filled, sender=f"Lee <{address}>", subject="Quote for the renewal", text="Please send the quote.")
    arrives(filled, sender=address, subject="Re: Quote for the renewal", text="Thursday is fine.")
    contact = ContactFactory(actor=people["owner"], email=address, visibility="workspace")
    found = ok(people["owner"], "searchContactEmails", {"contactId": contact.pk})
    assert found["total"] == 2
    assert [item["subject"] for item in found["items"]] == [
        "Re: Quote for the renewal",
        "Quote for the renewal",
    ]
    narrowed = ok(people["owner"], "searchContactEmails", {"contactId": contact.pk, "query": "Thursday"})
    assert narrowed["total"] == 1
    # The member sees the contact but not the owner's mailbox.
    assert ok(people["member"], "searchContactEmails", {"contactId": contact.pk})["total"] == 0


def test_the_mail_page_shows_one_s_mailboxes_and_no_one_else_s(filled, people, acme_client):
    acme_client.force_login(people["member"])
    page = acme_client.get("/settings/mail/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "member@acme.example" in body and "support@acme.example" in body
    assert acme_client.get(f"/settings/mail/{filled.pk}/").status_code == 404
    acme_client.force_login(people["owner"])
    detail = acme_client.get(f"/settings/mail/{filled.pk}/").content.decode()
    assert "Pricing for 40 seats" in detail and "<script>alert" not in detail


def test_export_and_erasure_reach_every_mail_model(filled, people, acme):
    from apps.core import privacy

    owner = people["owner"]
    services.signature_set(actor=owner, mailbox=filled, text="Ada")
    services.draft_save(actor=owner, mailbox=filled, to=["jo@example.org"], subject="Privacy", body="x")
    handlers = {handler.label: handler for handler in privacy.handlers() if handler.label.startswith("mail.")}
    assert set(handlers) == {
        "mail.mailbox",
        "mail.mailboxmember",
        "mail.message",
        "mail.thread",
        "mail.draft",
        "mail.signature",
        "mail.outgoing",
        "mail.suppression",
    }
    customer = privacy.Subject(email="jo.brennan@example.org", user=None, workspace=acme)
    exported = handlers["mail.message"].export(customer)
    assert {row["subject"] for row in exported} >= {"Pricing for 40 seats", "Re: Pricing for 40 seats"}
    handlers["mail.message"].erase(customer)
    handlers["mail.thread"].erase(customer)
    assert not Message.objects.filter(addresses__contains=["jo.brennan@example.org"]).exists()
    assert Message.objects.filter(mailbox=filled).exists()  # the rest of the mailbox stays

    person = privacy.Subject(email=owner.email, user=owner, workspace=acme)
    assert "secret" not in handlers["mail.mailbox"].export(person)[0]
    for label in ("mail.draft", "mail.signature", "mail.mailbox"):
        handlers[label].soft_delete(person)
        handlers[label].erase(person)
    assert not Mailbox.objects.filter(pk=filled.pk).exists()
    support = Mailbox.objects.get(address="support@acme.example")
    assert support.owner_id is None  # a shared mailbox stays, without its owner


def test_delete_draft_puts_it_in_the_trash_the_mail_page_restores_it(people, acme_client):
    owner = people["owner"]
    mailbox = Mailbox.objects.get(address=owner.email)
    draft = services.draft_save(
        actor=owner, mailbox=mailbox, to=["jo@example.org"], subject="Not now", body="x"
    )

    answer = ok(owner, "deleteDraft", {"draftId": draft.pk}, **CONFIRM)

    assert answer == {"id": draft.pk, "subject": "Not now", "inTrash": True, "serverCopy": "none"}
    assert "trash" in refused(owner, "deleteDraft", {"draftId": draft.pk}, **CONFIRM)
    # The area's administrator may delete drafts, but sees none of another person's mailbox.
    assert "not found" in refused(people["admin"], "deleteDraft", {"draftId": draft.pk}, **CONFIRM)
    assert "not found" in refused(owner, "deleteDraft", {"draftId": 10**12}, **CONFIRM)
    acme_client.force_login(owner)
    acme_client.post(f"/settings/mail/drafts/{draft.pk}/restore")
    assert Draft.objects.get(pk=draft.pk).deleted_at is None
