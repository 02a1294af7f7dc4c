"""Held-out requests for the Agent Web Browser, written from SPEC.md 4.7 and docs/web.md before any
search hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("look up on the internet who won the award this year", "webSearch"),
    ("find news articles online about our competitor", "webSearch"),
    ("what does this web page say: https://example.org/pricing", "webExtract"),
    ("get the text of the PDF at this link", "webExtract"),
]
