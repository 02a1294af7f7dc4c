"""Held-out search requests for Customer Service: written from the area's docs before its search hints,
never used to change hints, vocabulary or weights (docs/catalogue.md, "How searchTools ranks")."""

HELD_OUT = [
    ("log a ticket: customer Jean Dupont can't log in to the portal", "createCustomerServiceTicket"),
    (
        "open a support case for the late delivery complaint from mrs.hughes@example.com",
        "createCustomerServiceTicket",
    ),
    ("reply to ticket 482 telling them the refund is on its way", "respondToTicket"),
    ("add an internal note on ticket 77 that engineering is looking into it", "respondToTicket"),
    ("escalte the outage ticket to the engineering department", "escalateTicket"),
    ("hand the angry customer's ticket to Mia, it needs sorting today", "escalateTicket"),
    ("the escalation about the billing error is sorted, record how we fixed it", "resolveEscalation"),
    ("close ticket 1031", "closeTicket"),
    ("how's the support queue looking, any SLA breaches?", "getCustomerServiceOverview"),
    ("what are our response time targets for urgent tickets?", "getSupportSummary"),
    ("which address do customers write to for help?", "getSupportSummary"),
    ("find tickets from Ben at Lowther about invoices", "searchTickets"),
    ("show me all high priority tickets that have blown their SLA", "searchTickets"),
    ("read the whole conversation on ticket 215", "searchTickets"),
    ("add a comment to my own ticket saying the problem came back", "addMyTicketComment"),
    ("rate my solved ticket as good", "addMyTicketComment"),
    ("open tickets assigned to me", "searchTickets"),
    ("respnd to the customer on the printer ticket", "respondToTicket"),
    ("what needs attention in customer service today?", "getCustomerServiceOverview"),
    ("that complaint is dealt with, shut it for good", "closeTicket"),
]
