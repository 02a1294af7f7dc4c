"""Mail records for tests: mailboxes on the local mail server (unique addresses: the server's
mailboxes outlive each test's rolled-back transaction)."""

import uuid
from collections.abc import Callable
from typing import Any

from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, access_rows
from apps.mail import services
from apps.mail.models import Draft, Folder, Mailbox, MailboxMember, Message, Outgoing, Signature, Thread


def mailbox(owner: Any, *, shared: bool = False, members: tuple[Any, ...] = (), **fields: Any) -> Mailbox:
    address = fields.pop("address", f"box-{uuid.uuid4().hex[:10]}@acme.example")
    box = Mailbox.objects.create(
        name=fields.pop("name", "Test box"), address=address, owner=owner, shared=shared, **fields
    )
    for member in members:
        MailboxMember.objects.create(mailbox=box, user=member)
    return box


# --- the rows of each mail record, for the access test (tests/test_access_per_model.py) --------------


def _in_mailboxes(people: dict[str, Any], make: Callable[[Mailbox], Any]) -> AccessRows:
    """`make(mailbox)` in the member's mailbox, the owner's, and a mailbox the owner shares with the
    member: the mailbox's people alone see what is in it, its administrators neither."""
    member, owner = people["member"], people["owner"]
    shared = make(mailbox(owner, shared=True, members=(member,)))
    return AccessRows(
        own={"member": [make(mailbox(member)), shared], "owner": [make(mailbox(owner)), shared]}
    )


@access_rows("mail.Mailbox")
def _mailboxes(people: dict[str, Any]) -> AccessRows:
    rows = _in_mailboxes(people, lambda box: box)
    rows.listed = lambda person: listed(person, "listInboxes")
    return rows


def _folder(box: Mailbox) -> Folder:
    return Folder.objects.create(mailbox=box, name="INBOX", role=Folder.Role.INBOX)


@access_rows("mail.Folder")
def _folders(people: dict[str, Any]) -> AccessRows:
    return _in_mailboxes(people, _folder)


@access_rows("mail.Thread")
def _threads(people: dict[str, Any]) -> AccessRows:
    return _in_mailboxes(people, lambda box: Thread.objects.create(mailbox=box, subject="Hello"))


@access_rows("mail.Message")
def _messages(people: dict[str, Any]) -> AccessRows:
    return _in_mailboxes(
        people, lambda box: Message.objects.create(mailbox=box, folder=_folder(box), uid=1, subject="Hello")
    )


@access_rows("mail.Draft")
def _drafts(people: dict[str, Any]) -> AccessRows:
    def draft(box: Mailbox) -> Draft:
        return services.draft_save(
            actor=box.owner, mailbox=box, to=["buyer@example.org"], subject="Hi", body="Hello"
        )

    rows = _in_mailboxes(people, draft)
    rows.listed = lambda person: listed(person, "listDrafts", {"limit": 100})
    return rows


@access_rows("mail.Signature")
def _signatures(people: dict[str, Any]) -> AccessRows:
    return _in_mailboxes(
        people, lambda box: Signature.objects.create(mailbox=box, user=box.owner, text="Best")
    )


@access_rows("mail.Outgoing")
def _outgoing(people: dict[str, Any]) -> AccessRows:
    def outgoing(box: Mailbox) -> Outgoing:
        return Outgoing.objects.create(
            mailbox=box,
            kind="send",
            message_id=f"<{uuid.uuid4().hex}@acme.example>",
            sender=box.address,
            raw=b"",
        )

    return _in_mailboxes(people, outgoing)


@factories.privacy_rows("mail")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's mailbox, with a message and a draft (its people's alone)."""
    box = mailbox(people["owner"], name=f"{marker} box")
    rows.add("mailboxId", "inboxId", record=box)
    thread = Thread.objects.create(mailbox=box, subject=f"{marker} subject")
    rows.add("threadId", record=thread)
    message = Message.objects.create(
        mailbox=box,
        folder=_folder(box),
        thread=thread,
        uid=1,
        subject=f"{marker} subject",
        text=f"{marker} text",
    )
    rows.add("messageId", "emailId", record=message)
