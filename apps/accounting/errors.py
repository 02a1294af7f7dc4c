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
