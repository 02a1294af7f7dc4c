"""Development search requests for Customer Service: written from the area's docs by someone who
has not seen the search, used to improve the search in general ways, and so part of its tuning
part since (docs/catalogue.md, "The measure, in two parts")."""

DEV = [
    ("a customer just phoned about a broken kettle, log it as a ticket", "createCustomerServiceTicket"),
    ("open a case for Mrs Dunmore, her order arrived damaged, high priority", "createCustomerServiceTicket"),
    ("raise a ticket for the client whose login keeps failing", "createCustomerServiceTicket"),
    ("reply to ticket 4521 telling them the refund's been processed", "respondToTicket"),
    ("add an internal note on the Baxter ticket that finance is checking", "respondToTicket"),
    ("answer the customer on the missing parcel case", "respondToTicket"),
    ("update the cusotmer that we're still investigating their issue", "respondToTicket"),
    ("close ticket #88 for good", "closeTicket"),
    ("this complaint is sorted, shut the ticket", "closeTicket"),
    (
        "kick the billing dispute ticket up to the finance department, it needs an answer by Friday",
        "escalateTicket",
    ),
    ("this one's beyond me, pass it to a senior agent", "escalateTicket"),
    ("the escalation on the outage ticket is dealt with, engineering patched it", "resolveEscalation"),
    ("how many tickets are open vs pending right now", "getCustomerServiceOverview"),
    (
        "which address do customers write to for help, and after how many days do solved tickets auto close",
        "getSupportSummary",
    ),
    ("find tickets from anne@bellcourt.com about invoices", "searchTickets"),
    ("show me the whole conversation on ticket 312", "searchTickets"),
    ("which of Kamal's tickets have blown their SLA", "searchTickets"),
    ("list urgent tikets nobody has picked up", "searchTickets"),
    ("any complaints from the Wexford customer this week?", "searchTickets"),
    ("as the customer, add a comment to my own ticket saying it's still broken", "addMyTicketComment"),
    ("rate my solved ticket as good, they were really helpful", "addMyTicketComment"),
]
