"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("how is the support queue doing, any SLA breaches", "getCustomerServiceOverview"),
    ("customer service dashboard: open and unassigned tickets", "getCustomerServiceOverview"),
    ("what are our SLA targets and the support mailbox address", "getSupportSummary"),
    ("support settings business hours per priority", "getSupportSummary"),
    ("a customer just called about a missing invoice, log a ticket", "createCustomerServiceTicket"),
    ("open a new support ticket for Priya", "createCustomerServiceTicket"),
    ("find the tickets from sam.ortiz that are pending", "searchTickets"),
    ("which urgent tickets are overdue", "searchTickets"),
    ("reply to the customer on ticket 12 that it is fixed", "respondToTicket"),
    ("add an internal note to the ticket", "respondToTicket"),
    ("comment on my own ticket that the problem is back", "addMyTicketComment"),
    ("rate my solved support ticket as good", "addMyTicketComment"),
    ("escalate this ticket to the engineering department", "escalateTicket"),
    ("hand the complaint over to a manager, tier 2", "escalateTicket"),
    ("the escalation is handled, mark it resolved", "resolveEscalation"),
    ("close the solved ticket", "closeTicket"),
]
