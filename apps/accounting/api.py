"""The Accounting area's public module: what other areas may use of it (docs/accounting.md,
"Money, tax and rates"). Nothing else of apps.accounting is theirs to import.

Text of scans (`ocr_text`): Tesseract OCR of an image or of a scanned PDF's page images, as purchase
bills are read (apps.accounting.providers.ocr); OCR_UNAVAILABLE (`OcrUnavailable`) when the program
is not installed, OCR_FAILED when the scan cannot be read.

    ocr_text(data, "image/png")

Exchange rates, the one place every area asks (`rate`): what one unit of a currency is worth in
another on a day. Accounting's providers answer (the ECB's reference rates, bundled or fetched
and kept in `ExchangeRate` rows: apps.accounting.lib.rates); they are the service's, so they answer
in a workspace without the Accounting area too (its installation gates its tools, not this).

    rate(source="USD", target="EUR", on=day)                          # the provider's rate
    rate(source="USD", target="EUR", on=day, given=rate, look_up=False)  # the rate a person gave

An area whose tools take the person's rate with an amount (Deals, Event budgets) asks with
`look_up=False`, so its answers stay the rates people gave; the shared `NoExchangeRate`
(apps.core.errors) is then the area's to word, as a variant of its own (which argument to give).
"""

from datetime import date
from decimal import Decimal

from apps.accounting.errors import OcrUnavailable, RatesUnavailable
from apps.accounting.lib import rates
from apps.accounting.lib.rates import Rate
from apps.accounting.providers import ocr
from apps.core.errors import NoExchangeRate

__all__ = [
    "OCR_IMAGE_TYPES",
    "OCR_MAX_PAGES",
    "OcrUnavailable",
    "Rate",
    "RatesUnavailable",
    "ocr_text",
    "rate",
]

# The image types OCR reads, and the pages of a scanned PDF it reads at most.
OCR_IMAGE_TYPES = frozenset(ocr.IMAGE_TYPES)
OCR_MAX_PAGES = ocr.MAX_PAGES


def ocr_text(data: bytes, mime_type: str) -> str:
    """The text Tesseract reads in an image (one of OCR_IMAGE_TYPES) or in a scanned PDF's page
    images (its first OCR_MAX_PAGES pages); OcrUnavailable without the program."""
    return ocr.text_of(data, mime_type)


def rate(*, source: str, target: str, on: date, given: Decimal | None = None, look_up: bool = True) -> Rate:
    """Units of `target` for one `source` on `on`: 1 for the same currency; else `given` when it
    is more than 0 (what a person said, kept with the day); else, with `look_up`, the books' (a
    rate recorded for that day with recordExchangeRate, else the provider's, the latest published
    within the week before, else the latest recorded within that week; the day it used in the
    answer); NoExchangeRate otherwise, RatesUnavailable when the provider did not answer."""
    if source == target:
        return Rate(Decimal(1), on, "same currency")
    if given is not None and given > 0:
        return Rate(Decimal(given), on, "given")
    if look_up:
        return rates.rate(source=source, target=target, on=on)
    raise NoExchangeRate(source=source, target=target, date=on.isoformat())
