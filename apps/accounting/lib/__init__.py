"""What the Accounting area's services, selectors and tools are built on, neither a write on
someone's behalf nor a read of what they may see: the ledger's posting engine, money, tax, the
chart a workspace's books start with, exchange rates, identifiers, and the readers and writers of
formats (bank statements, the text of bills, PDFs)."""
