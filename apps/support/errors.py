"""The Customer Service area's failures (apps.core.errors): each names the problem and what to do."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import Conflict, Forbidden, ValidationFailed


class TicketClosed(Conflict):
    code = "TICKET_CLOSED"
    msg_format = _(
        "Ticket {ticket} is closed and cannot change. A customer's new e-mail about it opens a follow-up "
        "ticket; to log one now, use createCustomerServiceTicket."
    )


class NoSupportMailbox(ValidationFailed):
    code = "NO_SUPPORT_MAILBOX"
    msg_format = _(
        "No support mailbox is set up, so nothing can be e-mailed. An administrator chooses one on the "
        "Customer Service page. Nothing was sent."
    )


class NoRequesterAddress(ValidationFailed):
    code = "NO_REQUESTER_ADDRESS"
    msg_format = _("Ticket {ticket} has no requester e-mail address to answer; add an internal note instead.")


class EscalationResolved(Conflict):
    code = "ESCALATION_RESOLVED"
    msg_format = _("Escalation {escalation} is already resolved.")


class MailboxNotShared(ValidationFailed):
    code = "MAILBOX_NOT_SHARED"
    field = "mailbox"
    msg_format = _(
        "Mailbox {mailbox} is a person's own, not a shared mailbox: its mail would become tickets every "
        "agent reads and replies would leave in that person's name. Choose a shared mailbox (the Mail "
        "page makes one)."
    )


class TicketsOfOtherCustomers(ValidationFailed):
    code = "TICKETS_OF_OTHER_CUSTOMERS"
    msg_format = _(
        "Tickets {ticket} and {into} are of different customers: merged, one customer's thread would "
        "be answered as the other's. Nothing was merged; if they are one request, call again with "
        "acrossCustomers: true."
    )


class TicketMerged(Conflict):
    code = "TICKET_MERGED"
    msg_format = _("Ticket {ticket} was merged into ticket {into}: work on ticket {into}.")


class SharedCannedReply(Forbidden):
    code = "CANNED_REPLY_SHARED"
    msg_format = _(
        "Only Customer Service administrators write shared canned replies, which everyone in support "
        "uses. Nothing was saved; keep it personal (shared: false), or ask an administrator."
    )
