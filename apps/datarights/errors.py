from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, Unauthenticated


class InvalidSharedSecret(Unauthenticated):
    """SPEC 5.4. Also the answer when no secret is configured: the caller learns nothing more."""

    message = _("The data-request secret is missing or invalid.")

    def __init__(self) -> None:
        super().__init__(headers={"WWW-Authenticate": 'Bearer realm="data-request"'})


class PayloadTooLarge(AppError):
    code = "PAYLOAD_TOO_LARGE"
    message = _("The request body is too large.")
    http_status = 413


class ErasureRefused(Conflict):
    code = "ERASURE_REFUSED"
    message = _("The person's data cannot be erased yet.")
