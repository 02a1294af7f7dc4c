"""Customer Service's SLA clocks and a ticket's statuses: the policy of a priority, the targets
started (and started again when the priority changes) in business time (apps.support.hours),
pauses in pending and on hold given back when the ticket resumes, every status change kept with
who and when; the sweep that tells assignees of near breaches and breaches."""

import logging
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from apps.accounts.models import person
from apps.core import history
from apps.core.actors import Actor
from apps.support import hours
from apps.support.models import SlaPolicy, StatusChange, Ticket

logger = logging.getLogger(__name__)
Status = Ticket.Status


NEAR = timedelta(hours=1)  # a target this close is a near breach


# The statuses an agent moves a ticket to: "new" is only a ticket nobody has handled yet, and
# closing is closeTicket's.
SETTABLE = (Status.OPEN, Status.PENDING, Status.ON_HOLD, Status.SOLVED)


def policy_for(priority: str) -> SlaPolicy | None:
    return SlaPolicy.objects.filter(priority=priority, deleted_at__isnull=True).first()


def start_clocks(ticket: Ticket, now: datetime) -> None:
    policy = ticket.policy = policy_for(ticket.priority)
    if policy is None:
        ticket.first_reply_due = ticket.resolution_due = None
        return
    ticket.first_reply_due = hours.add(policy, now, float(policy.first_reply_hours))
    ticket.resolution_due = hours.add(policy, now, float(policy.resolution_hours))


def restart_clocks(ticket: Ticket) -> None:
    """The targets of the ticket's new priority, from when it was opened (a pause before the
    change is not given back; one running now is, when it ends). Breach warnings start again."""
    start_clocks(ticket, ticket.created_at)
    if ticket.policy is not None:
        ticket.sla_notified = []


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
            notify(ticket.assignee, f"Ticket {ticket.reference} {verb} {what} target", ticket, None)
            ticket.sla_notified = [*ticket.sla_notified, key]
            Ticket.objects.filter(pk=ticket.pk).update(sla_notified=ticket.sla_notified)
            sent += 1
    return sent


def notify(recipient: Any, title: str, ticket: Ticket, actor: Actor | None) -> None:
    from apps.notifications import api as notifications

    notifications.notify(recipient=recipient, title=title, body=ticket.subject[:200], actor=actor)
