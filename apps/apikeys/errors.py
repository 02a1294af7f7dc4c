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


class BudgetExceeded(AppError):
    """429 with `details.resets_at` (null for a total budget) and, when it resets, Retry-After."""

    code = "BUDGET_EXCEEDED"
    message = _("The API key's budget is spent; raise the budget or wait for it to reset.")
    http_status = 429


class UnsafeWebhookUrl(ValidationFailed):
    """A response_url that is not https to a public address (SPEC: refused)."""

    message = _("The webhook URL is not allowed.")
