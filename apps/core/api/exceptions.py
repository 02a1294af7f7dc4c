"""The one DRF exception handler: every JSON API error has SPEC 7.1's body.

    {"error": {"code": "...", "message": "..."}}

Views raise; they never build an error body. Validation errors also carry `details`
(field -> messages) so a client can point at the field.
"""

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

# DRF's own exceptions, mapped onto our codes.
DRF_CODES: dict[type[exceptions.APIException], tuple[int, str]] = {
    exceptions.NotAuthenticated: (401, "UNAUTHENTICATED"),
    exceptions.AuthenticationFailed: (401, "UNAUTHENTICATED"),
    exceptions.PermissionDenied: (403, "FORBIDDEN"),
    exceptions.NotFound: (404, "NOT_FOUND"),
    exceptions.MethodNotAllowed: (405, "METHOD_NOT_ALLOWED"),
    exceptions.NotAcceptable: (406, "NOT_ACCEPTABLE"),
    exceptions.UnsupportedMediaType: (415, "UNSUPPORTED_MEDIA_TYPE"),
    exceptions.ParseError: (400, "BAD_REQUEST"),
    exceptions.Throttled: (429, "RATE_LIMITED"),
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
        error = errors.AppError(
            _("Internal error; it has been logged."), code="INTERNAL_ERROR", http_status=500
        )
    set_rollback()
    response = Response(error.as_body(), status=error.http_status)
    for name, value in error.headers.items():
        response[name] = value
    return response


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
        return errors.ValidationFailed(summarise(exc.detail), details=exc.detail)
    if isinstance(exc, exceptions.APIException):
        status, code = next(
            (mapped for kind, mapped in DRF_CODES.items() if isinstance(exc, kind)),
            (exc.status_code, str(exc.default_code).upper()),
        )
        headers = {}
        # NotAuthenticated and Throttled carry these (set by DRF's views).
        auth_header, wait = getattr(exc, "auth_header", None), getattr(exc, "wait", None)
        if auth_header:
            headers["WWW-Authenticate"] = auth_header
        if wait:
            headers["Retry-After"] = str(int(wait))
        return errors.AppError(str(exc.detail), code=code, http_status=status, headers=headers)
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
