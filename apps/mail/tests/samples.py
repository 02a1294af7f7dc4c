"""A normal call of every Email Inbox tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`; the sending
tools send through the test process's local mail server."""

import imaplib
import time
import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.mail import demo, servers, services, sync
from apps.mail.models import Folder, Mailbox, Message
from apps.mail.testing import using_local_server


def _mailbox(actor: Any) -> Mailbox:
    return Mailbox.objects.get(address=actor.email)


def _message(actor: Any, *, sent: bool = False) -> Message:
    """A message on the server and in the mailbox's copy: received, or sent by the mailbox."""
    mailbox = _mailbox(actor)
    subject = f"Sample {uuid.uuid4().hex[:10]}"
    sender, to = (
        ("buyer@example.org", mailbox.address) if not sent else (mailbox.address, "buyer@example.org")
    )
    message = demo._message(sender=sender, to=to, subject=subject, text="A sample message.", days_ago=0)
    with using_local_server(), servers.imap(mailbox) as client:
        client.append(
            "Sent" if sent else "INBOX", "", imaplib.Time2Internaldate(time.time()), message.as_bytes()
        )
    with using_local_server():
        sync.sync(mailbox)
    return Message.objects.get(mailbox=mailbox, subject=subject)


@sample("listInboxes")
def list_inboxes(actor: Any) -> Sample:
    return Sample({}, private=[_mailbox(actor).address])


@sample("getInboxFolders")
def get_inbox_folders(actor: Any) -> Sample:
    mailbox = _mailbox(actor)
    Folder.objects.get_or_create(mailbox=mailbox, name="INBOX", defaults={"role": "inbox"})
    return Sample({"inboxId": mailbox.pk})


@sample("getInboxMessages")
def get_inbox_messages(actor: Any) -> Sample:
    message = _message(actor)
    return Sample({"inboxId": message.mailbox_id, "folder": "inbox"}, private=[message.subject])


@sample("findAndReadEmail")
def find_and_read_email(actor: Any) -> Sample:
    message = _message(actor)
    return Sample({"messageId": message.pk}, private=[message.subject])


@sample("manageEmail")
def manage_email(actor: Any) -> Sample:
    message = _message(actor)
    return Sample({"messageIds": [message.pk], "action": "archive"}, around=using_local_server)


@sample("manageInboxFolder")
def manage_inbox_folder(actor: Any) -> Sample:
    # A folder Acme's mailbox has already: never listed in another workspace.
    mailbox, kept = _mailbox(actor), f"Kept {uuid.uuid4().hex[:10]}"
    with using_local_server():
        services.folder_create(actor=actor, mailbox=mailbox, name=kept)
    name = f"Sample {uuid.uuid4().hex[:10]}"
    return Sample(
        {"inboxId": mailbox.pk, "action": "create", "name": name}, private=[kept], around=using_local_server
    )


@sample("forwardEmail")
def forward_email(actor: Any) -> Sample:
    message = _message(actor)
    return Sample({"messageId": message.pk, "to": ["partner@example.org"]}, around=using_local_server)


@sample("resendEmail")
def resend_email(actor: Any) -> Sample:
    message = _message(actor, sent=True)
    return Sample({"messageId": message.pk}, around=using_local_server)


def _draft(actor: Any, arguments: dict[str, Any] | None = None) -> Sample:
    draft = services.draft_save(
        actor=actor, mailbox=_mailbox(actor), to=["buyer@example.org"], subject="Sample draft", body="Hello"
    )
    return Sample({"draftId": draft.pk, **(arguments or {})})


@sample("sendEmail")
def send_email(actor: Any) -> Sample:
    return Sample(_draft(actor).arguments, around=using_local_server)


@sample("listDrafts")
def list_drafts(actor: Any) -> Sample:
    _draft(actor)
    return Sample({"limit": 10}, private=["Sample draft"])


@sample("getDraft")
def get_draft(actor: Any) -> Sample:
    return _draft(actor)


@sample("updateDraft")
def update_draft(actor: Any) -> Sample:
    return _draft(actor, {"subject": "A better subject", "cc": ["team@example.org"]})


@sample("getEmailSignature")
def get_email_signature(actor: Any) -> Sample:
    return Sample({"inboxId": _mailbox(actor).pk})


@sample("updateEmailSignature")
def update_email_signature(actor: Any) -> Sample:
    return Sample({"inboxId": _mailbox(actor).pk, "text": "Best regards,\nAcme"})


@sample("openInboxSettings")
def open_inbox_settings(actor: Any) -> Sample:
    return Sample({})


@sample("deleteDraft")
def delete_draft(actor: Any) -> Sample:
    return _draft(actor)
