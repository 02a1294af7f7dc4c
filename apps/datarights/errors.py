"""Failures of the data-rights endpoint and of exporting and erasing personal data."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import BadRequest, Conflict, NotFound, Unauthenticated, ValidationFailed


class InvalidSharedSecret(Unauthenticated):
    """SPEC 5.4. Also the answer when no secret is configured: the caller learns nothing more."""

    message = _("The data-request secret is missing or invalid.")
    default_headers = {"WWW-Authenticate": 'Bearer realm="data-request"'}


class LengthNotANumber(BadRequest):
    message = _("The Content-Length header is not a number.")


class ErasureRefused(Conflict):
    """`reasons`: why, in the words of the areas that keep the person's data (their privacy
    handlers' vetoes)."""

    code = "ERASURE_REFUSED"
    msg_format = "{reasons}"


class NoSuchWorkspace(NotFound):
    message = _("No workspace has this schema name or host.")


class EmailInvalid(ValidationFailed):
    message = _("Enter a valid e-mail address.")
