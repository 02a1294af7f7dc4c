"""The Accounting area's failures: each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, NotFound


class Unbalanced(AppError):
    code = "UNBALANCED"
    http_status = 422
    data_fields = ("what",)
    msg_format = _("The posting does not balance: {what}. Debits must equal credits.")


class PeriodLocked(Conflict):
    code = "PERIOD_LOCKED"
    data_fields = ("date", "lock_date")
    msg_format = _(
        "{date} is in a locked period (the books are locked up to {lock_date}); use a later date "
        "or ask an accounting admin to move the lock date."
    )


class NoRate(NotFound):
    code = "NO_EXCHANGE_RATE"
    data_fields = ("source", "target", "date", "provider")
    msg_format = _(
        "No {source}/{target} exchange rate for {date} from {provider}; give the rate yourself "
        "or use another date."
    )


class RatesUnavailable(AppError):
    code = "RATES_UNAVAILABLE"
    http_status = 503
    data_fields = ("provider", "problem")
    msg_format = _("The exchange-rate provider {provider} did not answer usefully: {problem}.")


class NotDraft(Conflict):
    code = "NOT_DRAFT"
    data_fields = ("label", "id", "status")
    msg_format = _(
        "{label} {id} is {status}: only drafts change or are deleted. Correct an issued invoice "
        "with a credit note, or void it with manageInvoice."
    )


class WrongStatus(Conflict):
    code = "WRONG_STATUS"
    data_fields = ("label", "id", "status", "wanted")
    msg_format = _("{label} {id} is {status}; this needs it to be {wanted}.")


class BaseCurrencyInUse(Conflict):
    code = "BASE_CURRENCY_IN_USE"
    msg_format = _("The base currency cannot change once anything is posted to the ledger.")


# The company register (apps.accounting.register, apps.accounting.companies_house).


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
    data_fields = ("problem",)
    msg_format = _("The company register did not answer usefully: {problem}.")


class RegisterRateLimited(AppError):
    code = "REGISTER_RATE_LIMITED"
    http_status = 429
    data_fields = ("seconds",)
    msg_format = _("The company register limits how often it is asked; try again in {seconds} seconds.")


class NotOnRegister(NotFound):
    code = "NOT_ON_REGISTER"
    data_fields = ("number",)
    msg_format = _("The register has no company numbered {number}; check the number.")


class CompanyRegistered(Conflict):
    code = "COMPANY_REGISTERED"
    data_fields = ("number", "id")
    msg_format = _(
        "Company {number} is registered already (id {id}); change it with updateRegisteredCompany."
    )


# Purchase bills (apps.accounting.bills) and reading them (apps.accounting.ocr).
class OcrUnavailable(AppError):
    code = "OCR_UNAVAILABLE"
    http_status = 503
    data_fields = ("program",)
    msg_format = _(
        "This file is a scan, and reading scans needs the OCR program {program} (Debian package "
        "tesseract-ocr), which is not installed on this server. Ask an administrator to install it, "
        "or upload a PDF with a text layer."
    )


class OcrFailed(AppError):
    code = "OCR_FAILED"
    http_status = 422
    data_fields = ("problem",)
    msg_format = _("The scan could not be read: {problem}. Upload a clearer scan or a PDF with text.")


class NotABill(AppError):
    code = "NOT_A_BILL"
    http_status = 422
    data_fields = ("name", "mime_type")
    msg_format = _(
        "File {name} ({mime_type}) is not a PDF or an image; a bill is read from a PDF or a scan "
        "(PNG, JPEG, TIFF, WebP)."
    )


class BillNotTied(AppError):
    code = "AMOUNT_DOES_NOT_TIE"
    http_status = 422
    data_fields = ("stated", "computed", "currency")
    msg_format = _(
        "The bill states a total of {stated} {currency} but its lines add up to {computed} "
        "{currency}. Correct the lines with validatePurchaseInvoiceProposal, or the stated total "
        "with reconcilePurchaseInvoiceTotal."
    )


class DuplicateBill(Conflict):
    code = "DUPLICATE_BILL"
    data_fields = ("other_id", "supplier", "reference")
    msg_format = _(
        "Bill {other_id} from {supplier} with reference {reference}, the same total and date, is "
        "already posted: this looks like the same bill twice. Delete the proposal, or correct its "
        "reference if it is a different bill."
    )


class BillNotValid(AppError):
    code = "BILL_NOT_VALID"
    http_status = 422
    data_fields = ("id", "problems")
    msg_format = _("Bill {id} cannot be posted yet: {problems}. Fix it with validatePurchaseInvoiceProposal.")


# Sync to an outside ledger (apps.accounting.sync, apps.accounting.xero).
class SyncNotConfigured(AppError):
    code = "SYNC_NOT_CONFIGURED"
    http_status = 409
    msg_format = _(
        "Sync to an outside ledger is off: no provider is configured (ATRIUM_ACCOUNTING_SYNC_TOKEN "
        "is empty). Nothing was pushed; ask an administrator to connect the outside ledger."
    )
