from django.utils.translation import gettext as _

from apps.core.errors import AppError, ServiceUnavailable


class CreditCheckUnavailable(ServiceUnavailable):
    code = "CREDIT_CHECK_UNAVAILABLE"


class CreditCheckNotConfigured(AppError):
    code = "CREDIT_CHECK_NOT_CONFIGURED"
    http_status = 409
    message = _(
        "Credit checks are not set up for this workspace: no credit bureau is configured. Tell the user "
        "that an administrator must connect a credit bureau first; do not retry."
    )
