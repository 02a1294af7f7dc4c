"""The Accounting area's failures: each names the problem and what to do next. A `problem` is a
translatable constant of ours or the words of the outside party that failed (an exception's kind,
a provider's answer); a problem of ours that names facts is a variant giving its `problem_format`."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, NoExchangeRate, NotFound


class Unbalanced(AppError):
    code = "UNBALANCED"
    http_status = 422
    msg_format = _("The posting does not balance: {what}. Debits must equal credits.")


class LinesDoNotSum(Unbalanced):
    msg_format = _(
        "The posting does not balance: the lines sum to {total} {currency}. Debits must equal credits."
    )


class PeriodLocked(Conflict):
    code = "PERIOD_LOCKED"
    msg_format = _(
        "{date} is in a locked period (the books are locked up to {lock_date}); use a later date "
        "or ask an accounting admin to move the lock date (setLockDate)."
    )


class RatesUnavailable(AppError):
    code = "RATES_UNAVAILABLE"
    http_status = 503
    msg_format = _("The exchange-rate provider {provider} did not answer usefully: {problem}.")


class RatesDayUnreadable(RatesUnavailable):
    problem_format = _("a day it sent cannot be read ({day})")


class NoBooksRate(NoExchangeRate):
    """No rate for the books: the provider publishes none that day (the ECB has no KWD or BHD) and
    none was recorded; the tool that records one is named."""

    msg_format = _(
        "No {source}/{target} exchange rate for {date}: the rate provider publishes none and none is "
        "recorded. Record the rate with recordExchangeRate (one {source} in {target} on that day), "
        "or use another date or currency."
    )


class NotDraft(Conflict):
    code = "NOT_DRAFT"
    msg_format = _(
        "{label} {id} is {status}: only drafts change or are deleted. Correct an issued invoice "
        "with a credit note, or void it with manageInvoice."
    )


class WrongStatus(Conflict):
    code = "WRONG_STATUS"
    msg_format = _("{label} {id} is {status}; this needs it to be {wanted}.")


class BankLineMatched(WrongStatus):
    msg_format = _(
        "Bank line {id} is matched (match {match}); this needs it to be unmatched: undo the match with "
        "unmatchPurchaseInvoiceLine first."
    )


class NotManualJournal(Conflict):
    code = "NOT_MANUAL_JOURNAL"
    msg_format = _(
        "Entry {id} is not a manual journal (posted by {source}): correct a document's posting through "
        "the document (void an invoice with manageInvoice, undo a match with unmatchPurchaseInvoiceLine); "
        "reverseJournal reverses the manual journals of postJournal."
    )


class AlreadyReversed(Conflict):
    code = "ALREADY_REVERSED"
    msg_format = _(
        "Entry {id} is reversed already, by entry {reversal}; post a new journal with postJournal if "
        "something is still to correct."
    )


class DraftJournalDecided(Conflict):
    code = "DRAFT_JOURNAL_DECIDED"
    msg_format = _(
        "Draft journal {id} is {status} already: only a draft awaiting approval is approved or "
        "discarded. listJournals with status awaiting_approval lists those."
    )


class CodeTaken(Conflict):
    code = "CODE_TAKEN"
    field = "code"
    msg_format = _(
        "{what} code {code} is taken ({name}); codes are unique, archived ones too: choose another."
    )


class AccountProtected(Conflict):
    code = "ACCOUNT_PROTECTED"
    msg_format = _(
        "Account {code} ({name}) is the books' {role} account, which the ledger posts to itself: it is "
        "kept (rename it if you like); add another account for what you need."
    )


class AccountInUse(Conflict):
    code = "ACCOUNT_IN_USE"
    msg_format = _(
        "Account {code} ({name}) has postings or is on a document's line: it is archived, not deleted "
        "(manageAccount action archive), and what it holds stays in every report."
    )


class TaxTypeInUse(Conflict):
    code = "TAX_TYPE_IN_USE"
    msg_format = _(
        "Tax type {code} has taxed postings or lines at {rate} %: its rate, kind and reason stay as they "
        "were. Add a new tax type with the new rate (manageTaxType action add) and archive this one."
    )


class BaseCurrencyInUse(Conflict):
    code = "BASE_CURRENCY_IN_USE"
    msg_format = _("The base currency cannot change once anything is posted to the ledger.")


# The company register (apps.accounting.services.register, apps.accounting.providers.companies_house).


class RegisterNotConfigured(AppError):
    code = "REGISTER_NOT_CONFIGURED"
    http_status = 409
    msg_format = _(
        "No company register provider is configured (ATRIUM_ACCOUNTING_REGISTER_API_KEY is empty); "
        "register the company with its details given instead, fromRegister false."
    )


class RegisterUnavailable(AppError):
    code = "REGISTER_UNAVAILABLE"
    http_status = 503
    msg_format = _("The company register did not answer usefully: {problem}.")


class RegisterUnreachable(RegisterUnavailable):
    problem_format = _("cannot reach it ({kind})")


class RegisterHttpError(RegisterUnavailable):
    problem_format = _("HTTP {status}")


class RegisterRateLimited(AppError):
    code = "REGISTER_RATE_LIMITED"
    http_status = 429
    msg_format = _("The company register limits how often it is asked; try again in {seconds} seconds.")


class NotOnRegister(NotFound):
    code = "NOT_ON_REGISTER"
    msg_format = _("The register has no company numbered {number}; check the number.")


class CompanyRegistered(Conflict):
    code = "COMPANY_REGISTERED"
    msg_format = _(
        "Company {number} is registered already (id {id}); change it with updateRegisteredCompany."
    )


class DomainOfAnotherCompany(Conflict):
    msg_format = _("{domain} belongs to another company ({company}).")


# Purchase bills (apps.accounting.services.bills) and reading them (apps.accounting.providers.ocr).
class OcrUnavailable(AppError):
    code = "OCR_UNAVAILABLE"
    http_status = 503
    msg_format = _(
        "This file is a scan, and reading scans needs the OCR program {program} (Debian package "
        "tesseract-ocr), which is not installed on this server. Ask an administrator to install it, "
        "or upload a PDF with a text layer."
    )


class OcrFailed(AppError):
    code = "OCR_FAILED"
    http_status = 422
    msg_format = _("The scan could not be read: {problem}. Upload a clearer scan or a PDF with text.")


class OcrImageUnreadable(OcrFailed):
    problem_format = _("the image could not be read ({kind})")


class OcrPdfImagesUnreadable(OcrFailed):
    problem_format = _("the PDF's images could not be read ({kind})")


class OcrTimedOut(OcrFailed):
    problem_format = _("it took longer than {seconds} seconds")


class NotABill(AppError):
    code = "NOT_A_BILL"
    http_status = 422
    msg_format = _(
        "File {name} ({mime_type}) is not a PDF or an image; a bill is read from a PDF or a scan "
        "(PNG, JPEG, TIFF, WebP)."
    )


class BillNotTied(AppError):
    code = "AMOUNT_DOES_NOT_TIE"
    http_status = 422
    msg_format = _(
        "The bill states a total of {stated} {currency} but its lines add up to {computed} "
        "{currency}. Correct the lines with validatePurchaseInvoiceProposal, or the stated total "
        "with reconcilePurchaseInvoiceTotal."
    )


class DuplicateBill(Conflict):
    code = "DUPLICATE_BILL"
    msg_format = _(
        "Bill {other_id} from {supplier} with reference {reference}, the same total and date, is "
        "already posted: this looks like the same bill twice. Discard this one with "
        "discardPurchaseInvoiceProposal, or correct its reference with validatePurchaseInvoiceProposal if "
        "it is a different bill."
    )


class DuplicateBillReference(DuplicateBill):
    msg_format = _(
        "Bill {other_id} from {supplier} already has the reference {reference}: a supplier's invoice "
        "number is entered once. Find it with searchPurchaseInvoices; if this is another bill, give "
        "the reference the supplier printed on it."
    )


class BillNotValid(AppError):
    code = "BILL_NOT_VALID"
    http_status = 422
    msg_format = _("Bill {id} cannot be posted yet: {problems}. Fix it with validatePurchaseInvoiceProposal.")


# Sync to an outside ledger (apps.accounting.services.sync, apps.accounting.providers.xero).
class SyncNotConfigured(AppError):
    code = "SYNC_NOT_CONFIGURED"
    http_status = 409
    msg_format = _(
        "Sync to an outside ledger is off: no provider is configured (ATRIUM_ACCOUNTING_SYNC_TOKEN "
        "is empty). Nothing was pushed; ask an administrator to connect the outside ledger."
    )


# Bank statements (apps.accounting.lib.statements) and matching them (apps.accounting.services.matching).


class StatementUnreadable(AppError):
    code = "STATEMENT_UNREADABLE"
    http_status = 422
    msg_format = _("The {format} statement could not be read: {problem}. Check the file and its format.")


class UnknownStatementFormat(StatementUnreadable):
    problem_format = _("formats are {formats}")


class StatementTooLong(StatementUnreadable):
    problem_format = _("more than {most} lines; split it")


class NoSuchColumn(StatementUnreadable):
    problem_format = _("no column {column!r} (the columns are {columns})")
    defaults = {"format": "csv"}


class NotADate(StatementUnreadable):
    problem_format = _("row {row}: {text!r} is not a date as {date_format}")
    defaults = {"format": "csv"}


class NotAnAmount(StatementUnreadable):
    problem_format = _("row {row}: {text!r} is not an amount")
    defaults = {"format": "csv"}


class NotTied(AppError):
    code = "AMOUNTS_DO_NOT_TIE"
    http_status = 422
    msg_format = _(
        "The bank lines sum to {financials} {currency} but the document lines to {lines} {currency} "
        "(invoices in, bills out): amounts must tie. Add or remove lines, or give part amounts."
    )


# Sales documents (apps.accounting.services.sales) and the lines of any document (apps.accounting.lib).


class AmountTooLarge(AppError):
    code = "AMOUNT_TOO_LARGE"
    http_status = 422
    msg_format = _(
        "{what} comes to {amount} {currency}, more than the ledger holds (less than {most} "
        "{currency}); nothing was written. Check the quantities and prices, or split it over several "
        "documents."
    )


class NegativeTotal(AppError):
    code = "NEGATIVE_TOTAL"
    http_status = 422
    msg_format = _(
        "{label} {id} totals {total} {currency}, less than zero: it is not approved. To give a customer "
        "money back, draft a credit note on the invoice it corrects (manageInvoice, action credit)."
    )


class NegativeBill(NegativeTotal):
    msg_format = _(
        "The bill totals {total} {currency}, less than zero: it is not entered. Money a supplier "
        "gives back is a supplier credit note on the bill it corrects (createSupplierCreditNote)."
    )


class SameCreator(AppError):
    code = "SEPARATION_OF_DUTIES"
    http_status = 403
    msg_format = _(
        "{label} {id} was created by you, and the books separate duties: the person who created a "
        "document may not approve or post it. Ask another person with accounting.post to do it."
    )


class ControlAccountOnLine(AppError):
    code = "CONTROL_ACCOUNT_ON_LINE"
    http_status = 422
    field = "account"
    msg_format = _(
        "Account {code} ({name}) is a control or bank account: the ledger posts to it itself. Code a "
        "document line to an income, expense or asset account (the default when none is given)."
    )


class ControlAccountInJournal(ControlAccountOnLine):
    field = "lines"
    msg_format = _(
        "Account {code} ({name}) is a control or bank account: its balance is what documents, payments "
        "and bank matches post. A manual journal uses other accounts (an accrual, a prepayment, an "
        "expense); correct a document through the document."
    )


class CreditNoteMismatch(AppError):
    code = "CREDIT_NOTE_MISMATCH"
    http_status = 422
    msg_format = _("Credit note {id} does not fit invoice {invoice}: {problem}.")


class CreditNoteCurrency(CreditNoteMismatch):
    msg_format = _(
        "Credit note {id} does not fit invoice {invoice}: a credit note is in its invoice's currency, "
        "{currency}, not {given}."
    )


class CreditNoteBeforeInvoice(CreditNoteMismatch):
    msg_format = _(
        "Credit note {id} does not fit invoice {invoice}: it is dated {date}, before the invoice's "
        "issue date {invoice_date}; date it on or after that day."
    )


class CreditOtherCustomer(CreditNoteMismatch):
    msg_format = _(
        "Credit note {id} does not fit invoice {invoice}: the credit is {customer}'s and the invoice "
        "{other}'s; credit is applied to the same customer's invoices."
    )


class PaymentReconciled(WrongStatus):
    msg_format = _(
        "Payment {id} is reconciled with a bank line (bank match {match}); undo the match with "
        "unmatchPurchaseInvoiceLine first, then remove the payment."
    )


class PaymentRemoved(WrongStatus):
    msg_format = _("Payment {id} was removed on {day}; there is nothing left to undo or reconcile.")


# Reports (apps.accounting.selectors.reports) and the VAT return (apps.accounting.lib.vat_return).


class VatReturnNotUk(AppError):
    code = "VAT_RETURN_NOT_UK"
    http_status = 409
    msg_format = _(
        "The VAT return here is the UK's (Making Tax Digital, boxes 1-9), and these books keep {regime} "
        "in {currency}. Read the tax per tax type from getProfitAndLoss and getAccountTransactions "
        "(taxType) instead."
    )


class VatSchemeNotSupported(AppError):
    code = "VAT_SCHEME_NOT_SUPPORTED"
    http_status = 422
    field = "scheme"
    msg_format = _(
        "The {scheme} scheme is not supported: the ledger counts VAT when invoices and bills are posted "
        "(the invoice basis) and keeps no VAT per payment, so its figures would be wrong. Prepare this "
        "return outside the books, or ask for scheme invoice."
    )


# Bank accounts, money spent and received without a document, transfers
# (apps.accounting.services.banking).


class BankTransactionReconciled(WrongStatus):
    msg_format = _(
        "Bank transaction {id} is reconciled with a bank line (bank match {match}); undo the match with "
        "unmatchPurchaseInvoiceLine first, then void it."
    )


class BankTransactionVoided(WrongStatus):
    msg_format = _("Bank transaction {id} was voided on {day}; there is nothing left to undo or reconcile.")


class BankAccountNotEmpty(WrongStatus):
    msg_format = _(
        "Bank account {name} holds {balance} {currency} in the ledger; transfer it out "
        "(transferBankFunds) before archiving the account."
    )
