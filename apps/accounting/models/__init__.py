"""The Accounting area's models, one module per group of entities."""

from apps.accounting.models.bank import (
    BankAccount,
    BankMatch,
    BankRule,
    BankTransaction,
    Financial,
    MatchLine,
)
from apps.accounting.models.bills import PurchaseBill, PurchaseBillLine, SupplierDefaults
from apps.accounting.models.ledger import (
    Account,
    Books,
    DraftJournal,
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
from apps.accounting.models.sales import Charge, CreditAllocation, Payment, SalesDocument, SalesLine, SentMail
from apps.accounting.models.sync import SyncRecord, SyncRun

__all__ = [
    "Account",
    "BankAccount",
    "BankMatch",
    "BankRule",
    "BankTransaction",
    "Books",
    "Charge",
    "CompanyDomain",
    "CompanyPerson",
    "CorporateEvent",
    "CreditAllocation",
    "DraftJournal",
    "ExchangeRate",
    "Filing",
    "Financial",
    "Journal",
    "JournalEntry",
    "JournalLine",
    "MatchLine",
    "NumberSeries",
    "Payment",
    "PurchaseBill",
    "PurchaseBillLine",
    "RegisteredCompany",
    "SalesDocument",
    "SalesLine",
    "SentMail",
    "SupplierDefaults",
    "SyncRecord",
    "SyncRun",
    "TaxRounding",
    "TaxType",
]
