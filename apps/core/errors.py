"""The one base error of Atrium. Each app declares its own failures in its `errors.py`.

An AppError carries what every door needs: a stable machine code, a message a person can read,
the HTTP status for JSON APIs, and optional details (field errors). The DRF exception handler
(`apps.core.api.exceptions`) turns it into SPEC 7.1's body, MCP into a tool error, and
`apps.core.pages` into a page's answer.

A failure that names facts declares them and a template, once (Zulip's `data_fields` and
`msg_format`), instead of a class with an `__init__` that formats its message:

    class EventReadOnly(Conflict):
        code = "EVENT_READ_ONLY"
        data_fields = ("id",)
        msg_format = _("You are invited to event {id} but it is on a calendar you may not change.")

    raise EventReadOnly(id=event.pk)

The commonest ones are here for every area: a record not found (`RecordNotFound`, or plain
NOT_FOUND for a selector's miss: `or_not_found`), in the trash (`InTrash`), seen but not changeable
(`ReadOnly`), and a field's value refused (`invalid`).
"""

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.utils.translation import gettext_lazy as _

_T = TypeVar("_T")


class AppError(Exception):
    code: str = "ERROR"
    message: Any = _("Something went wrong.")
    http_status: int = 400
    # The facts a templated error names (given as keyword arguments), and its template.
    data_fields: tuple[str, ...] = ()
    msg_format: Any = ""
    # Headers every answer of this failure carries (a 401's challenge), unless others are given.
    default_headers: dict[str, str] = {}

    def __init__(
        self,
        message: Any = None,
        *,
        code: str | None = None,
        http_status: int | None = None,
        details: Any = None,
        headers: dict[str, str] | None = None,
        **data: Any,
    ) -> None:
        unknown = set(data) - set(self.data_fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} takes no {', '.join(sorted(unknown))}")
        self.data = data
        if message is None and self.msg_format:
            message = str(self.msg_format).format(**data)
        if message is not None:
            self.message = message
        if code is not None:
            self.code = code
        if http_status is not None:
            self.http_status = http_status
        self.details = details
        self.headers = dict(self.default_headers) if headers is None else headers
        super().__init__(str(self.message))

    def as_body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": str(self.message)}
        if self.details is not None:
            error["details"] = self.details
        return {"error": error}


class BadRequest(AppError):
    code = "BAD_REQUEST"
    message = _("The request could not be read.")


class Unauthenticated(AppError):
    code = "UNAUTHENTICATED"
    message = _("Access token missing or invalid.")
    http_status = 401


class Forbidden(AppError):
    code = "FORBIDDEN"
    message = _("You do not have permission to do this.")
    http_status = 403


class NotFound(AppError):
    code = "NOT_FOUND"
    message: Any = _("Not found.")
    http_status = 404


class Conflict(AppError):
    code = "CONFLICT"
    message: Any = _("The request conflicts with the current state.")
    http_status = 409


class ValidationFailed(AppError):
    """SPEC 7.1: 422 whose message explains; `details` maps each field to its problems."""

    code = "VALIDATION_ERROR"
    message = _("The request is not valid.")
    http_status = 422


def or_not_found(record: _T | None) -> _T:
    """`record`, or NOT_FOUND when there is none (a selector's `.first()` that found nothing)."""
    if record is None:
        raise NotFound()
    return record


def invalid(field: str, problem: Any) -> ValidationFailed:
    """The one validation failure of a single field: "field: problem." with details naming it."""
    return ValidationFailed(f"{field}: {problem}.", details={field: [str(problem)]})


class RecordNotFound(NotFound):
    """A record that does not exist, or that the actor may not see: the same answer, so an id
    tells nothing (apps.core.records fills it from the model's access declaration)."""

    data_fields = ("label", "id", "find_with")
    msg_format = _("{label} {id} was not found, or you may not see it. {find_with}")

    def __init__(self, *, label: Any, id: Any, find_with: str = "") -> None:
        hint = _("Find the right id with %(tool)s.") % {"tool": find_with} if find_with else ""
        super().__init__(label=label, id=id, find_with=hint)
        self.message = str(self.message).strip()


class InTrash(Conflict):
    """A record in the trash (or archived), named where a live one is needed; `hint` says how
    to bring it back."""

    code = "IN_TRASH"
    data_fields = ("label", "id", "state", "hint")
    msg_format = _("{label} {id} is {state}. {hint}")

    def __init__(
        self, *, label: Any, id: Any, state: Any = "", hint: Any = "", code: str | None = None
    ) -> None:
        super().__init__(code=code, label=label, id=id, state=state or _("in the trash"), hint=hint)
        self.message = str(self.message).strip()


class ReadOnly(Forbidden):
    """A record the actor may see but not change (private, shared with them to view)."""

    data_fields = ("label", "id")
    msg_format = _(
        "You can see {label} {id} but not change it: it is private. Ask its owner to share it "
        "with you with edit access."
    )


class AreaNotAvailable(AppError):
    """What a tool needs lives in an area this workspace does not use (no calendar, no mailbox)."""

    code = "AREA_NOT_AVAILABLE"
    http_status = 409


class PayloadTooLarge(AppError):
    code = "PAYLOAD_TOO_LARGE"
    message = _("The request body is too large.")
    http_status = 413


class RateLimited(AppError):
    code = "RATE_LIMITED"
    message = _("Too many requests; slow down.")
    http_status = 429


class ServiceUnavailable(AppError):
    code = "UNAVAILABLE"
    message = _("The service is temporarily unavailable; try again shortly.")
    http_status = 503


# How long a client is asked to wait before retrying while a dependency is unreachable: a
# PostgreSQL or Redis restart takes seconds (docs/deploy.md, "When PostgreSQL or Redis restarts").
RETRY_AFTER_SECONDS = 5
_OUTAGE_TYPES: tuple[type[BaseException], ...] | None = None


def _outage_types() -> tuple[type[BaseException], ...]:
    global _OUTAGE_TYPES
    if _OUTAGE_TYPES is None:
        import psycopg
        import redis.exceptions
        from django.db import InterfaceError, OperationalError
        from kombu.exceptions import OperationalError as BrokerError

        _OUTAGE_TYPES = (
            OperationalError,  # PostgreSQL unreachable, restarting, or the connection cut
            InterfaceError,  # a connection already closed under us
            psycopg.OperationalError,  # the same, from the driver itself (not through Django)
            psycopg.InterfaceError,
            redis.exceptions.ConnectionError,
            redis.exceptions.TimeoutError,
            BrokerError,  # Celery could not hand a task to the broker
        )
    return _OUTAGE_TYPES


def concurrent_conflict(error: BaseException) -> Conflict | None:
    """SPEC 7.1's 409 CONFLICT when `error` is the database refusing a write because of one made
    at the same moment (a unique or exclusion constraint met by a concurrent insert, a deadlock,
    a serialization failure): the request lost a race, nothing of it was kept, and sending it
    again sees the other write. None for any other error."""
    from apps.core.db import database_failure

    failure = database_failure(error)
    if failure is None or not failure.is_conflict:
        return None
    return Conflict(
        _("This conflicts with a change saved at the same moment; nothing was saved. Reload and try again.")
    )


def unavailable(error: BaseException | None) -> ServiceUnavailable | None:
    """SPEC 7.1's 503 UNAVAILABLE (with Retry-After) when `error`, or what caused it, means a
    dependency cannot be reached right now: the same request may succeed if sent again in a few
    seconds, and nothing of it was kept. None for any other error (a bug: a 500), and for a lost
    race: a deadlock or a serialization failure is an OperationalError too, but the database is
    there (`concurrent_conflict`)."""
    from apps.core.db import database_failure

    failure = database_failure(error) if error is not None else None
    if failure is not None and failure.is_conflict:
        return None
    seen = 0
    while error is not None and seen < 5:
        if isinstance(error, _outage_types()):
            return ServiceUnavailable(headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
        error = error.__cause__ or error.__context__
        seen += 1
    return None


@contextmanager
def unless_unavailable(log: logging.Logger, message: str, *args: Any) -> Iterator[None]:
    """Runs the block; when a dependency it needs is out of reach (`unavailable`), logs `message`
    as a warning, the error as its last argument, and goes on. Any other error propagates. For
    work whose loss the caller accepts (what Redis would have told the other processes)."""
    try:
        yield
    except Exception as error:
        if unavailable(error) is None:
            raise
        from apps.core.observability import describe_error

        log.warning(message, *args, describe_error(error))
