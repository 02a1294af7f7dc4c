"""Customer Service's inbound mail: the support mailbox chosen (a shared one, by the area's
administrators), and its new messages, as the mail app synchronised them, into tickets or
comments of tickets (each message once, by its Message-ID), by Celery beat."""

import logging
import re
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from apps.core import history
from apps.core.actors import Actor, require
from apps.core.errors import AppError
from apps.mail import api as mail
from apps.mail.api import Mailbox, Message
from apps.support import errors
from apps.support.models import SupportMailbox, SupportMailboxChange, Ticket, TicketComment
from apps.support.permissions import SupportPerm
from apps.support.services.sla import set_status
from apps.support.services.tickets import serving, support_mailbox, ticket_create

logger = logging.getLogger(__name__)
Status = Ticket.Status


REFERENCE = re.compile(r"\[#(\d{1,18})\]")


def inbound(*, support: SupportMailbox) -> int:
    """Turns the support mailbox's new inbound messages (as the mail app synchronised them) into
    tickets or comments of tickets. Each message once (by its Message-ID). Returns how many."""
    mailbox = support.mailbox
    done = TicketComment.objects.exclude(email_id="").values("email_id")
    rows = (
        mail.inbox_messages(mailbox, since=support.since)
        .exclude(message_id__in=done)
        .exclude(pk__in=TicketComment.objects.filter(message__isnull=False).values("message"))
        .exclude(from_address=mailbox.address.lower())
        .select_related("thread", "mailbox")
        .order_by("date", "id")
    )
    count = 0
    for message in rows[:200]:
        with transaction.atomic():
            _take(message)
        count += 1
    if count:
        logger.info("support mailbox %s: %s messages into tickets", mailbox.pk, count)
    return count


def _ticket_of(message: Message) -> Ticket | None:
    related = [*mail.message_ids(message.references), message.in_reply_to]
    related = [value for value in related if value]
    if related:
        found = TicketComment.objects.filter(email_id__in=related).select_related("ticket").last()
        if found is not None and found.ticket.deleted_at is None:
            return found.ticket
    match = REFERENCE.search(message.subject)
    if match:
        named = Ticket.objects.filter(pk=int(match[1]), deleted_at__isnull=True).first()
        # The reference alone is a guess anyone can write: it counts from the requester only.
        if named is not None and named.requester_email == message.from_address:
            return named
    if message.thread_id:
        return (
            Ticket.objects.filter(thread_id=message.thread_id, deleted_at__isnull=True)
            .order_by("-id")
            .first()
        )
    return None


def _take(message: Message) -> None:
    ticket = _ticket_of(message)
    for _hop in range(10):  # a merged ticket's mail goes to the one it was merged into
        if ticket is None or ticket.merged_into_id is None:
            break
        ticket = Ticket.objects.filter(pk=ticket.merged_into_id, deleted_at__isnull=True).first()
    # A customer's answer quotes the thread the ticket already holds: the ticket keeps what is new
    # (the whole e-mail stays in the mail app, linked from the comment).
    text = message.text.strip()
    if ticket is not None:
        text = mail.trim_quoted(text)[0] or text
    text = text or "(no text)"
    try:
        sender = mail.address(message.from_address, field="from") if message.from_address else ""
    except AppError:
        sender = ""  # a From no reply can go to: the ticket is opened all the same, unanswerable
    if ticket is not None and message.automatic:
        # An out-of-office answering the ticket's mail: kept with it, and nothing more (it does
        # not reopen the ticket, restart its clocks or open a follow-up of a closed one).
        _comment(ticket, message, text)
        ticket.save()
        return
    if ticket is None or ticket.status == Status.CLOSED:
        ticket_create(
            actor=None,
            subject=REFERENCE.sub("", message.subject).strip() or "(no subject)",
            text=text,
            requester_email=sender,
            requester_name=addresses_name(message.sender),
            channel=Ticket.Channel.EMAIL,
            follow_up_of=ticket,
            message=message,
        )
        return
    _comment(ticket, message, text)
    if ticket.status in (Status.PENDING, Status.SOLVED, Status.ON_HOLD):
        set_status(ticket, Status.OPEN, None)
    ticket.save()


def _comment(ticket: Ticket, message: Message, text: str) -> None:
    TicketComment.objects.create(
        ticket=ticket,
        public=True,
        author_kind="requester",
        author_email=message.from_address,
        body=text,
        message=message,
        email_id=message.message_id,
        # When it reached the ticket: a Date header is the sender's (and to the second).
        created_at=timezone.now(),
    )
    if ticket.thread_id is None and message.thread_id:
        ticket.thread = message.thread


def addresses_name(header: str) -> str:
    from email.utils import parseaddr

    return parseaddr(header)[0][:200]


def inbound_all() -> int:
    count = 0
    for support in serving():
        try:
            count += inbound(support=support)
        except AppError as error:
            logger.warning("support mailbox %s: inbound failed (%s)", support.mailbox_id, error.code)
    return count


# A Date header is the sender's clock, to the second: mail sent in the moment the mailbox is chosen
# may be dated a little before it.
CLOCK_SKEW = timedelta(minutes=1)


def starting_point(now: datetime | None = None) -> datetime:
    """From when a newly chosen support mailbox's mail becomes tickets: now, to the whole second
    and a minute of the senders' clocks before it, so that no message arriving after the choice
    is dated before it (the mail app reads the Date header, without fractions of a second)."""
    return (now or timezone.now()).replace(microsecond=0) - CLOCK_SKEW


def support_mailbox_set(*, actor: Actor, mailbox: Mailbox | None, since: datetime | None = None) -> None:
    """Chooses the support mailbox (administrators), among the shared mailboxes they may change:
    its inbound mail from now (or `since`) on. A change is kept with who made it and when."""
    require(actor, SupportPerm.ADMIN)
    if mailbox is not None and not mail.shared_mailboxes(actor).filter(pk=mailbox.pk).exists():
        raise errors.MailboxNotShared(mailbox=mailbox.pk)
    with transaction.atomic():
        before = support_mailbox()
        SupportMailbox.objects.exclude(mailbox=mailbox).delete()
        if mailbox is not None:
            SupportMailbox.objects.get_or_create(
                mailbox=mailbox, defaults={"since": since or starting_point()}
            )
        if before != mailbox:
            history.record(
                SupportMailboxChange,
                actor=actor,
                old_address=before.address if before else "",
                new_address=mailbox.address if mailbox else "",
            )
            logger.info("support mailbox changed to %s", mailbox.pk if mailbox else None)
