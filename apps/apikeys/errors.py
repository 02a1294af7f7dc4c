"""The failures of the bearer-token-plus-API-key scheme (SPEC 7.1), and of key management."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, ValidationFailed

# 401s carry a challenge, as HTTP asks.
CHALLENGE = {"WWW-Authenticate": 'Bearer realm="atrium"'}


class InvalidApiKey(AppError):
    code = "INVALID_API_KEY"
    message = _("API key missing or invalid: send it in the X-Api-Key header.")
    http_status = 401
    default_headers = CHALLENGE


class KeyOwnerMismatch(AppError):
    code = "KEY_OWNER_MISMATCH"
    message = _("The API key belongs to someone else than the access token's owner.")
    http_status = 403


class KeyRevoked(AppError):
    code = "KEY_REVOKED"
    message = _("The API key has been revoked; create a new one in the workspace settings.")
    http_status = 403


class RevokedKeyUnchangeable(KeyRevoked):
    message = _("The API key has been revoked; a revoked key cannot be changed.")


class BudgetExceeded(AppError):
    """429 with `details.resets_at` (null for a total budget) and, when it resets, Retry-After."""

    code = "BUDGET_EXCEEDED"
    message = _("The API key's budget is spent; raise the budget or wait for it to reset.")
    http_status = 429


class TotalBudgetSpent(BudgetExceeded):
    msg_format = _(
        "The API key's total budget of {budget} is spent; it does not reset: raise the budget to go on."
    )


class TotalBudgetShort(BudgetExceeded):
    msg_format = _(
        "The API key's total budget has {left} left, less than this call may cost ({wanted}); raise the "
        "budget to go on."
    )


class PeriodBudgetSpent(BudgetExceeded):
    msg_format = _(
        "The API key's {period} budget of {budget} is spent; it resets at {when} ({zone}). Raise the "
        "budget or wait until then."
    )


class PeriodBudgetShort(BudgetExceeded):
    msg_format = _(
        "The API key's {period} budget has {left} left, less than this call may cost ({wanted}); it "
        "resets at {when} ({zone})."
    )


class UnsafeWebhookUrl(ValidationFailed):
    """A response_url that is not https to a public address (SPEC: refused); `problem` is the
    address rules' own sentence (apps.core.outbound)."""

    field = "response_url"
    msg_format = "{problem}"


# A key's fields, each refused in a sentence of its own (apps.apikeys.services).


class LabelNotText(ValidationFailed):
    field = "label"
    message = _("The label must be a string.")


class LabelTooLong(ValidationFailed):
    field = "label"
    msg_format = _("Labels are at most {most} characters.")


class WebhookUrlNotText(ValidationFailed):
    field = "response_url"
    message = _("The webhook URL must be a string.")


class BudgetNotCents(ValidationFailed):
    field = "budget_usd_cents"
    message = _("The budget is a whole number of US cents, or null.")


class BudgetOutOfRange(ValidationFailed):
    field = "budget_usd_cents"
    msg_format = _("The budget is between 0 and {most} cents.")


class UnknownPeriod(ValidationFailed):
    field = "budget_period"
    msg_format = _("The budget period is one of: {values}.")


class UnknownProfile(ValidationFailed):
    field = "profile"
    msg_format = _("The profile is one of: {values} (or empty for none).")


class OverlapOutOfRange(ValidationFailed):
    field = "overlap_hours"
    message = _("The overlap is between 0 and 168 hours.")


class OverlapRequired(ValidationFailed):
    message = _("Choose how long the old secret stays valid.")


class UnknownClient(ValidationFailed):
    field = "client"
    msg_format = _("“{client}” is not a known client. Accepted: {names}.")


class BodyNotObject(ValidationFailed):
    message = _("The body must be a JSON object.")


class UnknownStatus(ValidationFailed):
    message = _("status is active or revoked.")
