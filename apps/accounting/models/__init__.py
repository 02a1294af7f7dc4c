"""The Accounting area's models, one module per group of entities."""

from apps.accounting.models.ledger import (
    Account,
    Books,
    ExchangeRate,
    Journal,
    JournalEntry,
    JournalLine,
    NumberSeries,
    TaxRounding,
    TaxType,
)

__all__ = [
    "Account",
    "Books",
    "ExchangeRate",
    "Journal",
    "JournalEntry",
    "JournalLine",
    "NumberSeries",
    "TaxRounding",
    "TaxType",
]
