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
from apps.accounting.models.register import (
    CompanyDomain,
    CompanyPerson,
    CorporateEvent,
    Filing,
    RegisteredCompany,
)
from apps.accounting.models.sales import Charge, Payment, SalesDocument, SalesLine, SentMail

__all__ = [
    "Account",
    "Books",
    "Charge",
    "CompanyDomain",
    "CompanyPerson",
    "CorporateEvent",
    "ExchangeRate",
    "Filing",
    "Journal",
    "JournalEntry",
    "JournalLine",
    "NumberSeries",
    "Payment",
    "PurchaseBill",
    "PurchaseBillLine",
    "RegisteredCompany",
    "SalesDocument",
    "SalesLine",
    "SentMail",
    "SupplierDefaults",
    "TaxRounding",
    "TaxType",
]
