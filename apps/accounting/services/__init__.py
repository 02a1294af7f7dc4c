"""Writes of the Accounting area, one module per sub-domain (sales documents and payments, bills,
bank lines, matching, the company register, sending, sync to an outside ledger). Each checks the
actor's permission and the area's rules, runs inside the tool call's one transaction and posts
through `lib.ledger.post`; logs carry ids."""
