from django.utils.translation import gettext_lazy as _

from apps.core.errors import Conflict, Unauthenticated


class InvalidSharedSecret(Unauthenticated):
    """SPEC 5.4. Also the answer when no secret is configured: the caller learns nothing more."""

    message = _("The data-request secret is missing or invalid.")
    default_headers = {"WWW-Authenticate": 'Bearer realm="data-request"'}


class ErasureRefused(Conflict):
    code = "ERASURE_REFUSED"
    message = _("The person's data cannot be erased yet.")
