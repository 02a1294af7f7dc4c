"""Requests for searchTools written blind (fifth round), from the docs and the tools' descriptions."""

DEV = [
    ("how's the support queue looking, anything breaching SLA?", "getCustomerServiceOverview"),
    ("how many tickets are open right now?", "getCustomerServiceOverview"),
    ("what are our SLA targets for urgent tickets?", "getSupportSummary"),
    ("what's the support email address and when do tickets auto-close?", "getSupportSummary"),
    (
        "log a ticket: Jane at Pinewood can't log in to the portal, high priority",
        "createCustomerServiceTicket",
    ),
    ("open a case for the customer whose order arrived damaged", "createCustomerServiceTicket"),
    ("find tickets from Orion about billing", "searchTickets"),
    ("show me the thread on ticket 4512", "searchTickets"),
    ("reply to the customer on ticket 220 that a fix is coming on Monday", "respondToTicket"),
    ("add an internal note to the ticket: waiting on the dev team", "respondToTicket"),
    ("bump ticket 88 to urgent and assign it to Priya", "updateTicket"),
    ("tag the ticket as 'refund'", "updateTicket"),
    ("these two tickets are the same issue, merge them", "mergeTickets"),
    ("I reported a problem last week, add a comment to my ticket", "addMyTicketComment"),
    ("rate my solved ticket 5 stars", "addMyTicketComment"),
    ("escalate the outage ticket to enginering, needed by 5pm", "escalateTicket"),
    ("engineering fixed it, close off the escalation", "resolveEscalation"),
    ("close ticket 301, it's done", "closeTicket"),
    ("what macros have we got for refunds?", "listCannedReplies"),
    ("save a canned response for password reset requests", "manageCannedReply"),
    ("answer ticket 77 with the 'shipping delay' macro", "applyCannedReply"),
]
