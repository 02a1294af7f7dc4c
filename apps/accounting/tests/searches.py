"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("what's our base currency and are the books locked for last quarter", "getAccountingSummary"),
    ("give me an overview of the accounts: how much are customers owing us", "getAccountingSummary"),
    ("show the trial balance of the ledger", "getAccountingSummary"),
    ("which VAT rates can I put on an invoice line", "listTaxTypes"),
    ("do we have a reverse charge tax code set up", "listTaxTypes"),
    ("list the tax codes with their report boxes", "listTaxTypes"),
    ("how much VAT is on 3 items at 19.99 plus one at 5 pounds", "previewTaxBreakdown"),
    ("work out the net and tax of a 1200 gross price including VAT", "previewTaxBreakdown"),
    ("calculate the sales tax total for these invoice lines before I send it", "previewTaxBreakdown"),
    ("convert 250 dollars to euros at today's exchange rate", "previewCurrencyConversion"),
    ("what was the GBP to USD fx rate on 2 March", "previewCurrencyConversion"),
    ("how much is 10000 yen worth in pounds", "previewCurrencyConversion"),
]
