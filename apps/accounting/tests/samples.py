"""A normal call of every Accounting tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py), and the helpers the area's tests share."""

from datetime import date
from decimal import Decimal
from typing import Any

from apps.accounting.lib import ledger
from apps.accounting.tests.factories import bank_line, credited, draft, issued, paid, post_sale, posted_bill
from apps.catalogue.dispatch import MemorySession
from apps.catalogue.testing import Sample, call, confirmed, sample, structured, text_of


def started(user: Any) -> MemorySession:
    """A session in which getAccountingSummary, the area's mandatory first call, was made."""
    session = MemorySession()
    structured(call(user, "getAccountingSummary", {}, session=session))
    return session


def acc(
    user: Any, name: str, arguments: dict[str, Any] | None = None, *, session: MemorySession | None = None
) -> dict[str, Any]:
    """An accounting tool call after the first call (confirmations accepted by the user)."""
    return call(
        user,
        name,
        arguments or {},
        session=session or started(user),
        capabilities={"elicitation": {}},
        elicit=confirmed,
    )


def acc_ok(user: Any, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """The structured answer of an accounting call that must succeed."""
    return structured(acc(user, name, arguments))


def acc_refused(user: Any, name: str, arguments: dict[str, Any] | None = None) -> str:
    """The message of an accounting call that must be refused."""
    result = acc(user, name, arguments)
    assert result["isError"] is True, result
    return text_of(result)


@sample("getAccountingSummary")
def get_accounting_summary(actor: Any) -> Sample:
    post_sale(actor, net="4321.09")
    return Sample({}, private=["4321.09"])


@sample("listTaxTypes")
def list_tax_types(actor: Any) -> Sample:
    return Sample({"kind": "standard"})


@sample("previewTaxBreakdown")
def preview_tax_breakdown(actor: Any) -> Sample:
    return Sample(
        {
            "lines": [
                {"quantity": "3", "unitPrice": "19.99", "taxType": "UK-STD"},
                {"unitPrice": "5", "taxType": "UK-RED", "discountPercent": "10"},
            ],
            "rounding": "document",
        }
    )


@sample("previewCurrencyConversion")
def preview_currency_conversion(actor: Any) -> Sample:
    return Sample({"amount": "250.00", "source": "USD", "target": "EUR", "on": "2026-03-02"})


INVOICE_FIELDS = {"customerName": "Northwind Traders", "currency": "EUR", "issueDate": "2026-03-02"}
LINES = [{"description": "Consulting, March", "quantity": "10", "unitPrice": "120", "taxType": "UK-STD"}]


@sample("createInvoice")
def create_invoice(actor: Any) -> Sample:
    return Sample({"invoice": INVOICE_FIELDS, "lines": LINES})


@sample("getInvoice")
def get_invoice(actor: Any) -> Sample:
    invoice = draft(actor, customer="Sample Customer 7341")
    return Sample({"invoiceId": invoice.pk}, private=["Sample Customer 7341"])


@sample("updateInvoice")
def update_invoice(actor: Any) -> Sample:
    return Sample({"invoiceId": draft(actor).pk, "invoice": {"reference": "PO-77"}, "lines": LINES})


@sample("deleteInvoice")
def delete_invoice(actor: Any) -> Sample:
    return Sample({"invoiceId": draft(actor).pk})


@sample("duplicateInvoice")
def duplicate_invoice(actor: Any) -> Sample:
    return Sample({"invoiceId": issued(actor).pk})


@sample("approveInvoice")
def approve_invoice(actor: Any) -> Sample:
    return Sample({"invoiceId": draft(actor).pk})


@sample("searchInvoices")
def search_invoices(actor: Any) -> Sample:
    draft(actor, customer="Searchable Customer 5519")
    return Sample({"query": "Searchable"}, private=["Searchable Customer 5519"])


@sample("manageInvoice")
def manage_invoice(actor: Any) -> Sample:
    return Sample({"invoiceId": issued(actor).pk, "action": "credit"})


@sample("recordPayment")
def record_payment(actor: Any) -> Sample:
    return Sample({"invoiceId": issued(actor).pk, "amount": "50", "on": "2026-03-10"})


@sample("createQuote")
def create_quote(actor: Any) -> Sample:
    return Sample({"quote": {**INVOICE_FIELDS, "dueDate": "2026-04-01"}, "lines": LINES})


@sample("getQuote")
def get_quote(actor: Any) -> Sample:
    return Sample({"quoteId": draft(actor, kind="quote").pk})


@sample("updateQuote")
def update_quote(actor: Any) -> Sample:
    return Sample({"quoteId": draft(actor, kind="quote").pk, "quote": {"notes": "Valid for 30 days"}})


@sample("deleteQuote")
def delete_quote(actor: Any) -> Sample:
    return Sample({"quoteId": draft(actor, kind="quote").pk})


@sample("searchQuotes")
def search_quotes(actor: Any) -> Sample:
    draft(actor, kind="quote", customer="Quoted Customer 8830")
    return Sample({"query": "Quoted"}, private=["Quoted Customer 8830"])


@sample("manageQuote")
def manage_quote(actor: Any) -> Sample:
    return Sample({"quoteId": draft(actor, kind="quote").pk, "action": "approve"})


CHARGE = {
    "description": "Design workshop",
    "customerName": "Contoso",
    "quantity": "3",
    "unitPrice": "90",
    "taxType": "UK-STD",
    "date": "2026-03-04",
}


@sample("createCharge")
def create_charge(actor: Any) -> Sample:
    return Sample({"charge": CHARGE})


@sample("manageCharge")
def manage_charge(actor: Any) -> Sample:
    made = structured(acc(actor, "createCharge", {"charge": CHARGE}))
    return Sample({"action": "invoice", "chargeIds": [made["id"]]})


@sample("listUnclaimedCharges")
def list_unclaimed_charges(actor: Any) -> Sample:
    structured(acc(actor, "createCharge", {"charge": {**CHARGE, "customerName": "Unclaimed Customer 6620"}}))
    return Sample({"customer": "Unclaimed"}, private=["Unclaimed Customer 6620"])


@sample("sendInvoice")
def send_invoice(actor: Any) -> Sample:
    return Sample({"invoiceId": issued(actor).pk, "to": "billing@example.org"})


@sample("sendInvoiceReminders")
def send_invoice_reminders(actor: Any) -> Sample:
    late = issued(actor, issue_date=date(2025, 1, 6), email="late@example.org")
    return Sample({"invoiceIds": [late.pk]})


@sample("snoozeInvoiceChase")
def snooze_invoice_chase(actor: Any) -> Sample:
    return Sample({"invoiceId": issued(actor).pk, "until": "2099-01-31"})


@sample("sendContactStatement")
def send_contact_statement(actor: Any) -> Sample:
    issued(actor, customer="Statement Customer 4402", email="accounts@example.org")
    return Sample({"customerName": "Statement Customer 4402"}, private=["Statement Customer 4402"])


# --- the company register ------------------------------------------------------------------------


def _registered(actor: Any, name: str = "Sample Holdings Ltd") -> Any:
    from apps.accounting.tests.factories import registered_company

    return registered_company(actor, name=name)


@sample("registerCompany")
def register_company(actor: Any) -> Sample:
    company = {"name": "Registered Sample 3391 Ltd", "incorporatedOn": "2024-01-15", "sicCodes": ["62020"]}
    # Made from the arguments alone, in either workspace: nothing of Acme's to keep private.
    return Sample({"number": "SC123456", "company": company, "fromRegister": False})


@sample("updateRegisteredCompany")
def update_registered_company(actor: Any) -> Sample:
    return Sample(
        {"companyId": _registered(actor).pk, "company": {"registeredOffice": "2 New Street, Leeds LS1 1AA"}}
    )


@sample("examineCorporateRegister")
def examine_corporate_register(actor: Any) -> Sample:
    from apps.accounting.tests.servers import Register, companies_house, register_company

    return Sample({"number": "09876543"}, around=lambda: companies_house(Register(register_company())))


@sample("getCompanyFilings")
def get_company_filings(actor: Any) -> Sample:
    company = _registered(actor, name="Filing Sample 7720 Ltd")
    return Sample({"companyId": company.pk}, private=["Filing Sample 7720"])


@sample("markFilingComplete")
def mark_filing_complete(actor: Any) -> Sample:
    filing = _registered(actor).filings.get(kind="confirmation_statement")
    return Sample({"filingId": filing.pk, "reference": "CS01-SAMPLE"})


@sample("setFilingReminders")
def set_filing_reminders(actor: Any) -> Sample:
    return Sample({"companyId": _registered(actor).pk, "leadDays": [30, 7]})


@sample("addCorporateEvent")
def add_corporate_event(actor: Any) -> Sample:
    company = _registered(actor)
    return Sample(
        {"companyId": company.pk, "kind": "appointment", "on": "2025-06-02", "detail": "Jane Sample"}
    )


@sample("manageCompanyDomain")
def manage_company_domain(actor: Any) -> Sample:
    company = _registered(actor)
    return Sample({"companyId": company.pk, "action": "add", "domain": f"holdings-{company.pk}.example"})


# --- purchase bills ---------------------------------------------------------------------------------


def _bill(actor: Any, **text: str) -> Any:
    from apps.accounting.tests.bills_data import proposal

    return proposal(actor, **text)


@sample("extractPurchaseBillDocument")
def extract_purchase_bill_document(actor: Any) -> Sample:
    from apps.accounting.tests.bills_data import bill_pdf

    file = bill_pdf(actor, supplier="Extracted Supplier 3307")
    return Sample({"fileId": file.pk}, private=["Extracted Supplier 3307"])


@sample("getSupplierDefaults")
def get_supplier_defaults(actor: Any) -> Sample:
    return Sample({"supplier": "Northwind Supplies"})


@sample("validatePurchaseInvoiceProposal")
def validate_purchase_invoice_proposal(actor: Any) -> Sample:
    return Sample({"billId": _bill(actor).pk, "bill": {"dueDate": "2026-04-01"}})


@sample("previewPurchaseInvoiceTotals")
def preview_purchase_invoice_totals(actor: Any) -> Sample:
    return Sample({"billId": _bill(actor).pk})


@sample("reconcilePurchaseInvoiceTotal")
def reconcile_purchase_invoice_total(actor: Any) -> Sample:
    return Sample({"billId": _bill(actor).pk, "statedTotal": "503.40"})


@sample("postPurchaseInvoice")
def post_purchase_invoice(actor: Any) -> Sample:
    from apps.accounting.services import bills

    bill = _bill(actor, reference=f"POST-{actor.pk}")
    bills.bill_validate(actor=actor, bill=bill, fields={}, lines=None)
    return Sample({"billId": bill.pk})


@sample("searchPurchaseInvoices")
def search_purchase_invoices(actor: Any) -> Sample:
    _bill(actor, supplier="Searched Supplier 9021", vat_number="none")
    return Sample({"query": "Searched"}, private=["Searched Supplier 9021"])


# --- bank lines and matching --------------------------------------------------------------------


@sample("listBankAccounts")
def list_bank_accounts(actor: Any) -> Sample:
    return Sample({})


@sample("createFinancial")
def create_financial(actor: Any) -> Sample:
    line = {"date": "2026-03-10", "amount": "-42.10", "description": "Sample Supplier 3381 card payment"}
    return Sample({"financial": line})


@sample("manageFinancial")
def manage_financial(actor: Any) -> Sample:
    line = bank_line(actor, "15.00", description="Sample refund")
    return Sample({"financialId": line.pk, "action": "update", "financial": {"reference": "RF-1"}})


@sample("listFinancials")
def list_financials(actor: Any) -> Sample:
    bank_line(actor, "77.00", description="Banked Customer 5127 transfer")
    return Sample({"query": "Banked"}, private=["Banked Customer 5127"])


@sample("getFinancialsSummary")
def get_financials_summary(actor: Any) -> Sample:
    bank_line(actor, "9876.54", description="Deposit")
    return Sample({}, private=["9876.54"])


def _matched(actor: Any) -> tuple[Any, Any]:
    from apps.accounting.services import matching

    invoice = issued(actor, customer="Matched Customer 6604")
    line = bank_line(actor, "120.00", description="Matched Customer 6604 payment")
    made = matching.match(actor=actor, financial_ids=[line.pk], items=[matching.Item("invoice", invoice.pk)])
    return invoice, made


@sample("getMatchedFinancialLines")
def get_matched_financial_lines(actor: Any) -> Sample:
    invoice, _made = _matched(actor)
    return Sample({"invoiceId": invoice.pk}, private=["Matched Customer 6604"])


@sample("getUnmatchedInvoiceLines")
def get_unmatched_invoice_lines(actor: Any) -> Sample:
    issued(actor, customer="Open Customer 7718")
    return Sample({"customer": "Open Customer 7718"}, private=["Open Customer 7718"])


@sample("matchPurchaseInvoiceLineToFinancial")
def match_purchase_invoice_line_to_financial(actor: Any) -> Sample:
    invoice = issued(actor)
    line = bank_line(actor, "120.00")
    return Sample({"financialIds": [line.pk], "lines": [{"invoiceId": invoice.pk}]})


@sample("unmatchPurchaseInvoiceLine")
def unmatch_purchase_invoice_line(actor: Any) -> Sample:
    _invoice, made = _matched(actor)
    return Sample({"matchId": made.pk})


# --- the bank without documents -------------------------------------------------------------------


def _spent(actor: Any, payee: str = "Sample Payee 7310") -> Any:
    from apps.accounting.services import bank, banking

    account = bank.bank_account_get(actor=actor, bank_account_id=None)
    lines = [banking.LineData("6000", Decimal("18.00"), "NONE", "Stamps")]
    return banking.transaction_record(
        actor=actor, bank=account, direction="spend", day=date(2026, 3, 4), lines=lines, contact_name=payee
    )


@sample("manageBankAccount")
def manage_bank_account(actor: Any) -> Sample:
    arguments = {"action": "add", "name": f"Reserve {actor.pk}", "currency": "GBP", "openingBalance": "100"}
    return Sample({**arguments, "openingDate": "2026-01-31"})


@sample("recordBankTransaction")
def record_bank_transaction(actor: Any) -> Sample:
    line = {"account": "6200", "amount": "24.00", "taxType": "UK-STD", "description": "Taxi"}
    return Sample({"direction": "spend", "on": "2026-03-04", "lines": [line], "contactName": "Cabs"})


@sample("transferBankFunds")
def transfer_between_bank_accounts(actor: Any) -> Sample:
    from apps.accounting.services import bank

    first = bank.bank_account_get(actor=actor, bank_account_id=None)
    other = bank.bank_account_create(actor=actor, name=f"Savings {actor.pk}", currency="GBP")
    return Sample(
        {"fromBankAccountId": first.pk, "toBankAccountId": other.pk, "amountOut": "50", "on": "2026-03-04"}
    )


@sample("voidBankTransaction")
def void_bank_transaction(actor: Any) -> Sample:
    return Sample({"transactionId": _spent(actor).pk, "on": "2026-03-20"})


@sample("listBankTransactions")
def list_bank_transactions(actor: Any) -> Sample:
    _spent(actor, payee="Listed Payee 8842")
    return Sample({"query": "Listed"}, private=["Listed Payee 8842"])


@sample("manageBankRule")
def manage_bank_rule(actor: Any) -> Sample:
    rule = {"name": f"Taxis {actor.pk}", "contains": "uber", "account": "6200", "taxType": "NONE"}
    return Sample({"action": "add", "rule": rule})


@sample("listBankRules")
def list_bank_rules(actor: Any) -> Sample:
    from apps.accounting.services import bankrules

    fields = {"name": "Ruled Payee 6613", "contains": "ruled", "account": "6000", "tax_type": "NONE"}
    bankrules.rule_create(actor=actor, fields=fields)
    return Sample({}, private=["Ruled Payee 6613"])


@sample("getBankReconciliation")
def get_bank_reconciliation(actor: Any) -> Sample:
    bank_line(actor, "-31.40", description="Reconciled Payee 4471")
    return Sample({"asOf": "2026-03-31"}, private=["Reconciled Payee 4471"])


@sample("searchCandidateFinancials")
def search_candidate_financials(actor: Any) -> Sample:
    invoice = issued(actor)
    bank_line(actor, "120.00", description="Candidate Payer 2290", reference=invoice.number)
    return Sample({"invoiceId": invoice.pk}, private=["Candidate Payer 2290"])


@sample("applyPurchaseCreditToFinancial")
def apply_purchase_credit_to_financial(actor: Any) -> Sample:
    credit = posted_bill(actor, supplier="Credit Supplier 4471", reference="CN-4471", net="-18.00")
    refund = bank_line(actor, "18.00", description="Credit Supplier 4471 refund")
    return Sample({"creditId": credit.pk, "financialId": refund.pk}, private=["Credit Supplier 4471"])


# --- credit, refunds, payments removed, bills paid and voided, supplier credits -------------------


def _credit_left(actor: Any, customer: str) -> Any:
    """A credit note of 60.00 on an invoice paid in full: all its credit is left."""
    invoice = issued(actor, customer=customer)
    paid(actor, invoice)
    return credited(actor, invoice)


@sample("allocateCreditNote")
def allocate_credit_note(actor: Any) -> Sample:
    note = _credit_left(actor, "Credited Customer 3391")
    invoice = issued(actor, customer="Credited Customer 3391")
    return Sample(
        {"creditNoteId": note.pk, "invoiceId": invoice.pk, "on": "2026-03-10"},
        private=["Credited Customer 3391"],
    )


@sample("refundCreditNote")
def refund_credit_note(actor: Any) -> Sample:
    note = _credit_left(actor, "Refunded Customer 2217")
    return Sample(
        {"creditNoteId": note.pk, "amount": "60", "on": "2026-03-10"}, private=["Refunded Customer 2217"]
    )


@sample("removePayment")
def remove_payment(actor: Any) -> Sample:
    payment = paid(actor, issued(actor, customer="Unpaid Customer 4410"))
    return Sample({"paymentId": payment.pk}, private=["Unpaid Customer 4410"])


@sample("recordBillPayment")
def record_bill_payment(actor: Any) -> Sample:
    bill = posted_bill(actor, supplier="Paid Supplier 5582", reference="PS-5582")
    return Sample({"billId": bill.pk, "amount": "35.50", "on": "2026-03-10"}, private=["Paid Supplier 5582"])


@sample("createSupplierCreditNote")
def create_supplier_credit_note(actor: Any) -> Sample:
    bill = posted_bill(actor, supplier="Crediting Supplier 6613", reference="CS-6613")
    return Sample(
        {"billId": bill.pk, "reference": "SCN-6613", "issueDate": "2026-03-06"},
        private=["Crediting Supplier 6613"],
    )


@sample("voidBill")
def void_bill(actor: Any) -> Sample:
    bill = posted_bill(actor, supplier="Voided Supplier 7724", reference="VS-7724")
    return Sample({"billId": bill.pk}, private=["Voided Supplier 7724"])


# --- sync to an outside ledger -------------------------------------------------------------------


def _refused_sync(actor: Any, error: str) -> Any:
    """An approved invoice whose push the outside ledger refused with `error`."""
    from apps.accounting.models import SyncRecord

    invoice = issued(actor)
    SyncRecord.objects.filter(kind="invoice", record_id=invoice.pk).update(
        status=SyncRecord.Status.FAILED, attempts=1, last_error=error
    )
    return invoice


@sample("getAccountingSyncStatus")
def get_accounting_sync_status(actor: Any) -> Sample:
    from apps.accounting.tests.servers import Ledger, xero_ledger

    issued(actor)
    return Sample({}, around=lambda: xero_ledger(Ledger()))


@sample("getAccountingSyncErrors")
def get_accounting_sync_errors(actor: Any) -> Sample:
    _refused_sync(actor, "Sync Refusal 4417: contact name is required")
    return Sample({"kind": "invoice"}, private=["Sync Refusal 4417"])


@sample("retryAccountingSyncs")
def retry_accounting_syncs(actor: Any) -> Sample:
    from apps.accounting.tests.servers import Ledger, xero_ledger

    _refused_sync(actor, "Sync Refusal 8813: account code is not valid")
    return Sample({}, private=["Sync Refusal 8813"], around=lambda: xero_ledger(Ledger()))


# --- exchange rates, bill proposals and period close -------------------------------------------


@sample("recordExchangeRate")
def record_exchange_rate(actor: Any) -> Sample:
    return Sample({"source": "KWD", "rate": "2.6143", "on": "2026-03-02"})


@sample("discardPurchaseInvoiceProposal")
def discard_purchase_invoice_proposal(actor: Any) -> Sample:
    return Sample({"billId": _bill(actor, reference=f"TWICE-{actor.pk}").pk})


@sample("setLockDate")
def set_lock_date(actor: Any) -> Sample:
    return Sample({"lockDate": "2025-12-31"})


@sample("setSeparationOfDuties")
def set_separation_of_duties(actor: Any) -> Sample:
    return Sample({"on": True})


@sample("revalueForeignCurrency")
def revalue_foreign_currency(actor: Any) -> Sample:
    issued(actor, currency="EUR", customer="Revalued Customer 5528")
    return Sample({"on": "2026-03-31"})


@sample("createBill")
def create_bill(actor: Any) -> Sample:
    ledger.books()
    return Sample(
        {
            "bill": {
                "supplierName": "Typed Supplier 3391",
                "reference": "TS-3391",
                "issueDate": "2026-03-04",
            },
            "lines": [
                {"description": "Boiler repair", "unitPrice": "240", "taxType": "UK-STD", "account": "6000"}
            ],
        },
    )


ACCRUAL = [{"account": "6000", "debit": "1200"}, {"account": "2300", "credit": "1200"}]


def manual_journal(actor: Any, narration: str = "Accrued audit fee") -> Any:
    """A manual journal of 1200 GBP (general expenses against accruals) on 31 March 2026."""
    from apps.accounting.services import journals

    ledger.books()
    return journals.journal_post(
        actor=actor,
        day=date(2026, 3, 31),
        narration=narration,
        lines=[
            journals.JournalLineData("6000", debit=Decimal("1200")),
            journals.JournalLineData("2300", credit=Decimal("1200")),
        ],
    )


@sample("postJournal")
def post_journal(actor: Any) -> Sample:
    return Sample(
        {"on": "2026-03-31", "narration": "Accrued audit fee", "lines": ACCRUAL, "reverseOn": "2026-04-01"}
    )


@sample("reverseJournal")
def reverse_journal(actor: Any) -> Sample:
    return Sample({"entryId": manual_journal(actor).pk, "on": "2026-04-01"})


def draft_journal(narration: str = "Accrued audit fee") -> Any:
    """A manual journal of 1200 GBP awaiting approval on 31 March 2026, drafted by nobody recorded
    (as when its creator's data was erased): anyone with accounting.post approves it."""
    from apps.accounting.models import DraftJournal

    ledger.books()
    return DraftJournal.objects.create(
        date=date(2026, 3, 31),
        narration=narration,
        currency="GBP",
        lines=[
            {"account": "6000", "debit": "1200", "credit": "0", "description": ""},
            {"account": "2300", "debit": "0", "credit": "1200", "description": ""},
        ],
    )


@sample("approveJournal")
def approve_journal(actor: Any) -> Sample:
    return Sample({"draftId": draft_journal().pk})


@sample("discardJournal")
def discard_journal(actor: Any) -> Sample:
    return Sample({"draftId": draft_journal("Sample draft 5521").pk}, private=["Sample draft 5521"])


@sample("listJournals")
def list_journals(actor: Any) -> Sample:
    manual_journal(actor, narration="Sample accrual 4417")
    return Sample({"manual": True}, private=["Sample accrual 4417"])


# --- the chart of accounts and the tax types -----------------------------------------------------


@sample("listAccounts")
def list_accounts(actor: Any) -> Sample:
    return Sample({"type": "expense"})


@sample("manageAccount")
def manage_account(actor: Any) -> Sample:
    return Sample({"action": "add", "code": "6400", "name": "Marketing", "type": "expense"})


@sample("manageTaxType")
def manage_tax_type(actor: Any) -> Sample:
    return Sample({"action": "add", "code": "UK-135", "taxType": {"name": "Reduced 13.5%", "rate": "13.5"}})


# --- reports from the ledger ---------------------------------------------------------------------

MARCH = {"fromDate": "2026-03-01", "toDate": "2026-03-31"}


@sample("getProfitAndLoss")
def get_profit_and_loss(actor: Any) -> Sample:
    post_sale(actor, net="3917.23")
    return Sample({**MARCH, "compareWith": "period"}, private=["3917.23"])


@sample("getBalanceSheet")
def get_balance_sheet(actor: Any) -> Sample:
    post_sale(actor, net="2871.11")
    return Sample({"asOf": "2026-03-31"}, private=["2871.11"])


@sample("getAgedBalances")
def get_aged_balances(actor: Any) -> Sample:
    issued(actor, customer="Aged Customer 5531")
    return Sample({"side": "receivables", "asOf": "2026-05-20"}, private=["Aged Customer 5531"])


@sample("getAccountTransactions")
def get_account_transactions(actor: Any) -> Sample:
    issued(actor, customer="Ledger Customer 6142", lines=[("Ledger line 6142", "61.42", "UK-STD")])
    return Sample({**MARCH, "account": "1100"}, private=["6142"])


@sample("getVatReturn")
def get_vat_return(actor: Any) -> Sample:
    post_sale(actor, net="1234.56")
    return Sample(MARCH, private=["1234.56", "246.91"])
