"""Writes of Customer Service's tickets: opened (with the requester's first words), changed,
merged, escalated, closed (and closed after being solved a while, by Celery beat); the support
mailbox a ticket's mail goes through. Status changes move the SLA clocks (services.sla); replies
and notes are services.comments."""

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core import clean, history
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.core.records import ANYONE
from apps.core.search import tags as clean_tags
from apps.mail import api as mail
from apps.mail.api import Mailbox, Message
from apps.support import errors
from apps.support.models import (
    Escalation,
    Priority,
    StatusChange,
    SupportMailbox,
    Ticket,
    TicketComment,
    TicketEvent,
)
from apps.support.permissions import SupportPerm
from apps.support.services.sla import notify, restart_clocks, set_status, start_clocks

logger = logging.getLogger(__name__)
Status = Ticket.Status


def editable(ticket: Ticket) -> None:
    if ticket.status == Status.CLOSED:
        raise errors.TicketClosed(ticket=ticket.pk)


def works_tickets(someone: Any, field: str) -> None:
    """A ticket goes only to someone whose role can work it (reply, change, close it)."""
    clean.able(someone, SupportPerm.EDIT, field=field)


def same_customer(ticket: Ticket, other: Ticket) -> bool:
    """Whether two tickets are one customer's: the same e-mail address, or the same contact. Two
    without either (calls logged by hand) are not known to be."""
    theirs, others = ticket.requester_email.lower(), other.requester_email.lower()
    if theirs and theirs == others:
        return True
    return (
        ticket.requester_contact_id is not None and ticket.requester_contact_id == other.requester_contact_id
    )


def _contact_of(actor: Actor | None, email: str) -> Any:
    """The requester's contact, among those the actor sees (an e-mail that arrived: those every
    person sees)."""
    from apps.contacts import api as contacts_api

    return contacts_api.contact_by_email(actor if actor is not None else ANYONE, email)


def serving() -> Any:
    """The support mailboxes that take mail: shared ones only. A person's own mailbox chosen before
    only shared ones could be (or made private since) serves no more: its mail stays theirs."""
    return SupportMailbox.objects.select_related("mailbox").filter(
        mailbox__deleted_at__isnull=True, mailbox__shared=True
    )


def support_mailbox() -> Mailbox | None:
    row = serving().first()
    return row.mailbox if row else None


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
    works_tickets(assignee, "assigneeEmail")
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
        start_clocks(ticket, now)
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


UPDATABLE = ("priority", "assignee", "tags", "ticket_type")


def ticket_update(*, actor: Actor, ticket: Ticket, fields: dict[str, Any]) -> list[str]:
    """Changes a ticket's priority, assignee (None: nobody), tags and type; each change is kept in
    the ticket's history with who made it. A new priority brings its SLA policy's targets,
    counted from when the ticket was opened. Returns the names of the fields that changed."""
    require(actor, SupportPerm.EDIT)
    editable(ticket)
    unknown = set(fields) - set(UPDATABLE)
    if unknown:
        raise invalid(sorted(unknown)[0], _("only the priority, assignee, tags and type change here"))
    if "priority" in fields and fields["priority"] not in Priority.values:
        raise invalid("priority", _("choose one of {allowed}"), allowed=", ".join(Priority.values))
    if fields.get("ticket_type") not in (None, "", *Ticket.Type.values):
        raise invalid("type", _("choose one of {allowed}"), allowed=", ".join(Ticket.Type.values))
    if "tags" in fields:
        fields = {**fields, "tags": clean_tags(fields["tags"] or [])}
    if "assignee" in fields:
        works_tickets(fields["assignee"], "assigneeEmail")
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
            restart_clocks(ticket)
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
        notify(ticket.assignee, f"Ticket {ticket.reference} assigned to you", ticket, actor)
    return list(changes)


def _said(pair: list[Any], *, person: bool = False) -> str:
    def one(value: Any) -> str:
        if isinstance(value, list):
            return ", ".join(value) or "-"
        if person and value:
            return f"person {value}"
        return str(value or "-")

    return f"{one(pair[0])} -> {one(pair[1])}"


def merge_check(*, actor: Actor, ticket: Ticket, into: Ticket, across_customers: bool = False) -> None:
    """Everything `ticket_merge` would refuse, checked without writing."""
    require(actor, SupportPerm.EDIT)
    if ticket.pk == into.pk:
        raise invalid("intoTicketId", _("name another ticket than the one merged into it"))
    for each in (ticket, into):
        if each.merged_into_id is not None:
            raise errors.TicketMerged(ticket=each.pk, into=each.merged_into_id)
        editable(each)
    if not across_customers and not same_customer(ticket, into):
        raise errors.TicketsOfOtherCustomers(ticket=ticket.pk, into=into.pk)
    clean_tags([*into.tags, *ticket.tags])  # the kept ticket takes both's tags: at most so many


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


def ticket_close(*, actor: Actor | None, ticket: Ticket) -> Ticket:
    if actor is not None:
        require(actor, SupportPerm.EDIT)
    editable(ticket)
    set_status(ticket, Status.CLOSED, actor)
    ticket.save()
    return ticket


def close_solved() -> int:
    """Solved tickets close after ATRIUM_SUPPORT_CLOSE_AFTER_DAYS."""
    cutoff = timezone.now() - timedelta(days=int(settings.ATRIUM_SUPPORT_CLOSE_AFTER_DAYS))
    closed = 0
    for ticket in Ticket.objects.filter(status=Status.SOLVED, solved_at__lt=cutoff, deleted_at__isnull=True):
        ticket_close(actor=None, ticket=ticket)
        closed += 1
    return closed


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
    editable(ticket)
    if not reason.strip():
        raise invalid("reason", _("say why it is escalated"))
    if department is None and owner is None:
        raise invalid("owner_email", _("name the department or the person it goes to"))
    works_tickets(owner, "ownerEmail")
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
        changes: dict[str, list[Any]] = {}
        if department is not None and department.pk != ticket.department_id:
            changes["department"] = [ticket.department_id, department.pk]
            ticket.department = department
        if owner is not None and owner.pk != ticket.assignee_id:
            changes["assignee"] = [ticket.assignee_id, owner.pk]
            ticket.assignee = owner
        if ticket.status in (Status.NEW, Status.PENDING, Status.ON_HOLD, Status.SOLVED):
            set_status(ticket, Status.OPEN, actor)
        ticket.save()
        # People and departments by id in the history, as `ticket_update` keeps them.
        history.record(
            TicketEvent,
            actor=actor,
            ticket=ticket,
            kind=TicketEvent.Kind.ESCALATED,
            summary="; ".join(
                [f"escalated (level {level})"]
                + [f"{name}: {_said(pair, person=name == 'assignee')}" for name, pair in changes.items()]
            ),
            changes={"escalation": [None, escalation.pk], **changes},
        )
    if owner is not None:
        notify(owner, f"Ticket {ticket.reference} escalated to you", ticket, actor)
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
