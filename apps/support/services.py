"""Writes of Customer Service. Every door (the tools, the Customer Service page, Celery) calls
these. Public replies are e-mailed through the mail app's outbox (sent once, threaded); internal
notes never leave. Status changes are kept with who and when, and move the SLA clocks."""

import logging
import re
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core import clean, history, records
from apps.core.actors import Actor, can, require
from apps.core.errors import AppError, invalid
from apps.core.records import ANYONE, Visibility
from apps.core.search import tags as clean_tags
from apps.mail import api as mail
from apps.mail.api import Mailbox, Message
from apps.support import errors, hours, placeholders
from apps.support.models import (
    CannedReply,
    Escalation,
    Priority,
    SatisfactionRating,
    SlaPolicy,
    StatusChange,
    SupportMailbox,
    SupportMailboxChange,
    Ticket,
    TicketComment,
    TicketEvent,
)
from apps.support.permissions import SupportPerm

logger = logging.getLogger(__name__)
Status = Ticket.Status
REFERENCE = re.compile(r"\[#(\d{1,18})\]")
NEAR = timedelta(hours=1)  # a target this close is a near breach


# --- statuses and the SLA clocks --------------------------------------------------------------


def policy_for(priority: str) -> SlaPolicy | None:
    return SlaPolicy.objects.filter(priority=priority, deleted_at__isnull=True).first()


def _start_clocks(ticket: Ticket, now: datetime) -> None:
    policy = ticket.policy = policy_for(ticket.priority)
    if policy is None:
        ticket.first_reply_due = ticket.resolution_due = None
        return
    ticket.first_reply_due = hours.add(policy, now, float(policy.first_reply_hours))
    ticket.resolution_due = hours.add(policy, now, float(policy.resolution_hours))


def set_status(ticket: Ticket, new: str, actor: Actor | None, now: datetime | None = None) -> None:
    """Moves a ticket to `new` (saved by the caller): records who and when, pauses the clocks in
    pending and on hold, and moves the due times on by the business time paused when it resumes."""
    now = now or timezone.now()
    old = ticket.status
    if old == new:
        return
    if ticket.paused_at is not None and new not in Ticket.PAUSED:
        paused = hours.between(ticket.policy, ticket.paused_at, now) if ticket.policy else timedelta()
        # A pause without business time in it (a weekend, a night) gives nothing back: moving a
        # due time on by zero would still carry one that sits at a day's close to the next opening.
        if ticket.policy is not None and paused > timedelta():
            hours_paused = paused.total_seconds() / 3600
            if ticket.first_reply_due and ticket.first_replied_at is None:
                ticket.first_reply_due = hours.add(ticket.policy, ticket.first_reply_due, hours_paused)
            if ticket.resolution_due:
                ticket.resolution_due = hours.add(ticket.policy, ticket.resolution_due, hours_paused)
        ticket.paused_at = None
    elif new in Ticket.PAUSED and ticket.paused_at is None:
        ticket.paused_at = now
    if new == Status.SOLVED:
        ticket.solved_at = now
    elif new != Status.CLOSED:
        ticket.solved_at = None
    if new == Status.CLOSED:
        ticket.closed_at = now
    ticket.status, ticket.status_changed_at, ticket.status_changed_by = new, now, person(actor)
    if ticket.pk:
        history.record(StatusChange, actor=actor, ticket=ticket, old=old, new=new, at=now)


def _editable(ticket: Ticket) -> None:
    if ticket.status == Status.CLOSED:
        raise errors.TicketClosed(ticket=ticket.pk)


def _contact_of(actor: Actor | None, email: str) -> Any:
    """The requester's contact, among those the actor sees (an e-mail that arrived: those every
    person sees)."""
    from apps.contacts import api as contacts_api

    return contacts_api.contact_by_email(actor if actor is not None else ANYONE, email)


def _serving() -> Any:
    """The support mailboxes that take mail: shared ones only. A person's own mailbox chosen before
    only shared ones could be (or made private since) serves no more: its mail stays theirs."""
    return SupportMailbox.objects.select_related("mailbox").filter(
        mailbox__deleted_at__isnull=True, mailbox__shared=True
    )


def support_mailbox() -> Mailbox | None:
    row = _serving().first()
    return row.mailbox if row else None


# --- tickets ---------------------------------------------------------------------------------


def ticket_create(
    *,
    actor: Actor | None,
    subject: str,
    text: str,
    requester_email: str = "",
    requester_name: str = "",
    priority: str = Priority.NORMAL,
    channel: str = Ticket.Channel.AGENT,
    assignee: Any = None,
    department: Any = None,
    tags: list[str] | None = None,
    follow_up_of: Ticket | None = None,
    message: Message | None = None,
) -> Ticket:
    """Opens a ticket with its first (public) comment: the requester's words. `actor` None: the
    service, from an inbound e-mail."""
    if actor is not None:
        require(actor, SupportPerm.EDIT)
    subject = " ".join(subject.split())
    if not subject:
        raise invalid("subject", _("a ticket needs a subject"))
    if not text.strip():
        raise invalid("text", _("a ticket needs the requester's words"))
    email = mail.address(requester_email, field="requester_email").lower() if requester_email.strip() else ""
    now = timezone.now()
    with transaction.atomic():
        ticket = Ticket(
            subject=subject[:300],
            requester_email=email,
            requester_name=" ".join(requester_name.split())[:200],
            requester_contact=_contact_of(actor, email),
            channel=channel,
            priority=priority,
            assignee=assignee,
            department=department,
            tags=clean_tags(tags or []),
            follow_up_of=follow_up_of,
            mailbox=message.mailbox if message else support_mailbox(),
            thread=message.thread if message else None,
            created_by=person(actor),
            status_changed_at=now,
            status_changed_by=person(actor),
            status=Status.OPEN if assignee is not None else Status.NEW,
        )
        _start_clocks(ticket, now)
        ticket.save()
        history.record(StatusChange, actor=actor, ticket=ticket, old="", new=ticket.status, at=now)
        TicketComment.objects.create(
            ticket=ticket,
            public=True,
            author_kind=TicketComment.Author.REQUESTER,
            author_email=email,
            body=text.strip(),
            message=message,
            email_id=message.message_id if message else "",
            created_at=message.date if message else now,
        )
    logger.info("ticket %s opened (channel %s)", ticket.pk, channel)
    return ticket


# The statuses an agent moves a ticket to: "new" is only a ticket nobody has handled yet, and
# closing is closeTicket's.
SETTABLE = (Status.OPEN, Status.PENDING, Status.ON_HOLD, Status.SOLVED)


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
    _editable(ticket)
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
    outgoing = None if internal else _email(actor, ticket, text.strip())
    with transaction.atomic():
        return _reply_kept(actor=actor, ticket=ticket, text=text, status=status, outgoing=outgoing)


def _reply_kept(
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


UPDATABLE = ("priority", "assignee", "tags", "ticket_type")


def ticket_update(*, actor: Actor, ticket: Ticket, fields: dict[str, Any]) -> list[str]:
    """Changes a ticket's priority, assignee (None: nobody), tags and type; each change is kept in
    the ticket's history with who made it. A new priority brings its SLA policy's targets,
    counted from when the ticket was opened. Returns the names of the fields that changed."""
    require(actor, SupportPerm.EDIT)
    _editable(ticket)
    unknown = set(fields) - set(UPDATABLE)
    if unknown:
        raise invalid(sorted(unknown)[0], _("only the priority, assignee, tags and type change here"))
    if "priority" in fields and fields["priority"] not in Priority.values:
        raise invalid("priority", _("choose one of {allowed}"), allowed=", ".join(Priority.values))
    if fields.get("ticket_type") not in (None, "", *Ticket.Type.values):
        raise invalid("type", _("choose one of {allowed}"), allowed=", ".join(Ticket.Type.values))
    if "tags" in fields:
        fields = {**fields, "tags": clean_tags(fields["tags"] or [])}
    if "ticket_type" in fields:
        fields = {**fields, "ticket_type": fields["ticket_type"] or ""}
    changes: dict[str, tuple[Any, Any]] = {}
    for name, value in fields.items():
        before = getattr(ticket, name)
        if before != value:
            changes[name] = (before, value)
    if not changes:
        return []
    with transaction.atomic():
        for name, (_before, after) in changes.items():
            setattr(ticket, name, after)
        if "priority" in changes:
            _restart_clocks(ticket)
        if "assignee" in changes and ticket.assignee is not None and ticket.status == Status.NEW:
            set_status(ticket, Status.OPEN, actor)
        ticket.save()
        # People by id in the history, never by name or address: nothing personal stays in it
        # once a person's own row is erased (docs/privacy.md).
        told = {
            name: [getattr(value, "pk", None) for value in pair] if name == "assignee" else list(pair)
            for name, pair in changes.items()
        }
        summary = "; ".join(
            f"{name.replace('ticket_', '')}: {_said(pair, person=name == 'assignee')}"
            for name, pair in told.items()
        )
        history.record(
            TicketEvent,
            actor=actor,
            ticket=ticket,
            kind=TicketEvent.Kind.UPDATED,
            summary=summary,
            changes=told,
        )
    if "assignee" in changes and ticket.assignee is not None and ticket.assignee != person(actor):
        _notify(ticket.assignee, f"Ticket {ticket.reference} assigned to you", ticket, actor)
    return list(changes)


def _said(pair: list[Any], *, person: bool = False) -> str:
    def one(value: Any) -> str:
        if isinstance(value, list):
            return ", ".join(value) or "-"
        if person and value:
            return f"person {value}"
        return str(value or "-")

    return f"{one(pair[0])} -> {one(pair[1])}"


def _restart_clocks(ticket: Ticket) -> None:
    """The targets of the ticket's new priority, from when it was opened (a pause before the
    change is not given back; one running now is, when it ends). Breach warnings start again."""
    opened = ticket.created_at
    policy = ticket.policy = policy_for(ticket.priority)
    if policy is None:
        ticket.first_reply_due = ticket.resolution_due = None
        return
    ticket.first_reply_due = hours.add(policy, opened, float(policy.first_reply_hours))
    ticket.resolution_due = hours.add(policy, opened, float(policy.resolution_hours))
    ticket.sla_notified = []


def merge_check(*, actor: Actor, ticket: Ticket, into: Ticket, across_customers: bool = False) -> None:
    """Everything `ticket_merge` would refuse, checked without writing."""
    require(actor, SupportPerm.EDIT)
    if ticket.pk == into.pk:
        raise invalid("intoTicketId", _("name another ticket than the one merged into it"))
    for each in (ticket, into):
        if each.merged_into_id is not None:
            raise errors.TicketMerged(ticket=each.pk, into=each.merged_into_id)
        _editable(each)
    theirs, others = ticket.requester_email.lower(), into.requester_email.lower()
    if theirs != others and not across_customers:
        raise errors.TicketsOfOtherCustomers(ticket=ticket.pk, into=into.pk)


def ticket_merge(*, actor: Actor, ticket: Ticket, into: Ticket, across_customers: bool = False) -> Ticket:
    """Merges `ticket` into `into` (the one kept): its comments move there (so the customer's
    answers to its e-mails thread into the kept one), its tags join the kept one's, and it closes,
    pointing to the kept one; its status changes, escalations and rating stay with it, linked.
    Both histories keep the merge. Tickets of different requesters only with `across_customers`."""
    merge_check(actor=actor, ticket=ticket, into=into, across_customers=across_customers)
    with transaction.atomic():
        moved = TicketComment.objects.filter(ticket=ticket).update(ticket=into)
        into.tags = clean_tags([*into.tags, *ticket.tags])
        if into.thread_id is None and ticket.thread_id is not None:
            into.thread_id = ticket.thread_id
        if into.status in (Status.NEW, Status.PENDING, Status.SOLVED, Status.ON_HOLD):
            set_status(into, Status.OPEN, actor)
        into.save()
        ticket.merged_into = into
        set_status(ticket, Status.CLOSED, actor)
        ticket.save()
        history.record(
            TicketEvent,
            actor=actor,
            ticket=into,
            kind=TicketEvent.Kind.MERGED,
            summary=f"{ticket.reference} merged into this ticket ({moved} comments moved)",
            changes={"merged": [None, ticket.pk], "comments_moved": moved},
        )
        history.record(
            TicketEvent,
            actor=actor,
            ticket=ticket,
            kind=TicketEvent.Kind.MERGED,
            summary=f"merged into {into.reference} ({moved} comments moved)",
            changes={"merged_into": [None, into.pk], "comments_moved": moved},
        )
    logger.info("ticket %s merged into %s", ticket.pk, into.pk)
    return into


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


def _email(actor: Actor, ticket: Ticket, text: str) -> Any:
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
    _editable(ticket)
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


def ticket_close(*, actor: Actor | None, ticket: Ticket) -> Ticket:
    if actor is not None:
        require(actor, SupportPerm.EDIT)
    _editable(ticket)
    set_status(ticket, Status.CLOSED, actor)
    ticket.save()
    return ticket


def ticket_escalate(
    *,
    actor: Actor,
    ticket: Ticket,
    reason: str,
    department: Any = None,
    owner: Any = None,
    due_at: datetime | None = None,
) -> Escalation:
    """Escalates to a department and/or a person, with a reason and a due time (default: the
    ticket's resolution target)."""
    require(actor, SupportPerm.EDIT)
    _editable(ticket)
    if not reason.strip():
        raise invalid("reason", _("say why it is escalated"))
    if department is None and owner is None:
        raise invalid("owner_email", _("name the department or the person it goes to"))
    if due_at is not None and due_at <= timezone.now():
        raise invalid("due_at", _("the due time must be in the future"))
    with transaction.atomic():
        level = ticket.escalations.count() + 1
        escalation = Escalation.objects.create(
            ticket=ticket,
            level=level,
            reason=reason.strip(),
            department=department,
            owner=owner,
            due_at=due_at or ticket.resolution_due,
            created_by=person(actor),
        )
        if department is not None:
            ticket.department = department
        if owner is not None:
            ticket.assignee = owner
        if ticket.status in (Status.NEW, Status.PENDING, Status.ON_HOLD, Status.SOLVED):
            set_status(ticket, Status.OPEN, actor)
        ticket.save()
    if owner is not None:
        _notify(owner, f"Ticket {ticket.reference} escalated to you", ticket, actor)
    return escalation


def escalation_resolve(*, actor: Actor, escalation: Escalation, resolution: str) -> Escalation:
    require(actor, SupportPerm.EDIT)
    if escalation.resolved_at is not None:
        raise errors.EscalationResolved(escalation=escalation.pk)
    if not resolution.strip():
        raise invalid("resolution", _("say how it was resolved"))
    escalation.resolution, escalation.resolved_at = resolution.strip(), timezone.now()
    escalation.resolved_by = person(actor)
    escalation.save(update_fields=["resolution", "resolved_at", "resolved_by"])
    return escalation


# --- inbound mail ------------------------------------------------------------------------------


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
    if ticket.status in (Status.PENDING, Status.SOLVED, Status.ON_HOLD):
        set_status(ticket, Status.OPEN, None)
    ticket.save()


def addresses_name(header: str) -> str:
    from email.utils import parseaddr

    return parseaddr(header)[0][:200]


def inbound_all() -> int:
    count = 0
    for support in _serving():
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


# --- sweeps (Celery beat) ----------------------------------------------------------------------


def close_solved() -> int:
    """Solved tickets close after ATRIUM_SUPPORT_CLOSE_AFTER_DAYS."""
    cutoff = timezone.now() - timedelta(days=int(settings.ATRIUM_SUPPORT_CLOSE_AFTER_DAYS))
    closed = 0
    for ticket in Ticket.objects.filter(status=Status.SOLVED, solved_at__lt=cutoff, deleted_at__isnull=True):
        ticket_close(actor=None, ticket=ticket)
        closed += 1
    return closed


def sla_warnings(now: datetime | None = None) -> int:
    """Near breaches (within an hour) and breaches of running clocks, told once each to the
    ticket's assignee as a notification."""
    now = now or timezone.now()
    sent = 0
    rows = Ticket.objects.filter(
        deleted_at__isnull=True, paused_at__isnull=True, assignee__isnull=False
    ).exclude(status__in=[Status.SOLVED, Status.CLOSED])
    for ticket in rows.select_related("assignee"):
        found = []
        if ticket.first_replied_at is None and ticket.first_reply_due:
            found.append(("first_reply", ticket.first_reply_due))
        if ticket.resolution_due:
            found.append(("resolution", ticket.resolution_due))
        for clock, due in found:
            state = "breach" if now > due else "near" if now > due - NEAR else ""
            key = f"{clock}:{state}"
            if not state or key in ticket.sla_notified:
                continue
            what = "first reply" if clock == "first_reply" else "resolution"
            verb = "missed its" if state == "breach" else "is close to its"
            _notify(ticket.assignee, f"Ticket {ticket.reference} {verb} {what} target", ticket, None)
            ticket.sla_notified = [*ticket.sla_notified, key]
            Ticket.objects.filter(pk=ticket.pk).update(sla_notified=ticket.sla_notified)
            sent += 1
    return sent


def _notify(recipient: Any, title: str, ticket: Ticket, actor: Actor | None) -> None:
    from apps.notifications import api as notifications

    notifications.notify(recipient=recipient, title=title, body=ticket.subject[:200], actor=actor)


# --- canned replies ----------------------------------------------------------------------------

CANNED_FIELDS = ("title", "body", "visibility", "set_status", "set_priority", "add_tags")


def _shared_by_admins(actor: Actor, *, shared: bool) -> None:
    """A shared canned reply is every agent's words: only the area's administrators write one."""
    if shared and not can(actor, SupportPerm.ADMIN):
        raise errors.SharedCannedReply()


def _canned_fields(actor: Actor, canned: CannedReply, fields: dict[str, Any], creating: bool) -> None:
    if "title" in fields or creating:
        canned.title = clean.text(fields.get("title"), field="title", limit=120, required=True)
    if "body" in fields or creating:
        body = clean.long_text(fields.get("body"), field="body", limit=20_000, required=True)
        canned.body = placeholders.check(body)
    if "visibility" in fields or creating:
        visibility = fields.get("visibility") or Visibility.PRIVATE
        if visibility not in Visibility.values:
            raise invalid("shared", _("choose one of {allowed}"), allowed=", ".join(Visibility.values))
        _shared_by_admins(actor, shared=visibility == Visibility.WORKSPACE)
        canned.visibility = visibility
    if "set_status" in fields:
        status = fields["set_status"] or ""
        if status and status not in SETTABLE:
            raise invalid("setStatus", _("choose one of {allowed}"), allowed=", ".join(SETTABLE))
        canned.set_status = status
    if "set_priority" in fields:
        priority = fields["set_priority"] or ""
        if priority and priority not in Priority.values:
            raise invalid("setPriority", _("choose one of {allowed}"), allowed=", ".join(Priority.values))
        canned.set_priority = priority
    if "add_tags" in fields:
        canned.add_tags = clean_tags(fields["add_tags"] or [], field="addTags")


def canned_create(*, actor: Actor, fields: dict[str, Any]) -> CannedReply:
    """A canned reply of `actor`'s: personal unless `visibility` is "workspace" (administrators)."""
    unknown = set(fields) - set(CANNED_FIELDS)
    if unknown:
        raise invalid(sorted(unknown)[0], _("not a field of a canned reply"))
    return records.create(
        CannedReply,
        actor=actor,
        permission=SupportPerm.EDIT,
        fields=fields,
        apply=_canned_fields,
        owner=person(actor),
    )


def canned_update(*, actor: Actor, canned: CannedReply, fields: dict[str, Any]) -> list[str]:
    """Changes a canned reply the actor may change (a shared one: administrators alone)."""
    _shared_by_admins(actor, shared=canned.shared)
    unknown = set(fields) - set(CANNED_FIELDS)
    if unknown:
        raise invalid(sorted(unknown)[0], _("not a field of a canned reply"))
    return records.update(
        canned,
        actor=actor,
        permission=SupportPerm.EDIT,
        fields=fields,
        apply=_canned_fields,
        names=CANNED_FIELDS,
    )


def canned_delete(*, actor: Actor, canned: CannedReply) -> CannedReply:
    """Puts a canned reply in the trash (a shared one: administrators alone)."""
    require(actor, SupportPerm.EDIT)
    _shared_by_admins(actor, shared=canned.shared)
    canned.trash(actor)
    return canned


def canned_check(
    *, actor: Actor, ticket: Ticket, canned: CannedReply, internal: bool, text: str | None = None
) -> tuple[str, dict[str, Any]]:
    """Everything `canned_use` would refuse, checked without writing: the reply's text (the body
    filled in for the ticket, or `text`, the person's edit of it) and the ticket's changes."""
    if text is None:
        text = placeholders.render(canned.body, ticket=ticket, agent=person(actor))
    respond_check(actor=actor, ticket=ticket, text=text, internal=internal, status=canned.set_status or None)
    changes: dict[str, Any] = {}
    if canned.set_priority:
        changes["priority"] = canned.set_priority
    if canned.add_tags:
        changes["tags"] = clean_tags([*ticket.tags, *canned.add_tags])
    return text, changes


def canned_use(
    *, actor: Actor, ticket: Ticket, canned: CannedReply, internal: bool, text: str | None = None
) -> TicketComment:
    """Applies a canned reply to a ticket: its body, filled in (or `text`), as a reply e-mailed to
    the requester or an internal note, and its actions (status, priority, tags), in one
    transaction with its count of uses; a reply that could not be sent keeps nothing."""
    text, changes = canned_check(actor=actor, ticket=ticket, canned=canned, internal=internal, text=text)
    outgoing = None if internal else _email(actor, ticket, text.strip())
    with transaction.atomic():
        if changes:
            ticket_update(actor=actor, ticket=ticket, fields=changes)
        comment = _reply_kept(
            actor=actor, ticket=ticket, text=text, status=canned.set_status or None, outgoing=outgoing
        )
        CannedReply.objects.filter(pk=canned.pk).update(uses=F("uses") + 1, last_used_at=timezone.now())
    canned.refresh_from_db(fields=["uses", "last_used_at"])
    logger.info("canned reply %s used on ticket %s", canned.pk, ticket.pk)
    return comment
