"""Requests people make of the Deals Pipeline, with the tool searchTools should find (see
apps/catalogue/tests/test_search_quality.py)."""

from apps.deals.tests import searches_outreach

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    *searches_outreach.REQUESTS,
]
