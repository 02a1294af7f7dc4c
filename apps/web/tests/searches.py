"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("search the web for the latest release notes of PostgreSQL", "webSearch"),
    ("google the company's address and phone number", "webSearch"),
    ("find websites that review project management software", "webSearch"),
    ("search online for recent articles about remote work", "webSearch"),
    ("read the article at this URL and summarise it", "webExtract"),
    ("fetch the content of a web page as text", "webExtract"),
    ("open this link and tell me what the page says", "webExtract"),
    ("extract the main text of a website page for citing", "webExtract"),
]
