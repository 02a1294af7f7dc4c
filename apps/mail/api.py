"""The mail app's public module: what other areas may use of it (docs/mail.md, "For other areas").
Nothing else of apps.mail is theirs to import.

Sending for the service (any area, the Email Inbox area installed or not):

    invite = api.Attachment("invite.ics", ics, "text/calendar", method="REQUEST")
    api.send([api.Notice(to=[address], subject=..., text=..., reply_to=person.email, attachments=(invite,))])

`send(..., sender=person)` sends from the person's own mailbox where the Email Inbox area is
installed (apps.mail.notices says how each way behaves).

The people's mailboxes, for areas whose tools are doors onto them (Deals, Customer Service):
- one record the actor may use, or the kit's errors: `mailbox`, `message`, `draft`;
  `default_mailbox(actor=)`; `mailboxes(actor, action)` (those the actor may see or change);
  `shared_mailboxes(actor)` (the workspace's shared mailboxes the actor may change: never a
  person's own, for a door every member of another area reads, such as the support mailbox);
  `live_mailboxes()` (every mailbox not removed, for the service's own set-up);
  `incoming(mailbox, since=)` (messages to it, not from its own addresses);
  `inbox_messages(mailbox, since=)`;
- reading: `message_search`, `thread_messages`, `trim_quoted` (a text without its quoted history),
  `message_ids(header)` (the Message-IDs of References), `address(value, field=)` (one address,
  checked: BAD_ADDRESS otherwise);
- sending through the outbox: `mail_new`, `message_reply` (its `attachments`: files of the Files
  area by id, as a draft's, at most `MAX_ATTACHMENTS`), `draft_send` (as a person, with the mail
  app's permissions), `reply_send` and `letter_send` (as the service, for an area that checked its
  own), `outbox_send(row)` (an outbox row sent again: a failed one keeps its Message-ID),
  `mailbox_sync(mailbox=)`;
- the suppression list (campaign mail): `suppressed(address)`, `suppressed_among([...])`,
  `suppression_reasons([...])` (those on it, each with its reason), `suppression_counts(source=, among=)`
  (by reason), `suppression_list()` (newest first),
  `suppress(address, reason=, source=)`, `unsubscribe_headers(address, source=)` (RFC 8058);
- delivery reports (bounces, complaints) the sync reads: `on_delivery_report(handler)` registers
  a handler of each `DeliveryReport` (apps.mail.reports says what it holds), whose `kind` is
  `BOUNCE` or `COMPLAINT`;
- the errors a caller tells apart: `apps.core.errors.EmailNotSent` (the server refused the
  message), `SERVER_PROBLEMS` (the server down, the login refused, the mailbox not connected).

`Mailbox`, `Message`, `Draft` and `Outgoing` are here for foreign keys' and answers' types.
"""

from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from apps.accounts.models import person
from apps.core.actors import Actor
from apps.core.records import Action
from apps.mail import addresses
from apps.mail.content import trim_quoted
from apps.mail.errors import LoginRefused, NotConnected, ServerDown
from apps.mail.models import Draft, Folder, Mailbox, Message, Outgoing
from apps.mail.notices import Attachment, Notice, send
from apps.mail.reports import BOUNCE, COMPLAINT, DeliveryReport, Failure, on_delivery_report
from apps.mail.selectors import default_mailbox, message_search, thread_messages
from apps.mail.sending import deliver as outbox_send
from apps.mail.services import (
    MAX_ATTACHMENTS,
    draft_send,
    letter_send,
    mail_new,
    mailbox_sync,
    message_reply,
    reply_send,
)
from apps.mail.suppression import counts as suppression_counts
from apps.mail.suppression import headers as unsubscribe_headers
from apps.mail.suppression import is_suppressed as suppressed
from apps.mail.suppression import listed as suppression_list
from apps.mail.suppression import reasons_among as suppression_reasons
from apps.mail.suppression import suppress, suppressed_among
from apps.mail.sync import message_ids

__all__ = [
    "BOUNCE",
    "COMPLAINT",
    "MAX_ATTACHMENTS",
    "SERVER_PROBLEMS",
    "Attachment",
    "DeliveryReport",
    "Draft",
    "Failure",
    "Mailbox",
    "Message",
    "Notice",
    "Outgoing",
    "address",
    "default_mailbox",
    "demo_mailbox",
    "demo_support_mailbox",
    "draft",
    "draft_send",
    "inbox_messages",
    "incoming",
    "letter_send",
    "live_mailboxes",
    "mail_new",
    "mailbox",
    "mailbox_sync",
    "mailboxes",
    "message",
    "message_ids",
    "message_reply",
    "message_search",
    "on_delivery_report",
    "outbox_send",
    "reply_send",
    "send",
    "shared_mailboxes",
    "suppress",
    "suppressed",
    "suppressed_among",
    "suppression_counts",
    "suppression_list",
    "suppression_reasons",
    "thread_messages",
    "trim_quoted",
    "unsubscribe_headers",
]

SERVER_PROBLEMS = (ServerDown, LoginRefused, NotConnected)


def address(value: str, *, field: str = "to") -> str:
    """One e-mail address, checked and lower-cased: BAD_ADDRESS naming `field` otherwise."""
    return addresses.one(value, field=field)


def mailbox(*, actor: Actor, mailbox_id: int) -> Mailbox:
    found: Mailbox = Mailbox.objects.fetch(actor, mailbox_id)
    return found


def message(*, actor: Actor, message_id: int) -> Message:
    found: Message = Message.objects.select_related("folder", "mailbox").fetch(actor, message_id)
    return found


def draft(*, actor: Actor, draft_id: int) -> Draft:
    found: Draft = Draft.objects.select_related("mailbox", "reply_to").fetch(actor, draft_id)
    return found


def mailboxes(actor: Actor | None, action: Action = "view") -> QuerySet[Mailbox]:
    """The mailboxes `actor` may `action` (the mail area's administrators: every one to change)."""
    return Mailbox.objects.restrict(actor, action)


def shared_mailboxes(actor: Actor | None) -> QuerySet[Mailbox]:
    """The shared mailboxes `actor` may change, not removed (a person's own mailbox is never one)."""
    return mailboxes(actor, "change").filter(shared=True, deleted_at__isnull=True)


def live_mailboxes() -> QuerySet[Mailbox]:
    return Mailbox.objects.filter(deleted_at__isnull=True)


def incoming(mailbox: Mailbox, *, since: datetime) -> QuerySet[Message]:
    """The messages of `mailbox` dated from `since` on, but those from its own addresses."""
    own = {mailbox.address.lower(), *(value.lower() for value in mailbox.send_as)}
    return Message.objects.filter(mailbox=mailbox, date__gte=since).exclude(from_address__in=own)


def inbox_messages(mailbox: Mailbox, *, since: datetime) -> QuerySet[Message]:
    """The messages of `mailbox`'s inbox dated from `since` on."""
    return Message.objects.filter(mailbox=mailbox, folder__role=Folder.Role.INBOX, date__gte=since)


def demo_support_mailbox(*, people: list[Any], domain: str) -> Mailbox:
    """For the demo workspaces (seed_demo): the shared Support mailbox, made when missing (the mail
    area's demo, seeded later, fills it)."""
    from apps.mail import demo

    return demo.support_mailbox(people=people, domain=domain)


def demo_mailbox(owner: Actor) -> Mailbox:
    """For the demo workspaces (seed_demo): the mailbox at the person's address, made without a
    server login when missing (the mail area's demo, seeded later, fills it)."""
    email = str(getattr(owner, "email", ""))
    found = Mailbox.objects.filter(address=email).first()
    if found is not None:
        return found
    made: Mailbox = Mailbox.objects.create(
        name=email.partition("@")[0].capitalize(), address=email, owner=person(owner)
    )
    return made
