"""The Customer Service area, as the rest of the service knows it (apps.core.areas). Tickets of
the workspace's own customers, on the mail app (apps.mail)."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem
from apps.support.permissions import SupportPerm

area = areas.declare(
    # As SPEC.md 4.7 names the area; its app is apps.support.
    key="customerservice",
    title=_("Customer Service"),
    group=areas.Group.SALES,
    description=_("Customer tickets from e-mail: replies, internal notes, SLA targets, escalations"),
    words="ticket support helpdesk customer service request complaint case queue sla",
    hints={
        "getCustomerServiceOverview": (
            "support queue dashboard open tickets breaches unassigned, how many open pending"
        ),
        "getSupportSummary": (
            "support mailboxes address sla policies business hours statuses priorities auto close, "
            "first response time targets"
        ),
        "createCustomerServiceTicket": "log open raise a new ticket case for a customer who called or wrote",
        "searchTickets": (
            "find tickets from a customer overdue pending urgent assigned to me or nobody, read a ticket's "
            "conversation"
        ),
        "respondToTicket": (
            "answer reply to a customer ticket email, update the customer, add an internal note"
        ),
        "addMyTicketComment": "comment on my own ticket I raised as requester rate it",
        "escalateTicket": "escalate a ticket to a department team manager tier 2, pass it to someone senior",
        "resolveEscalation": "escalation handled resolved done dealt with",
        "closeTicket": "close finish shut a solved ticket",
        "updateTicket": "priority assignee tags type, reassign, retag, raise or lower",
        "mergeTickets": "merge duplicates, combine two into one",
        "listCannedReplies": "saved replies canned macros templates we have",
        "applyCannedReply": "send use a canned reply macro saved template",
        "manageCannedReply": "save create edit rename delete a canned reply macro saved template",
    },
    profiles={
        # The queue's everyday work (the profile holds at most 40 tools with the other areas': the
        # settings' getSupportSummary is in admin, a requester's own addMyTicketComment in people;
        # for the canned replies, createNotification, getDepartment and examineContact left it,
        # and stay in the profiles of the jobs that use them most).
        "support": (
            "getCustomerServiceOverview",
            "searchTickets",
            "createCustomerServiceTicket",
            "respondToTicket",
            "updateTicket",
            "mergeTickets",
            "escalateTicket",
            "resolveEscalation",
            "closeTicket",
            "listCannedReplies",
            "applyCannedReply",
            "manageCannedReply",
        ),
        "admin": ("getSupportSummary",),
        "people": ("addMyTicketComment",),
    },
    nav=[NavItem("support", _("Customer Service"), "support:queue", SupportPerm.VIEW, order=37)],
    kinds=[
        Kind(
            "ticket",
            "support.Ticket",
            title="subject",
            person_email="requester_email",
            url=page("support:ticket", "ticket_id"),
            search=("subject", "requester_name", "requester_email"),
        )
    ],
    not_kinds={
        "support.SlaPolicy": "part of Customer Service's set-up, the response targets tickets are held to",
        "support.TicketComment": "a reply or a note on a ticket, reached through the ticket",
        "support.Escalation": "a step of a ticket's handling, reached through the ticket",
        "support.CannedReply": "words an agent reuses on tickets (listCannedReplies), not named or followed",
    },
    periodic={
        # The support mailbox's new mail (as the mail app synchronised it) into tickets.
        "support-inbound": areas.Periodic("apps.support.tasks.take_inbound_mail", crontab(minute="*")),
        # Near breaches and breaches of the SLA targets, told once to the assignee.
        "support-sla": areas.Periodic("apps.support.tasks.warn_sla", crontab(minute="*/5")),
        # Solved tickets close after ATRIUM_SUPPORT_CLOSE_AFTER_DAYS.
        "support-close-solved": areas.Periodic("apps.support.tasks.close_solved", crontab(minute=23)),
    },
    settings={
        # Days a solved ticket stays solved (the requester may still answer) before it closes.
        "ATRIUM_SUPPORT_CLOSE_AFTER_DAYS": env.int("ATRIUM_SUPPORT_CLOSE_AFTER_DAYS", 4, min=1),
    },
)
