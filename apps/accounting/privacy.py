"""Personal data in the Accounting area (docs/privacy.md).

The ledger is kept for as long as the law asks (legal retention of books and issued invoices,
e.g. six years in the UK, ten in Germany): erasure never deletes a journal entry, a line, a sales
document or a payment, and never hides an issued invoice. What names a person is exported and, on
erasure, cleared in place: a customer's name, address, e-mail and VAT number on the documents
addressed to them (found by that e-mail address), and who posted an entry. The amounts, numbers
and dates stay, so the books still balance and the numbering keeps no gap.
"""

from django.db.models import Q, QuerySet

from apps.accounting.models import (
    Account,
    Books,
    Charge,
    CompanyDomain,
    CompanyPerson,
    CorporateEvent,
    CreditAllocation,
    DraftJournal,
    ExchangeRate,
    Filing,
    Journal,
    JournalEntry,
    JournalLine,
    NumberSeries,
    Payment,
    PurchaseBill,
    PurchaseBillLine,
    RegisteredCompany,
    SalesDocument,
    SalesLine,
    SentMail,
    SupplierDefaults,
    TaxType,
)
from apps.core import privacy

privacy.register(JournalEntry, user="posted_by", erase={"posted_by": None})
privacy.register(DraftJournal, user="created_by", erase={"created_by": None})
privacy.register(
    SalesDocument,
    email="customer_email",
    erase={
        "customer_name": "(erased)",
        "customer_email": "",
        "customer_address": "",
        "customer_vat_number": "",
        "contact": None,
        "notes": "",
    },
)
privacy.not_personal(
    Charge, reason="billable work for a customer named as on their invoices; no contact details"
)
privacy.register(SentMail, email="recipient")
privacy.not_personal(SalesLine, reason="what was sold and for how much; the customer is on the document")
privacy.not_personal(Payment, reason="amounts received; the customer is named on the invoice")
privacy.not_personal(CreditAllocation, reason="credit moved between a customer's documents, amounts only")
privacy.not_personal(Books, reason="the workspace's accounting settings")
privacy.not_personal(Account, reason="the chart of accounts")
privacy.not_personal(Journal, reason="the names of the journals")
privacy.not_personal(JournalLine, reason="amounts on accounts; who posted them is on the entry")
privacy.not_personal(TaxType, reason="tax rates and codes")
privacy.not_personal(ExchangeRate, reason="published reference exchange rates")
privacy.not_personal(NumberSeries, reason="the counters of document numbers")

# The company register (apps.accounting.services.register). The companies are the workspace's own legal
# entities and their domains, as the public register shows them: no one's personal data. The
# officers and persons with significant control are people named by the register: a person of the
# workspace is found by their full name, exported, and erased in place (the public register, which
# examineCorporateRegister reads, stays the statutory record); who filed or recorded is cleared.
privacy.not_personal(
    RegisteredCompany, reason="the workspace's own companies as the public register shows them"
)
privacy.not_personal(CompanyDomain, reason="a company's web and e-mail domains")
privacy.register(
    CompanyPerson,
    find=lambda subject: (
        CompanyPerson.objects.filter(name__iexact=subject.user.full_name.strip())
        if subject.user is not None and subject.user.full_name.strip()
        else CompanyPerson.objects.none()
    ),
    erase={"name": "(erased)"},
)
privacy.register(Filing, user="filed_by", erase={"filed_by": None})
privacy.register(CorporateEvent, user="recorded_by", erase={"recorded_by": None})
# Bank lines (apps.accounting.services.bank): the books keep their date, amount and reference. A person's
# are those they entered and those matched to invoices addressed to them or bills from them (a
# customer's payments, a sole trader's); erasure clears who the line names and what its text says.
from apps.accounting.models import BankAccount, BankMatch, Financial, MatchLine  # noqa: E402


def _financials_of(subject: privacy.Subject) -> QuerySet:
    condition = Q(match__lines__sales_line__document__customer_email__iexact=subject.email)
    condition |= Q(match__lines__bill_line__bill__supplier__email__iexact=subject.email)
    if subject.user is not None:
        condition |= Q(created_by=subject.user)
    return Financial._base_manager.filter(condition).distinct()


privacy.register(
    Financial,
    find=_financials_of,
    exclude=("external_id",),
    erase={"counterparty": "", "description": "(erased)", "created_by": None},
)
privacy.register(BankMatch, user="created_by", erase={"created_by": None})
privacy.not_personal(BankAccount, reason="the workspace's own bank accounts")
privacy.not_personal(MatchLine, reason="amounts tying a bank line to an invoice line")
# Money spent, received and transferred without a document (apps.accounting.services.banking): who
# entered it is cleared; the amounts, payee and posting stay with the books.
from apps.accounting.models import BankRule, BankTransaction  # noqa: E402

privacy.register(BankTransaction, user="created_by", erase={"created_by": None})
privacy.register(BankRule, user="created_by", erase={"created_by": None})


# Purchase bills (apps.accounting.services.bills): a supplier may be a sole trader, so a bill from a contact
# with the person's address is exported and, on erasure, its supplier details are cleared in place;
# the amounts and the posting stay (legal retention, as for sales documents).
def _bills_from(subject: privacy.Subject) -> QuerySet[PurchaseBill]:
    return PurchaseBill.objects.filter(supplier__email__iexact=subject.email)


def _supplier_defaults_of(subject: privacy.Subject) -> QuerySet[SupplierDefaults]:
    return SupplierDefaults.objects.filter(supplier__email__iexact=subject.email)


privacy.register(
    PurchaseBill,
    find=_bills_from,
    erase={
        "supplier_name": "(erased)",
        "supplier_vat_number": "",
        "supplier": None,
        "notes": "",
        "extracted_text": "",
        "file": None,
    },
)
privacy.register(SupplierDefaults, find=_supplier_defaults_of)
privacy.not_personal(PurchaseBillLine, reason="what was bought and for how much; the supplier is on the bill")


# Sync to an outside ledger (apps.accounting.services.sync): a sync record names a record by kind and id,
# and holds the outside ledger's id and its last error. That error may quote what was sent (a
# customer's name or e-mail in a validation message): a record whose error names the person is
# exported and its error text erased. The runs hold counts only.
from apps.accounting.models import SyncRecord, SyncRun  # noqa: E402


def _sync_errors_naming(subject: privacy.Subject) -> QuerySet[SyncRecord]:
    condition = Q(last_error__icontains=subject.email) if subject.email else Q()
    name = subject.user.full_name.strip() if subject.user is not None else ""
    if name:
        condition |= Q(last_error__icontains=name)
    if not condition:
        return SyncRecord.objects.none()
    return SyncRecord.objects.filter(condition)


privacy.register(SyncRecord, find=_sync_errors_naming, erase={"last_error": "(erased)"})
privacy.not_personal(SyncRun, reason="when the push to the outside ledger ran and how many records it pushed")
