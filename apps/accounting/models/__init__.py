"""The Accounting area's models, one module per group of entities."""

from apps.accounting.models.bills import PurchaseBill, PurchaseBillLine, SupplierDefaults
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
from apps.accounting.models.sales import Charge, Payment, SalesDocument, SalesLine, SentMail

__all__ = [
    "Account",
    "Books",
    "Charge",
    "ExchangeRate",
    "Journal",
    "JournalEntry",
    "JournalLine",
    "NumberSeries",
    "Payment",
    "PurchaseBill",
    "PurchaseBillLine",
    "SalesDocument",
    "SalesLine",
    "SentMail",
    "SupplierDefaults",
    "TaxRounding",
    "TaxType",
]
