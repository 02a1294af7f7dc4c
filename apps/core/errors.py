"""The one base error of Atrium, and the registry of its codes. Each app declares its own failures
in its `errors.py`.

An AppError carries what every door needs: a stable machine code, a message a person can read,
the HTTP status for JSON APIs, and optional details (field errors). The DRF exception handler
(`apps.core.api.exceptions`) turns it into SPEC 7.1's body, MCP into a tool error, and
`apps.core.pages` into a page's answer.

Every failure is a class, declared once (Zulip's `JsonableError` with its `ErrorCode`; Saleor's
per-domain codes): its code, its status, and its message, either fixed (`message`) or a template
naming facts (`msg_format`; the facts it names are its `data_fields`, read from the words, so
they are written once). A raise site gives the facts, never the text:

    class EventReadOnly(Conflict):
        code = "EVENT_READ_ONLY"
        msg_format = _("You are invited to event {id} but it is on a calendar you may not change.")

    raise EventReadOnly(id=event.pk)

A class that declares no code of its own is a variant of its base's failure (the same code, other
words: `RecordNotFound` is NOT_FOUND). Where a family's template leaves a `{problem}` slot (an
outside party's words, or a constant of ours), a variant whose problem names facts gives only that
problem, in the family's words:

    class OcrFailed(AppError):
        code = "OCR_FAILED"
        msg_format = _("The scan could not be read: {problem}. Upload a clearer scan or a PDF with text.")

    class OcrTimedOut(OcrFailed):
        problem_format = _("it took longer than {seconds} seconds")

 A system check (`check_declarations`, atrium.E020-E024)
holds the registry at start-up: each code declared by one class only, every class with a code and
a message, each template naming exactly its `data_fields` (in every language), and every class in
an `errors` module.

The commonest ones are here for every area: a record not found (`RecordNotFound`, or plain
NOT_FOUND for a selector's miss: `or_not_found`), in the trash (`InTrash`), seen but not changeable
(`ReadOnly`), and a field's value refused (`invalid`).
"""

import logging
import string
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.core import checks
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.functional import Promise, lazy
from django.utils.translation import gettext_lazy as _

_T = TypeVar("_T")


def _named(template: Any) -> set[str]:
    """The facts a template names: {id} and {id!r:>5} name `id`, {a.b} and {a[0]} name `a`."""
    names = set()
    for _text, field, _spec, _conversion in string.Formatter().parse(str(template)):
        if field is not None:
            names.add(field.split(".", 1)[0].split("[", 1)[0])
    return names


def _source(template: Any) -> str:
    """A template's source text (a lazy translation's own words, read without translating)."""
    return str(getattr(template, "_args", ("",))[0] if isinstance(template, Promise) else template)


def _fill_slot(frame: Any, problem: Any) -> str:
    return str(frame).replace("{problem}", str(problem))


# A family's words with a variant's problem in the slot, each translated when the error is made.
_in_slot = lazy(_fill_slot, str)


class AppError(Exception):
    code: str = ""
    message: Any = ""
    http_status: int = 400
    # The facts a templated error names (given as keyword arguments; read from its template when
    # a class declares one), and its template; the facts a raise site may leave out, with what
    # they are then.
    data_fields: tuple[str, ...] = ()
    msg_format: Any = ""
    defaults: dict[str, Any] = {}
    # Headers every answer of this failure carries (a 401's challenge), unless others are given.
    default_headers: dict[str, str] = {}
    # The one field a failure is about, when its message is that field's problem as a sentence of
    # its own: its details then name the field with the message (unless others are given).
    field: str = ""

    # A variant of a family whose template has a `{problem}` slot: its own problem, a template
    # naming its facts; its words are the family's with the problem in the slot.
    problem_format: Any = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A template's facts are the names it holds: declared once, in its words. (The source text,
        # not a translation: a class is made before the translations can be read.)
        if "problem_format" in cls.__dict__:
            frame, problem = cls.msg_format, cls.problem_format
            if "problem" not in _named(_source(frame)):
                raise TypeError(f"{cls.__qualname__}: its family's template has no {{problem}}")
            cls.msg_format = _in_slot(frame, problem)
            cls.data_fields = tuple(sorted(_named(_source(frame)) - {"problem"} | _named(_source(problem))))
        elif "msg_format" in cls.__dict__ and "data_fields" not in cls.__dict__:
            cls.data_fields = tuple(sorted(_named(_source(cls.msg_format))))

    def __init__(self, *, details: Any = None, headers: dict[str, str] | None = None, **data: Any) -> None:
        unknown = set(data) - set(self.data_fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} takes no {', '.join(sorted(unknown))}")
        data = {**self.defaults, **data}
        missing = set(self.data_fields) - set(data)
        if missing:
            raise TypeError(f"{type(self).__name__} needs {', '.join(sorted(missing))}")
        self.data = data
        if self.msg_format:
            # Stripped: a template may end with a part that is empty (a hint not given).
            self.message = str(self.msg_format).format(**data).strip()
        if details is None and self.field:
            details = {self.field: [str(self.message)]}
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


class FieldInvalid(ValidationFailed):
    """One field's value refused: "field: problem." (made by `invalid`)."""

    msg_format = "{field}: {problem}."


def invalid(field: str, problem: Any, /, **facts: Any) -> FieldInvalid:
    """The one validation failure of a single field: "field: problem." with details naming it.
    `problem` is a translatable template naming the `facts` it is given:
    `invalid("endDate", _("must be on or after {start}"), start=start.isoformat())`; without facts,
    it is the problem's text as it is (a constant, or a problem that a lower layer phrased)."""
    text = str(problem).format(**facts) if facts else str(problem)
    return FieldInvalid(field=field, problem=text, details={field: [text]})


class FieldsInvalid(ValidationFailed):
    """Several fields refused at once, each problem already a sentence made where it was found:
    by Django's validators, a DRF serializer, or a form of ours that gathers them (the gateway's
    request). The one class whose raise site brings the text, because that text is already made,
    translated, by the part that refused it."""

    msg_format = "{problems}"

    @classmethod
    def of(cls, problems: dict[str, list[Any]]) -> "FieldsInvalid":
        """Each field's problems, one field after the other: "limit: A whole number from 1 to 100." """
        text = " ".join(f"{name}: {' '.join(map(str, texts))}" for name, texts in problems.items())
        return cls(problems=text, details=problems)

    @classmethod
    def of_django(cls, error: DjangoValidationError, *, field: str = "") -> "FieldsInvalid":
        """What Django's validators said (a password's, a model's `full_clean`), in their words;
        its details name `field`, or the fields the error names."""
        details = {field: error.messages} if field else error.message_dict
        return cls(problems=" ".join(error.messages), details=details)


class FieldRequired(ValidationFailed):
    """A required field left empty."""

    msg_format = _("{field}: is required and cannot be empty.")


class NothingToChange(ValidationFailed):
    """An update that names nothing to change."""

    message = _("Say what to change in `changes`.")


class BodyRefused(ValidationFailed):
    """A JSON body refused as a whole (apps.core.json_input); a place in it is `invalid`."""

    msg_format = "{problem}."


class RecordNotFound(NotFound):
    """A record that does not exist, or that the actor may not see: the same answer, so an id
    tells nothing (apps.core.records fills it from the model's access declaration)."""

    msg_format = _("{label} {id} was not found, or you may not see it. {find_with}")

    def __init__(self, *, label: Any, id: Any, find_with: str = "") -> None:
        hint = _("Find the right id with {tool}.").format(tool=find_with) if find_with else ""
        super().__init__(label=label, id=id, find_with=hint)


class InTrash(Conflict):
    """A record in the trash (or archived), named where a live one is needed; `hint` says how
    to bring it back. An area whose record in the trash has a code of its own declares a variant
    (`ContactArchived`) and names it in its model's `Access(trash_error=...)`."""

    code = "IN_TRASH"
    msg_format = _("{label} {id} is {state}. {hint}")
    defaults = {"state": _("in the trash"), "hint": ""}


class TrashedNotFound(NotFound):
    """A record in the trash, in InTrash's words but with NOT_FOUND's code: what agents have
    always been told of a deleted department or group account."""

    data_fields = InTrash.data_fields
    msg_format = InTrash.msg_format
    defaults = InTrash.defaults


class NotOwner(Forbidden):
    message = _("Only its owner (or an admin of the area) may make it private or public.")


class ReadOnly(Forbidden):
    """A record the actor may see but not change (private, shared with them to view)."""

    msg_format = _(
        "You can see {label} {id} but not change it: it is private. Ask its owner to share it "
        "with you with edit access."
    )


class WorkspaceRowKept(Forbidden):
    """A workspace row that only the holders of a permission change (`Access.workspace_kept_by`)."""

    msg_format = _(
        "{label} {id} is the workspace's: only the area's administrators change or delete it. "
        "Keep a private one of your own, or ask an administrator."
    )


class RoleRefuses(Forbidden):
    """The actor's role lets them see a kind of record but not change or delete it."""

    msg_format = _("Your role may see {things} but not {action} them.")


class AreaNotAvailable(AppError):
    """What a tool needs lives in an area this workspace does not use (no calendar, no mailbox)."""

    code = "AREA_NOT_AVAILABLE"
    http_status = 409


class NoCalendar(AreaNotAvailable):
    message = _(
        "No calendar is available in this workspace (the Calendars area is not installed), so "
        "there are no events to show. Tell the user; do not retry."
    )


class NoMailbox(AreaNotAvailable):
    message = _(
        "No mailbox is connected in this workspace (the Email Inbox area is not installed), so "
        "there are no e-mails to search. Tell the user; do not retry."
    )


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


class InternalError(AppError):
    """A bug: logged with its traceback, answered with nothing of it."""

    code = "INTERNAL_ERROR"
    http_status = 500
    message = _("Internal error; it has been logged.")


class NoSuchEndpoint(NotFound):
    message = _("No such endpoint.")


class CsrfFailed(Forbidden):
    code = "CSRF_FAILED"
    message = _("Cross-site request refused (CSRF check failed).")


class ConcurrentConflict(Conflict):
    """A write the database refused because of another made at the same moment
    (`concurrent_conflict`)."""

    message = _(
        "This conflicts with a change saved at the same moment; nothing was saved. Reload and try again."
    )


# --- DRF's own refusals (apps.core.api.exceptions), in DRF's words (translated by DRF) -----------


class DrfBadRequest(BadRequest):
    msg_format = "{detail}"


class DrfUnauthenticated(Unauthenticated):
    msg_format = "{detail}"


class DrfForbidden(Forbidden):
    msg_format = "{detail}"


class DrfNotFound(NotFound):
    msg_format = "{detail}"


class DrfRateLimited(RateLimited):
    msg_format = "{detail}"


class MethodNotAllowed(AppError):
    code = "METHOD_NOT_ALLOWED"
    http_status = 405
    msg_format = "{detail}"


class NotAcceptable(AppError):
    code = "NOT_ACCEPTABLE"
    http_status = 406
    msg_format = "{detail}"


class UnsupportedMediaType(AppError):
    code = "UNSUPPORTED_MEDIA_TYPE"
    http_status = 415
    msg_format = "{detail}"


# --- record kinds, attachments, folders and shares (apps.core.kinds, folders, sharing) ---------


class UnknownEntityType(ValidationFailed):
    msg_format = _("{type!r} is not a kind of record here. Kinds you can use: {known}.")


class NotSearched(ValidationFailed):
    msg_format = _("The workspace search does not read {kind!r} records. Kinds it reads: {known}.")


class EntityHalfGiven(ValidationFailed):
    message = _("Give entityType and entityId together (or neither).")


class AttachmentsUnavailable(ValidationFailed):
    message = _("Attachments are not available in this installation.")


class NotACarrier(ValidationFailed):
    msg_format = _("{key!r} is not a kind of record files can be attached to here. Known: {known}.")


class ItemAreaMissing(ValidationFailed):
    msg_format = _("{kind} items are not available in this workspace (their area is not installed).")


class NameNotAllowed(ValidationFailed):
    msg_format = _("The name {name!r} is not allowed: it {problem}. Choose another name.")


class FolderIntoItself(ValidationFailed):
    msg_format = _(
        "Folder {id} cannot be moved into itself or one of its own sub-folders ({path}). Choose a folder "
        "outside it."
    )


class FoldersTooDeep(ValidationFailed):
    msg_format = _("Folders nest at most {most} deep.")


class NameTakenInFolder(ValidationFailed):
    msg_format = _(
        "{what} named {name!r} is already in that folder. Choose another name, or rename it first."
    )


class ShareNeedsChange(ValidationFailed):
    message = _("Say what to change: `personEmail` (with `access`) and/or `visibility`.")


class OwnsItAlready(ValidationFailed):
    msg_format = _("{email} owns it already.")


class MayNotUseArea(ValidationFailed):
    msg_format = _("{email} may not use this area (their role does not allow it), so sharing would not help.")


class PortalSharesView(ValidationFailed):
    msg_format = _(
        '{email} is a client portal user: they may be given access "view" (or "none") to '
        "documents and files, nothing more."
    )


# --- failures of the services several areas share ---------------------------------------------


class NoExchangeRate(ValidationFailed):
    """No rate from one currency to another on a day: the caller gives one, or asks otherwise.
    The same failure in every area that converts (Accounting's published rates, Events' budgets,
    Deals' pipelines)."""

    code = "NO_EXCHANGE_RATE"
    msg_format = _(
        "No {source}/{target} exchange rate for {date}: give the rate yourself (one {source} in "
        "{target}), or use another date or currency."
    )


class EmailNotSent(AppError):
    """A mail server did not take an e-mail (it refused it, or the sending broke off): the
    service's own mail (Files' sending) and a mailbox's (Mail) alike. `reason` never quotes an
    address or the server's text (which quotes them)."""

    code = "EMAIL_NOT_SENT"
    http_status = 502
    msg_format = _(
        "The mail server did not take the e-mail ({reason}); nothing was sent. Check the addresses, "
        "or try again later and tell an administrator if it keeps failing."
    )


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
    return ConcurrentConflict()


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


# --- the registry ---------------------------------------------------------------------------------


def error_classes() -> list[type[AppError]]:
    """Every failure declared by the project's apps (their `errors` modules, which the core app
    imports at start-up), in the order they were declared; tests' own classes left out."""
    found: list[type[AppError]] = []
    waiting: list[type[AppError]] = [AppError]
    while waiting:
        for subclass in waiting.pop(0).__subclasses__():
            if subclass not in found:
                found.append(subclass)
                waiting.append(subclass)
    return [cls for cls in found if cls.__module__.startswith("apps.") and ".tests" not in cls.__module__]


def codes() -> dict[str, type[AppError]]:
    """The registry: each code and the class that declares it (its variants inherit it)."""
    return {cls.__dict__["code"]: cls for cls in error_classes() if "code" in cls.__dict__}


def _template_of(cls: type[AppError]) -> type[AppError] | None:
    """The class whose words `cls` answers with: the nearest declaring a template, else a message."""
    for key in ("msg_format", "message"):
        for base in cls.__mro__:
            if base.__dict__.get(key):
                return base
    return None


def check_declarations(classes: Iterable[type[AppError]]) -> list[checks.CheckMessage]:
    """What is wrong with these error classes as declarations of the registry (the system check
    `apps.core.checks.check_errors` runs it over `error_classes()`)."""
    classes = list(classes)
    problems: list[checks.CheckMessage] = []
    declared: dict[str, list[type[AppError]]] = {}
    for cls in classes:
        name = f"{cls.__module__}.{cls.__qualname__}"
        if "code" in cls.__dict__:
            declared.setdefault(cls.code, []).append(cls)
        if not cls.code:
            problems.append(
                checks.Error(
                    f"error class {name} has no code",
                    hint="Declare `code`, or derive it from the failure it is a variant of.",
                    obj=cls,
                    id="atrium.E020",
                )
            )
        template = _template_of(cls)
        # A family (SessionClash) is raised as one of its variants, which have the words.
        family = any(issubclass(other, cls) and other is not cls for other in classes)
        if not family and (
            template is None
            # A fixed message of another failure (Conflict's "The request conflicts...") says
            # nothing of this one; a template naming facts (InTrash's) is made to be shared.
            or (template.code != cls.code and not template.data_fields)
        ):
            problems.append(
                checks.Error(
                    f"error class {name} has no message of its own"
                    + (f" (it would answer {template.__qualname__}'s)" if template else ""),
                    hint="Declare `message`, or `data_fields` and a `msg_format` naming them.",
                    obj=cls,
                    id="atrium.E022",
                )
            )
        declares_template = {"msg_format", "data_fields", "defaults"} & set(cls.__dict__)
        if declares_template and (
            _named(cls.msg_format) != set(cls.data_fields) or not set(cls.defaults) <= set(cls.data_fields)
        ):
            problems.append(
                checks.Error(
                    f"error class {name}: its template names {sorted(_named(cls.msg_format))}, its "
                    f"data_fields are {sorted(cls.data_fields)}, its defaults {sorted(cls.defaults)}",
                    hint="A template names each of its data_fields, and nothing else; `defaults` are "
                    "some of them.",
                    obj=cls,
                    id="atrium.E023",
                )
            )
        if cls.__module__.rsplit(".", 1)[-1] != "errors":
            problems.append(
                checks.Error(
                    f"error class {name} is declared outside an errors module",
                    hint="Declare it in its app's errors.py, where the registry finds it.",
                    obj=cls,
                    id="atrium.E024",
                )
            )
    for code, owners in declared.items():
        if len(owners) > 1:
            problems.append(
                checks.Error(
                    f"error code {code} is declared by {len(owners)} classes: "
                    + ", ".join(f"{owner.__module__}.{owner.__qualname__}" for owner in owners),
                    hint="One failure, one class: derive the others from it (they inherit its code), "
                    "or give each failure a code of its own.",
                    obj=owners[1],
                    id="atrium.E021",
                )
            )
    return problems
