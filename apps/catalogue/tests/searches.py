"""Requests people make of the catalogue's own tools that do work of their own (searchWorkspace),
with the tool searchTools should find (see test_search_quality.py). searchTools, describeTool and
callTool are how a client finds the rest, not what a person asks for."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("search the whole workspace for anything about Brightwater", "searchWorkspace"),
    ("look across every area for records with the word quokka", "searchWorkspace"),
    (
        "find every record that mentions Pemberton: contacts, deals, tickets, invoices, whatever",
        "searchWorkspace",
    ),
    ("global search for Orchid across the workspace", "searchWorkspace"),
]
