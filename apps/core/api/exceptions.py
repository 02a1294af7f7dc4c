"""The one DRF exception handler: every JSON API error has SPEC 7.1's body.

    {"error": {"code": "...", "message": "..."}}

Views raise; they never build an error body. Validation errors also carry `details`
(field -> messages) so a client can point at the field.
"""

import itertools
import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

from apps.core import errors
from apps.core.observability import describe_error

logger = logging.getLogger(__name__)

# DRF's own exceptions, mapped onto our failures (in DRF's words).
DRF_ERRORS: dict[type[exceptions.APIException], type[errors.AppError]] = {
    exceptions.NotAuthenticated: errors.DrfUnauthenticated,
    exceptions.AuthenticationFailed: errors.DrfUnauthenticated,
    exceptions.PermissionDenied: errors.DrfForbidden,
    exceptions.NotFound: errors.DrfNotFound,
    exceptions.MethodNotAllowed: errors.MethodNotAllowed,
    exceptions.NotAcceptable: errors.NotAcceptable,
    exceptions.UnsupportedMediaType: errors.UnsupportedMediaType,
    exceptions.ParseError: errors.DrfBadRequest,
    exceptions.Throttled: errors.DrfRateLimited,
}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    if isinstance(exc, Http404):
        exc = errors.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = errors.Forbidden()
    error = to_app_error(exc)
    if error is None:
        view = context.get("view")
        logger.exception("unhandled error in %s", type(view).__name__ if view else "an API view")
        error = errors.InternalError()
    set_rollback()
    response = Response(bounded(error).as_body(), status=error.http_status)
    for name, value in error.headers.items():
        response[name] = value
    return response


# An error body names at most MAX_FIELDS fields (in its details and in each list or object inside
# them) and says how many more; its message and each text in it are at most MAX_TEXT characters,
# and a field's name at most MAX_NAME. A body with 100,000 unknown fields is refused in a few
# lines, not in megabytes: one line for each (as an MCP argument error names at most five).
MAX_FIELDS = 20
MAX_TEXT = 2_000
MAX_NAME = 80


def bounded(error: errors.AppError) -> errors.AppError:
    """`error` with its message and details cut to the limits above (unchanged if within them)."""
    more = len(error.details) - MAX_FIELDS if isinstance(error.details, dict) else 0
    message = _cut(str(error.message), MAX_TEXT)
    if more > 0:
        message += " " + _("(And %(count)s more fields.)") % {"count": f"{more:,}"}
    error.message = message
    error.details = _bounded(error.details)
    return error


def _bounded(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            _cut(str(key), MAX_NAME): _bounded(item)
            for key, item in itertools.islice(value.items(), MAX_FIELDS)
        }
    if isinstance(value, list | tuple):
        items = [_bounded(item) for item in value[:MAX_FIELDS]]
        if len(value) > MAX_FIELDS:
            items.append(_("… and %(count)s more") % {"count": f"{len(value) - MAX_FIELDS:,}"})
        return items
    if isinstance(value, str):
        return _cut(value, MAX_TEXT)
    return value


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;") + " …"


def to_app_error(exc: Exception) -> errors.AppError | None:
    if isinstance(exc, errors.AppError):
        return exc
    # A deadlock is an OperationalError too: a lost race, not an outage.
    conflict = errors.concurrent_conflict(exc)
    if conflict is not None:
        logger.warning("answering 409, a concurrent write won: %s", describe_error(exc))
        return conflict
    outage = errors.unavailable(exc)
    if outage is not None:
        logger.warning("a dependency is unreachable; answering 503: %s", describe_error(exc))
        return outage
    if isinstance(exc, exceptions.ValidationError):
        return errors.FieldsInvalid(problems=summarise(exc.detail), details=exc.detail)
    # Every refusal DRF makes is mapped; another APIException is a bug (a 500).
    failure = next((mapped for kind, mapped in DRF_ERRORS.items() if isinstance(exc, kind)), None)
    if failure is not None and isinstance(exc, exceptions.APIException):
        headers = {}
        # NotAuthenticated and Throttled carry these (set by DRF's views).
        auth_header, wait = getattr(exc, "auth_header", None), getattr(exc, "wait", None)
        if auth_header:
            headers["WWW-Authenticate"] = auth_header
        if wait:
            headers["Retry-After"] = str(int(wait))
        return failure(detail=str(exc.detail), headers=headers)
    return None


def summarise(detail: Any, prefix: str = "") -> str:
    """One readable sentence out of DRF's nested error detail: 'message: This field is required.'"""
    if isinstance(detail, dict):
        parts = [
            summarise(value, f"{prefix}{key}." if key != "non_field_errors" else prefix)
            for key, value in detail.items()
        ]
        return " ".join(part for part in parts if part)
    if isinstance(detail, list):
        return " ".join(summarise(item, prefix) for item in detail)
    label = prefix.rstrip(".")
    return f"{label}: {detail}" if label else str(detail)
