"""Writes of Customer Service, one module per sub-domain: `tickets` (opened, changed, merged,
escalated, closed), `comments` (replies, notes, the requester's words), `sla` (statuses and the
SLA clocks, breach warnings), `inbound` (the support mailbox and its mail into tickets),
`canned_replies`. Every door (the tools, the Customer Service page, Celery) calls these; each
checks the actor's permission."""
