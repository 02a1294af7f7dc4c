"""The Accounting area, as the rest of the service knows it (apps.core.areas)."""

from typing import Any

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.accounting.permissions import AccountingPerm
from apps.core import areas, env
from apps.core.kinds import Kind
from apps.core.navigation import NavItem


def sales_title(document: Any) -> str:
    """ "INV-0042 · Acme Ltd" (a draft: "draft invoice 7 · Acme Ltd")."""
    return f"{document} · {document.customer_name}"


def bill_title(bill: Any) -> str:
    return " · ".join(part for part in (bill.supplier_name, bill.reference) if part) or f"#{bill.pk}"


area = areas.declare(
    title=_("Accounting"),
    group=areas.Group.FINANCE,
    description=_("A double-entry ledger: invoices, quotes, tax, currencies and the trial balance"),
    words=(
        "accounting accounts ledger books bookkeeping invoice bill quote estimate tax vat gst "
        "currency exchange rate fx trial balance journal debit credit receivable payable"
    ),
    hints={
        "getAccountingSummary": (
            "overview of the books, trial balance of the ledger, chart of accounts, base currency, tax "
            "regime, lock date, numbering, what is owed"
        ),
        "listTaxTypes": "which vat rates tax codes go on an invoice line, reverse charge exempt zero rated",
        "previewTaxBreakdown": (
            "how much vat is on these items, the tax on amounts prices net gross total, vat at standard rate"
        ),
        "recordExchangeRate": (
            "set our own exchange rate, the fx rate the bank gave us for a day, a currency without a rate"
        ),
        "setLockDate": "close the books, lock the period up to a date, month year end close, reopen a period",
        "revalueForeignCurrency": (
            "fx revaluation, unrealised foreign exchange currency gains losses, month end revalue open "
            "euro dollar invoices bills bank balances"
        ),
        "setSeparationOfDuties": (
            "four eyes principle, segregation of duties, no one approves their own invoice or bill, "
            "approver different from creator"
        ),
        "previewCurrencyConversion": "convert dollars euros pounds exchange rate fx what is it worth in",
        "createInvoice": "bill a customer raise draft a new sales invoice for work done",
        "getInvoice": "show open details of invoice number lines amount due",
        "updateInvoice": "change edit fix the lines customer due date of a draft invoice",
        "deleteInvoice": "remove throw away a draft invoice",
        "duplicateInvoice": "copy repeat last month's invoice again into a new draft",
        "approveInvoice": (
            "approve issue finalise authorise an invoice or credit note so it gets its number and is "
            "posted to the ledger"
        ),
        "searchInvoices": (
            "find list unpaid overdue outstanding invoices who owes us, has a customer paid, "
            "credit notes issued"
        ),
        "manageInvoice": (
            "void cancel dispute an invoice, issue raise a credit note refund correction for part of it, "
            "write off a bad debt"
        ),
        "recordPayment": (
            "customer paid, mark invoice as paid, money received for an invoice, payment came in, part "
            "payment, paid in dollars or euros, what arrived in the account, fx gain or loss"
        ),
        "createQuote": "quote estimate proposal pricing for a customer",
        "getQuote": "show open details of a quote estimate",
        "updateQuote": "change edit the lines or price of a draft quote estimate",
        "deleteQuote": "remove throw away a draft quote estimate",
        "searchQuotes": (
            "find list quotes estimates proposals sent awaiting the customer's answer, accepted declined"
        ),
        "manageQuote": "customer accepted declined the quote, turn convert the estimate into an invoice",
        "createCharge": "log billable hours time expense to bill rebill a client later",
        "manageCharge": (
            "put billable items on an invoice, turn the logged time into an invoice, write off a charge"
        ),
        "listUnclaimedCharges": "unbilled work time expenses not yet invoiced to a client",
        "sendInvoice": "email send the invoice pdf to the customer",
        "sendInvoiceReminders": "chase overdue unpaid invoices, send payment reminders, credit control",
        "snoozeInvoiceChase": "pause stop chasing reminders for an invoice until a date, payment plan",
        "sendContactStatement": (
            "send a customer their statement of account, aged debt 30 60 90 days, balance owed"
        ),
        # The company register.
        "registerCompany": "add our limited company by its company number, companies house",
        "updateRegisteredCompany": "change registered office, sic codes, accounting reference date, year end",
        "examineCorporateRegister": "look up a company on companies house, directors officers filing history",
        "getCompanyFilings": "when are confirmation statement accounts corporation tax due, deadlines",
        "markFilingComplete": "we filed submitted the confirmation statement accounts return, mark it done",
        "setFilingReminders": "remind me before filing deadlines, days before due date",
        "addCorporateEvent": "director appointed resigned, shares allotted, office moved, psc change",
        "manageCompanyDomain": "add remove the company's website email domain name",
        # Purchase bills and sync to an outside ledger.
        "extractPurchaseBillDocument": "read scan ocr a supplier bill pdf photo upload into a proposal",
        "getSupplierDefaults": (
            "which account tax code currency payment terms does this supplier vendor use, usually pay on"
        ),
        "validatePurchaseInvoiceProposal": "check correct fix the supplier bill proposal before posting",
        "previewPurchaseInvoiceTotals": "what does the supplier bill add up to, vat net total of a bill",
        "reconcilePurchaseInvoiceTotal": (
            "bill total does not match tie to the lines, rounding difference, book a rounding line"
        ),
        "postPurchaseInvoice": "post enter book record a supplier bill purchase invoice into payables",
        "searchPurchaseInvoices": "find list supplier bills purchase invoices we owe, unpaid bills",
        # bank lines and matching
        "listBankAccounts": "our business bank accounts, iban, which bank account",
        "createFinancial": (
            "import upload a bank statement file camt.053 camt mt940 ofx csv, "
            "add enter a bank transaction by hand"
        ),
        "manageFinancial": "edit fix delete restore a bank transaction",
        "listFinancials": "bank transactions statement lines, unreconciled unmatched payments received paid",
        "getFinancialsSummary": (
            "bank reconciliation status, money in out, how many transactions not matched, cash in the bank"
        ),
        "getMatchedFinancialLines": (
            "what a bank transaction payment was matched reconciled to, which invoices it settled"
        ),
        "getUnmatchedInvoiceLines": (
            "open unpaid invoice and bill lines waiting to be matched reconciled to a bank payment"
        ),
        "matchPurchaseInvoiceLineToFinancial": (
            "reconcile match a bank transaction payment to an invoice line"
        ),
        "unmatchPurchaseInvoiceLine": "undo unmatch unreconcile a bank match, wrong invoice",
        "searchCandidateFinancials": (
            "find which bank transaction paid an invoice or bill, possible matching candidates for an amount"
        ),
        "applyPurchaseCreditToFinancial": "apply a supplier credit note to the refund received in the bank",
        # the bank without documents
        "manageBankAccount": "open a new bank savings or card account, iban, opening balance, rename, close",
        "recordBankTransaction": (
            "spend money receive money without an invoice or bill, bank charges fees interest, "
            "card payment without a receipt, grant"
        ),
        "transferBankFunds": ("transfer money to savings or another bank account, currency conversion fx"),
        "voidBankTransaction": "void undo delete a spend receive money or transfer entered by mistake",
        "listBankTransactions": "money spent received transferred without invoices, transfers list",
        "manageBankRule": (
            "bank rule, always auto code categorise bank transactions lines from a payee or containing a "
            "word to an account"
        ),
        "listBankRules": "our bank rules, which account a bank transaction is coded to automatically",
        "getBankReconciliation": (
            "reconcile a bank account to its statement at a date, statement closing balance against "
            "the ledger balance"
        ),
        # credit, refunds, payments without a bank line, removing payments
        "allocateCreditNote": "use apply a customer's credit note credit against another unpaid invoice",
        "refundCreditNote": "refund pay back give the customer their money for a credit note",
        "removePayment": "delete undo reverse a payment recorded by mistake, wrong payment, unpay",
        "recordBillPayment": "we paid a supplier bill, mark bill as paid, paid by card or cheque",
        "createSupplierCreditNote": "supplier vendor credit note against a bill, refund from a supplier",
        "voidBill": "void cancel a posted supplier bill entered by mistake",
        "createBill": "type enter key in a supplier bill purchase invoice by hand, paper bill, no upload",
        # sync to an outside ledger
        "getAccountingSyncStatus": "is xero the outside external ledger connected, sync status, last push",
        "getAccountingSyncErrors": "why did invoices bills payments fail to sync push to xero, sync errors",
        "retryAccountingSyncs": "push the failed syncs again, retry resend to xero the external ledger",
        # reports from the ledger
        "getProfitAndLoss": (
            "profit and loss p&l income statement, revenue costs expenses, gross net profit for a month "
            "quarter year, compare with last year"
        ),
        "getBalanceSheet": "balance sheet, assets liabilities equity, net worth, retained earnings at a date",
        "getAgedBalances": (
            "aged debtors creditors, aged receivables payables, who owes us, what we owe suppliers, "
            "unpaid money owed by age, 30 60 90 days overdue"
        ),
        "getAccountTransactions": (
            "general ledger, account transactions, the postings behind a figure, what makes up an expense "
            "or income total such as rent, journal lines of an account, running balance"
        ),
        "getVatReturn": "vat return, mtd nine boxes, vat to pay hmrc for the quarter, making tax digital",
        # the chart of accounts, tax rates and manual journals
        "listAccounts": "chart of accounts, nominal ledger, which account to use for an expense or income",
        "manageAccount": (
            "new nominal ledger account in the chart of accounts, income expense asset liability"
        ),
        "manageTaxType": "new vat tax rate, change a rate, retire a tax code",
        "listJournals": (
            "manual journal entries, what a document posted to the ledger, double entry debits credits"
        ),
        "postJournal": (
            "post book a manual journal entry, accrual prepayment depreciation correction, move an amount "
            "between accounts, debit credit adjustment"
        ),
        "reverseJournal": (
            "undo reverse cancel a posted manual journal with a reversing entry, back out an accrual"
        ),
        "approveJournal": "approve sign off authorise a manual journal awaiting approval so it posts",
        "discardJournal": (
            "throw away cancel delete a draft manual journal awaiting approval without posting it"
        ),
        "discardPurchaseInvoiceProposal": (
            "throw away discard delete a duplicate supplier bill proposal uploaded twice before it is posted"
        ),
    },
    profiles={
        "sales": ("createQuote", "searchQuotes"),
        # Day to day: supplier bills, the bank (its lines and matching, money spent, received and
        # transferred without a document), what the bookkeeper reads of invoices.
        "finance": (
            "getAccountingSummary",
            "listTaxTypes",
            "previewCurrencyConversion",
            "recordExchangeRate",
            "searchInvoices",
            "getInvoice",
            "recordPayment",
            "extractPurchaseBillDocument",
            "createBill",
            "discardPurchaseInvoiceProposal",
            "getSupplierDefaults",
            "validatePurchaseInvoiceProposal",
            "previewPurchaseInvoiceTotals",
            "reconcilePurchaseInvoiceTotal",
            "postPurchaseInvoice",
            "searchPurchaseInvoices",
            "createSupplierCreditNote",
            "recordBillPayment",
            "voidBill",
            "listBankAccounts",
            "createFinancial",
            "manageFinancial",
            "listFinancials",
            "getFinancialsSummary",
            "getMatchedFinancialLines",
            "getUnmatchedInvoiceLines",
            "matchPurchaseInvoiceLineToFinancial",
            "unmatchPurchaseInvoiceLine",
            "searchCandidateFinancials",
            "applyPurchaseCreditToFinancial",
            "recordBankTransaction",
            "transferBankFunds",
            "voidBankTransaction",
        ),
        # Month and year end: the chart and the bank accounts, tax types, recorded rates, the lock
        # date, journals, filings, the reports and the VAT return, and the sync to the outside
        # ledger checked before the books close.
        "closing": (
            "getAccountingSummary",
            "listAccounts",
            "manageAccount",
            "listTaxTypes",
            "manageTaxType",
            "recordExchangeRate",
            "setLockDate",
            "setSeparationOfDuties",
            "revalueForeignCurrency",
            "postJournal",
            "approveJournal",
            "discardJournal",
            "reverseJournal",
            "listJournals",
            "searchInvoices",
            "searchPurchaseInvoices",
            "listBankAccounts",
            "manageBankAccount",
            "manageBankRule",
            "listBankRules",
            "getBankReconciliation",
            "getFinancialsSummary",
            "getAccountingSyncStatus",
            "getAccountingSyncErrors",
            "retryAccountingSyncs",
            "getCompanyFilings",
            "markFilingComplete",
            "setFilingReminders",
            "getProfitAndLoss",
            "getBalanceSheet",
            "getAgedBalances",
            "getAccountTransactions",
            "getVatReturn",
            "listBankTransactions",
        ),
        "billing": (
            "getAccountingSummary",
            "listTaxTypes",
            "previewTaxBreakdown",
            "previewCurrencyConversion",
            "createInvoice",
            "getInvoice",
            "updateInvoice",
            "deleteInvoice",
            "duplicateInvoice",
            "approveInvoice",
            "searchInvoices",
            "manageInvoice",
            "recordPayment",
            "allocateCreditNote",
            "refundCreditNote",
            "removePayment",
            "createQuote",
            "getQuote",
            "updateQuote",
            "deleteQuote",
            "searchQuotes",
            "manageQuote",
            "createCharge",
            "manageCharge",
            "listUnclaimedCharges",
            "sendInvoice",
            "sendInvoiceReminders",
            "snoozeInvoiceChase",
            "sendContactStatement",
        ),
        "admin": (
            "registerCompany",
            "updateRegisteredCompany",
            "examineCorporateRegister",
            "addCorporateEvent",
            "manageCompanyDomain",
        ),
    },
    nav=[NavItem("accounting", _("Accounting"), "accounting:overview", AccountingPerm.VIEW, order=45)],
    kinds=[
        # Invoices, quotes and credit notes: one model, told apart by their numbers' series.
        Kind(
            "sales_document",
            "accounting.SalesDocument",
            named=_("Invoice, quote or credit note"),
            title=sales_title,
            person_email="customer_email",
            search=("number", "customer_name", "customer_email", "reference", "notes"),
        ),
        Kind(
            "purchase_bill",
            "accounting.PurchaseBill",
            title=bill_title,
            search=("supplier_name", "reference", "notes"),
        ),
        Kind(
            "registered_company",
            "accounting.RegisteredCompany",
            title="name",
            search=("name", "number"),
            named=_("Registered company"),
        ),
    ],
    not_kinds={
        "accounting.Charge": "billable work waiting for an invoice (listUnclaimedCharges), then its line",
        "accounting.BankAccount": "part of the books' set-up (a ledger account), not a record of the work",
        "accounting.Financial": "a bank statement's line, found by amount and date (listFinancials), matched",
        "accounting.BankRule": "a set-up row suggesting how to code bank lines (listBankRules)",
        "accounting.BankTransaction": (
            "money spent, received or transferred without a document (listBankTransactions): a posting"
        ),
        "accounting.Filing": "a registered company's deadline, reached through it (getCompanyFilings)",
    },
    settings={
        # The base currency of a workspace's new books (ISO 4217); it chooses the default chart
        # of accounts and tax types (GBP: UK VAT, EUR: EU VAT, USD: US sales tax).
        "ATRIUM_ACCOUNTING_BASE_CURRENCY": env.str("ATRIUM_ACCOUNTING_BASE_CURRENCY", "GBP"),
        # Where exchange rates come from: "ecb-bundled" (offline, the ECB history a package
        # ships) or "ecb-live" (the ECB's eurofxref XML at ATRIUM_ACCOUNTING_RATES_URL).
        "ATRIUM_ACCOUNTING_RATES_PROVIDER": env.str("ATRIUM_ACCOUNTING_RATES_PROVIDER", "ecb-bundled"),
        "ATRIUM_ACCOUNTING_RATES_URL": env.str(
            "ATRIUM_ACCOUNTING_RATES_URL", "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.xml"
        ),
        # The company register (registerCompany, examineCorporateRegister): the Companies House
        # public data API; with no key there is no provider and companies are typed in.
        "ATRIUM_ACCOUNTING_REGISTER_URL": env.str(
            "ATRIUM_ACCOUNTING_REGISTER_URL", "https://api.company-information.service.gov.uk"
        ),
        "ATRIUM_ACCOUNTING_REGISTER_API_KEY": env.str("ATRIUM_ACCOUNTING_REGISTER_API_KEY", ""),
        # Reading scanned bills: the Tesseract program and the languages it reads ("eng+deu").
        "ATRIUM_ACCOUNTING_TESSERACT": env.str("ATRIUM_ACCOUNTING_TESSERACT", "tesseract"),
        "ATRIUM_ACCOUNTING_OCR_LANGUAGES": env.str("ATRIUM_ACCOUNTING_OCR_LANGUAGES", "eng"),
        # Sync to an outside ledger (apps.accounting.services.sync): "xero" speaks the Xero Accounting API
        # at ATRIUM_ACCOUNTING_SYNC_URL with an OAuth2 bearer token and the organisation's tenant
        # id; with no token sync is off.
        "ATRIUM_ACCOUNTING_SYNC_PROVIDER": env.str("ATRIUM_ACCOUNTING_SYNC_PROVIDER", "xero"),
        "ATRIUM_ACCOUNTING_SYNC_URL": env.str(
            "ATRIUM_ACCOUNTING_SYNC_URL", "https://api.xero.com/api.xro/2.0"
        ),
        "ATRIUM_ACCOUNTING_SYNC_TOKEN": env.str("ATRIUM_ACCOUNTING_SYNC_TOKEN", ""),
        "ATRIUM_ACCOUNTING_SYNC_TENANT": env.str("ATRIUM_ACCOUNTING_SYNC_TENANT", ""),
    },
    periodic={
        # Overdue invoices chased each morning where the books say so (Books.chase_as).
        "chase-overdue-invoices": areas.Periodic(
            "apps.accounting.sending.chase_every_workspace", crontab(hour=8, minute=7)
        ),
        # Filing reminders at each company's lead times (setFilingReminders), once a day.
        "send-filing-reminders": areas.Periodic(
            "apps.accounting.register.send_filing_reminders", crontab(hour=7, minute=23)
        ),
        # Pushes what is due to the outside ledger (retries after backoff), every five minutes.
        "push-to-outside-ledger": areas.Periodic("apps.accounting.sync.sweep", 300),
    },
)
