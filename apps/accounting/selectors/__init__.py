"""Reads of the Accounting area that are domain, one module per sub-domain: rows as the actor may
see them, summaries and what needs attention."""
