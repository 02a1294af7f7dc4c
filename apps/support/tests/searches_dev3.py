"""Requests for searchTools written blind (fourth round), from the docs and the tools' descriptions."""

DEV = [
    (
        "a customer, Paula Grey paula@grey.ie, says her order never arrived - open a ticket",
        "createCustomerServiceTicket",
    ),
    ("log an urgent ticket: checkout page is down for Delmar Ltd", "createCustomerServiceTicket"),
    ("how's the support queue looking today", "getCustomerServiceOverview"),
    ("how many tickets have breached SLA", "getCustomerServiceOverview"),
    ("what needs attention in customer service", "getCustomerServiceOverview"),
    ("find tickets from mike@tannery.co", "searchTickets"),
    ("show me the thread of ticket 4821", "searchTickets"),
    ("which high priority tickets are assigned to Nora and still open", "searchTickets"),
    ("is there anything overdue with Acme's tickets?", "searchTickets"),
    ("tickets tagged 'shipping' that are pending", "searchTickets"),
    ("reply to the customer on the refund ticket that the money's on its way", "respondToTicket"),
    ("add an internal note to ticket 311 that we're waiting on the warehouse", "respondToTicket"),
    ("escalate the data loss ticket to the engineering department, needs fixing by Friday", "escalateTicket"),
    ("this complaint needs a manager, pass it up to Helen", "escalateTicket"),
    ("the escalation on the billing bug is sorted - engineering patched it", "resolveEscalation"),
    ("close ticket 902, customer confirmed it's fixed", "closeTicket"),
    ("shut the duplicate ticket about the login issue", "closeTicket"),
    ("what's our first response target for urgent tickets", "getSupportSummary"),
    ("which address do customers email for support and when do tickets auto-close", "getSupportSummary"),
    ("add a comment to the ticket I raised about my laptop: still broken", "addMyTicketComment"),
    ("my ticket was solved, rate it as satisfied", "addMyTicketComment"),
]
