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

# Written later, as people say it: colloquial verbs, British and American words, a few typos.
REQUESTS += [
    ("open a ticket for the customer whose parcel never arrived", "createCustomerServiceTicket"),
    ("answer the complaint from Mrs Patel about the late delivery", "respondToTicket"),
    ("bump this ticket up to the billing team", "escalateTicket"),
    ("how's the helpdesk queue looking, anything breaching sla", "getCustomerServiceOverview"),
    ("find support tickets about refunds", "searchTickets"),
    ("this case is sorted, close it off", "closeTicket"),
    ("what are our response time targets for urgent tickets", "getSupportSummary"),
    ("the escalation is dealt with, note how we fixed it", "resolveEscalation"),
    ("log a support case for Mr Lee, his login doesn't work", "createCustomerServiceTicket"),
    ("reply to the customer on ticket 42 that we shipped a replacement", "respondToTicket"),
    ("hand this ticket to the tech team as urgent", "escalateTicket"),
    ("which tickets have breached their SLA", ("getCustomerServiceOverview", "searchTickets")),
    ("mark the ticket as closed", "closeTicket"),
    ("find the complaints about late deliveries", "searchTickets"),
    ("the customer replied, add a comment to my ticket", "addMyTicketComment"),
    ("what are our support hours and SLAs", "getSupportSummary"),
    ("escalate ticket 77 to a manager", "escalateTicket"),
    ("open a new helpdesk ticket", "createCustomerServiceTicket"),
    # Written from the area's docs, knowing the search, to find what it did not generalise to.
    ("which tickets breached their SLA this week", "searchTickets"),
    ("what are our SLA targets and business hours", "getSupportSummary"),
    ("a customer emailed about a broken login, open a ticket", "createCustomerServiceTicket"),
    ("put an internal note on ticket 77", "respondToTicket"),
    ("hand ticket 77 to the billing team with a reason", "escalateTicket"),
    ("the escalation on 77 is resolved", "resolveEscalation"),
    ("close 77", "closeTicket"),
    ("how's the support queue", "getCustomerServiceOverview"),
]

# updateTicket and mergeTickets (beyond SPEC.md's catalogue), written before their hints.
REQUESTS += [
    ("raise ticket 12 to urgent priority", "updateTicket"),
    ("reassign the ticket to Priya", "updateTicket"),
    ("tag ticket 40 as billing and refund", "updateTicket"),
    ("mark this ticket as an incident", "updateTicket"),
]
REQUESTS += [
    ("ticket 51 is a duplicate of 50, merge them", "mergeTickets"),
    ("the customer wrote twice about the same order, combine the two tickets", "mergeTickets"),
]

# The canned replies (beyond SPEC.md's catalogue), written before their hints.
REQUESTS += [
    ("send the refund-policy canned reply on ticket 12", "applyCannedReply"),
    ("use our macro for password resets on this ticket", "applyCannedReply"),
    ("which saved replies do we have for shipping questions", "listCannedReplies"),
    ("show my canned responses", "listCannedReplies"),
    ("save this answer as a canned reply for the team", "manageCannedReply"),
    ("delete the old holiday-hours macro", "manageCannedReply"),
    # Written from the docs by someone who knew the search, to look for kinds of request it missed.
    ("a customer emailed that their order never arrived, open a ticket", "createCustomerServiceTicket"),
    ("what tickets are breaching their SLA", ("searchTickets", "getCustomerServiceOverview")),
    ("reply to ticket 88 saying the refund is on its way", "respondToTicket"),
    ("this ticket needs to go to the billing team urgently", "escalateTicket"),
    ("tickets 41 and 42 are the same issue, combine them", "mergeTickets"),
    ("set ticket 19 to high priority and give it to Sam", "updateTicket"),
    ("we've fixed the problem on ticket 12, close it", "closeTicket"),
    ("use the password reset macro on ticket 77", "applyCannedReply"),
    ("create a saved reply for shipping delays", "manageCannedReply"),
    ("how is the support queue looking today", "getCustomerServiceOverview"),
    ("the escalation on ticket 30 is sorted, record how", "resolveEscalation"),
]
