"""Writes of a ticket's comments: an agent's public reply (e-mailed to the requester through the
mail app's outbox, sent once and threaded) or internal note (never e-mailed), and the
requester's own comment and rating; each moves the ticket's status (services.sla)."""

import logging
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.mail import api as mail
from apps.mail.api import Mailbox
from apps.support import errors
from apps.support.models import SatisfactionRating, Ticket, TicketComment
from apps.support.permissions import SupportPerm
from apps.support.services.sla import SETTABLE, set_status
from apps.support.services.tickets import editable, support_mailbox

logger = logging.getLogger(__name__)
Status = Ticket.Status


def _check_status(status: str | None) -> None:
    if status == Status.CLOSED:
        raise invalid("status", _("close a ticket with closeTicket"))
    if status is not None and status not in SETTABLE:
        raise invalid(
            "status",
            _("a ticket is new only until it is first handled; choose one of {allowed}"),
            allowed=", ".join(SETTABLE),
        )


def respond_check(*, actor: Actor, ticket: Ticket, text: str, internal: bool, status: str | None) -> None:
    """Everything `ticket_respond` would refuse, checked without writing: what a reply's
    confirmation is asked after (nobody confirms what cannot be done)."""
    require(actor, SupportPerm.EDIT)
    editable(ticket)
    if not text.strip():
        raise invalid("text", _("write the reply or note"))
    _check_status(status)
    if not internal:
        require(actor, SupportPerm.REPLY)
        _reply_mailbox(ticket)


def ticket_respond(
    *, actor: Actor, ticket: Ticket, text: str, internal: bool, status: str | None
) -> TicketComment:
    """An agent's public reply (e-mailed to the requester through the outbox, threaded) or an
    internal note (never e-mailed). `status` then; a public reply defaults to pending."""
    respond_check(actor=actor, ticket=ticket, text=text, internal=internal, status=status)
    outgoing = None if internal else email_reply(actor, ticket, text.strip())
    with transaction.atomic():
        return reply_kept(actor=actor, ticket=ticket, text=text, status=status, outgoing=outgoing)


def status_set(*, actor: Actor, ticket: Ticket, status: str) -> None:
    """The ticket moved to `status` by hand (the page's choice beside a canned reply's answer)."""
    require(actor, SupportPerm.EDIT)
    editable(ticket)
    _check_status(status)
    if status != ticket.status:
        set_status(ticket, status, actor)
        ticket.save()


def reply_kept(
    *, actor: Actor, ticket: Ticket, text: str, status: str | None, outgoing: Any
) -> TicketComment:
    """The comment of a reply e-mailed as `outgoing` (None: an internal note), and what it does to
    the ticket (the caller's transaction)."""
    if outgoing is None:
        comment = TicketComment.objects.create(
            ticket=ticket, public=False, author_kind="agent", author=person(actor), body=text.strip()
        )
        if status:
            set_status(ticket, status, actor)
            ticket.save()
        return comment
    now = timezone.now()
    comment = TicketComment.objects.create(
        ticket=ticket,
        public=True,
        author_kind="agent",
        author=person(actor),
        body=text.strip(),
        email_id=outgoing.message_id,
        outgoing=outgoing,
    )
    if ticket.first_replied_at is None:
        ticket.first_replied_at = now
    if ticket.assignee_id is None:
        ticket.assignee = person(actor)
    set_status(ticket, status or Status.PENDING, actor, now)
    ticket.save()
    return comment


def _reply_mailbox(ticket: Ticket) -> Mailbox:
    """The mailbox a reply leaves from (the ticket's, while it is a shared one; else the support
    mailbox), once the ticket has an address to answer."""
    mailbox = ticket.mailbox
    if mailbox is None or mailbox.deleted_at is not None or not mailbox.shared:
        mailbox = support_mailbox()
    if mailbox is None:
        raise errors.NoSupportMailbox()
    if not ticket.requester_email:
        raise errors.NoRequesterAddress(ticket=ticket.pk)
    return mailbox


def email_reply(actor: Actor, ticket: Ticket, text: str) -> Any:
    mailbox = _reply_mailbox(ticket)
    last_in = (
        ticket.comments.filter(author_kind="requester", message__isnull=False, message__mailbox=mailbox)
        .select_related("message")
        .order_by("-created_at", "-id")
        .first()
    )
    subject = ticket.subject if ticket.reference in ticket.subject else f"{ticket.subject} {ticket.reference}"
    # No e-mail of theirs to answer (a phone ticket): threaded on what was sent before.
    earlier = (
        [c.email_id for c in ticket.comments.exclude(email_id="").order_by("created_at", "id")]
        if last_in is None
        else []
    )
    row = mail.reply_send(
        actor=actor,
        mailbox=mailbox,
        to=ticket.requester_email,
        subject=subject if subject.lower().startswith("re:") else f"Re: {subject}",
        text=text,
        reply_to=last_in.message if last_in else None,
        earlier=earlier,
    )
    if ticket.mailbox_id != mailbox.pk:
        ticket.mailbox = mailbox
    return row


def requester_comment(
    *, actor: Actor, ticket: Ticket, text: str, satisfied: bool | None = None
) -> TicketComment:
    """The requester's own comment on their ticket (public); a pending or solved ticket opens
    again. `satisfied`: their rating of a solved ticket."""
    require(actor, SupportPerm.REQUEST)
    editable(ticket)
    if not text.strip():
        raise invalid("text", _("write the comment"))
    if satisfied is not None and ticket.status != Status.SOLVED:
        raise invalid("satisfied", _("a ticket is rated once it is solved"))
    with transaction.atomic():
        comment = TicketComment.objects.create(
            ticket=ticket,
            public=True,
            author_kind="requester",
            author=person(actor),
            author_email=ticket.requester_email,
            body=text.strip(),
        )
        if satisfied is not None:
            SatisfactionRating.objects.update_or_create(
                ticket=ticket, defaults={"good": satisfied, "comment": text.strip()}
            )
        elif ticket.status in (Status.PENDING, Status.SOLVED, Status.ON_HOLD):
            set_status(ticket, Status.OPEN, actor)
            ticket.save()
    return comment
