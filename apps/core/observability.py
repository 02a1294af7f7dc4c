"""Request ids, structured logs, and the HTTP and task metrics that come for free.

One request id follows a piece of work from the HTTP request that started it, through every
Celery task it enqueued (and the tasks those enqueue), into every log line written on the way:

- `RequestObservabilityMiddleware` (ASGI, around the whole application) reuses an incoming
  `X-Request-ID` when it is well-formed (8 to 128 characters of letters, digits and `._:+=-`),
  otherwise makes one, and returns it in the response's `X-Request-ID` header. It also counts
  the request (`apps.core.metrics.http_request`) and, with `ATRIUM_ACCESS_LOG`, writes one
  access line: method, path without its query, route, status, duration. No address, no query
  string, no header: they can carry personal data or credentials. A path whose matched pattern
  has a secret argument (`SECRET_URL_ARGUMENTS`: a link's token) shows the argument's name there.
- `RequestRouteMiddleware` (Django, right after the workspace middleware) records the URL
  pattern that matched (the metrics label) and the workspace's schema name (the log field).
  Code answering before Django (an ASGI consumer) calls `set_route("api/mcp")` itself.
- Celery: the id travels as the message header `atrium_request_id`; the task signals below put
  it back in place in the worker, with the task's `schema_name`, and count the task.
- Work resumed later from a stored row (a webhook retry swept by beat) re-enters the id it
  stored: `with request_context(row.request_id): ...`.

`RequestContextFilter` adds `request_id` and `workspace` to every log record; production logs
are one JSON object per line (`JsonFormatter`), development keeps a readable console line. Both
write an exception, whoever logs it, with its class and traceback but its text only when that is
about code or connections, and a database error by SQLSTATE and constraint (`describe_error`):
an exception's text is often the data it failed on.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
import traceback
import uuid
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter as _BaseJsonFormatter

from apps.core import metrics

REQUEST_ID_HEADER = "X-Request-ID"
TASK_HEADER = "atrium_request_id"
_WELL_FORMED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+=-]{7,127}")
UNMATCHED = "unmatched"

access_logger = logging.getLogger("atrium.access")


@dataclass
class RequestContext:
    request_id: str
    workspace: str | None = None
    route: str | None = None
    # The path as logs show it when it carries a secret (`redact_path`), and the path it replaces.
    path: str | None = None
    shown_path: str | None = None


_current: ContextVar[RequestContext | None] = ContextVar("atrium_request_context", default=None)


def new_request_id() -> str:
    return uuid.uuid4().hex


def accept_request_id(value: str | None) -> str:
    """The caller's id when it is well-formed, a new one otherwise."""
    if value and _WELL_FORMED.fullmatch(value):
        return value
    return new_request_id()


def current() -> RequestContext | None:
    return _current.get()


def current_request_id() -> str | None:
    context = _current.get()
    return context.request_id if context else None


@contextlib.contextmanager
def request_context(
    request_id: str | None = None, *, workspace: str | None = None
) -> Iterator[RequestContext]:
    """Runs the block under `request_id` (a new one when None or malformed)."""
    context = RequestContext(request_id=accept_request_id(request_id), workspace=workspace)
    token = _current.set(context)
    try:
        yield context
    finally:
        _current.reset(token)


def set_route(route: str) -> None:
    """The URL pattern a request matched (a metrics label: a pattern, never a concrete path)."""
    context = _current.get()
    if context is not None:
        context.route = route


def set_workspace(schema_name: str | None) -> None:
    context = _current.get()
    if context is not None:
        context.workspace = schema_name


# URL pattern arguments that are credentials or lead to one: the token of an invitation,
# password-reset or sign-in link, of an unsubscribe, RSVP, download or secure-input link, and the
# person's id that goes with the accounts links. Logs show the argument's name in their place.
SECRET_URL_ARGUMENTS = frozenset({"token", "uidb64"})


def redact_path(path: str, kwargs: dict[str, Any]) -> str:
    """`path` with each segment that is the value of a secret URL argument replaced by the
    argument's name: `/accounts/invitation/MQ/c5x-abc/` -> `/accounts/invitation/<uidb64>/<token>/`."""
    secret = {str(value): name for name, value in kwargs.items() if name in SECRET_URL_ARGUMENTS and value}
    if not secret:
        return path
    return "/".join(f"<{secret[segment]}>" if segment in secret else segment for segment in path.split("/"))


def shown_path(path: str) -> str:
    """The path as a log line may show it (for the current request: redacted once its route matched)."""
    context = _current.get()
    if context is not None and context.path == path and context.shown_path is not None:
        return context.shown_path
    return path


# --- HTTP ---------------------------------------------------------------------------------------

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class RequestObservabilityMiddleware:
    """ASGI middleware around the whole application (config/asgi.py)."""

    # Any ASGI application (Channels' router among them, whose stubs type the scope their own way).
    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = None
        for name, value in scope.get("headers", []):
            if name.lower() == b"x-request-id":
                incoming = value.decode("latin-1")
                break
        context = RequestContext(request_id=accept_request_id(incoming))
        header = (b"x-request-id", context.request_id.encode("ascii"))
        token = _current.set(context)
        started = time.perf_counter()
        status: int | None = None

        async def send_with_id(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = [pair for pair in message.get("headers", []) if pair[0].lower() != b"x-request-id"]
                message = {**message, "headers": [*headers, header]}
                metrics.http_request(
                    method=scope.get("method", ""),
                    route=context.route or UNMATCHED,
                    status=status,
                    seconds=time.perf_counter() - started,
                )
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except BaseException:
            if status is None:
                status = 500
                metrics.http_request(
                    method=scope.get("method", ""),
                    route=context.route or UNMATCHED,
                    status=500,
                    seconds=time.perf_counter() - started,
                )
            raise
        finally:
            if getattr(settings, "ATRIUM_ACCESS_LOG", False):
                path = shown_path(scope.get("path", ""))
                access_logger.info(
                    "%s %s %s",
                    scope.get("method", ""),
                    path,
                    status,
                    extra={
                        "http_method": scope.get("method", ""),
                        "path": path,
                        "route": context.route or UNMATCHED,
                        "status": status,
                        "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                    },
                )
            _current.reset(token)


class RequestRouteMiddleware:
    """Django middleware, right after the workspace middleware: the matched route and the
    workspace go into the request context (metrics label, log field)."""

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        tenant = getattr(request, "tenant", None)
        if tenant is not None and tenant.schema_name != "public":
            set_workspace(tenant.schema_name)
        return self.get_response(request)

    def process_view(self, request: Any, view_func: Any, view_args: Any, view_kwargs: Any) -> None:
        match = getattr(request, "resolver_match", None)
        if match is not None:
            set_route(match.route or match.view_name or UNMATCHED)
        context = _current.get()
        if context is not None and view_kwargs:
            redacted = redact_path(request.path, view_kwargs)
            if redacted != request.path:
                # The access line (scope["path"]) and Django's own request lines (request.path).
                context.shown_path = redacted
                context.path = request.path


# --- logs ---------------------------------------------------------------------------------------


class RequestContextFilter(logging.Filter):
    """Adds `request_id` and `workspace` (a schema name, never a person) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        context = _current.get()
        record.request_id = context.request_id if context else None
        record.workspace = context.workspace if context else None
        if context is not None and context.path and context.shown_path and isinstance(record.args, tuple):
            # Django's "Not Found: <path>" and its kin name the path: not a secret in it.
            record.args = tuple(
                value.replace(context.path, context.shown_path) if isinstance(value, str) else value
                for value in record.args
            )
        return True


# --- what a log line may say of an exception --------------------------------------------------------

_text_kept: tuple[type[BaseException], ...] | None = None


def _kept_kinds() -> tuple[type[BaseException], ...]:
    """Exceptions whose text is about code or about reaching a service, never about the data in
    hand: a log line shows it. Any other exception shows its class only. A ValueError, a
    validation error, an SMTP refusal, an HTTP client's error, a database error quote what they
    were given: an address, a message, a URL with its query string, a row."""
    global _text_kept
    if _text_kept is None:
        import redis.exceptions
        from kombu.exceptions import OperationalError as BrokerError

        _text_kept = (
            AttributeError,
            ImportError,
            NameError,
            NotImplementedError,
            RecursionError,
            TypeError,
            ConnectionError,  # the built-in OSErrors of a socket: refused, reset, timed out
            TimeoutError,
            redis.exceptions.ConnectionError,
            redis.exceptions.TimeoutError,
            BrokerError,
        )
    return _text_kept


# SQLSTATE classes whose primary message is about the connection or the server's state, never
# about a row: connection exceptions, insufficient resources, operator intervention (a restart,
# a statement timeout).
_CONNECTION_CLASSES = ("08", "53", "57")


def _error_text(error: BaseException) -> str:
    """What follows the class name in a log line: `describe_error`'s rule."""
    import psycopg
    from django.db import InterfaceError, OperationalError

    from apps.core.db import database_failure

    failure = database_failure(error)
    if failure is not None:
        details = str(failure).removeprefix(failure.kind)
        connection_level = isinstance(
            error, OperationalError | InterfaceError | psycopg.OperationalError | psycopg.InterfaceError
        )
        if connection_level and (not failure.sqlstate or failure.sqlstate.startswith(_CONNECTION_CLASSES)):
            # Refused on the way to the server or by its state: the message says where and why.
            first_line = str(error).strip().split("\n", 1)[0]
            return f"{details}: {first_line}" if first_line else details
        return details
    if isinstance(error, _kept_kinds()) or getattr(error, "loggable_text", False):
        text = str(error)
        return f": {text}" if text else ""
    return " (its text is not logged)"


def describe_error(error: BaseException) -> str:
    """An exception as a log line may show it: its class, and its text only when that is about
    code or connections (a database error: SQLSTATE and constraint name). Our own exceptions whose
    text is fixed wording say so with a class attribute `loggable_text = True`."""
    return f"{type(error).__name__}{_error_text(error)}"


def format_exception(error: BaseException) -> str:
    """A traceback as Python prints it (the chain of causes, each frame's file, line and code),
    with each exception's text replaced by `describe_error`'s: a frame's code is ours, the
    exception's text may be the data it failed on."""
    lines: list[str] = []
    _render(error, lines, set())
    return "".join(lines).rstrip("\n")


def _render(error: BaseException, lines: list[str], seen: set[int]) -> None:
    seen.add(id(error))
    cause = error.__cause__
    context = None if error.__suppress_context__ else error.__context__
    if cause is not None and id(cause) not in seen:
        _render(cause, lines, seen)
        lines.append("\nThe above exception was the direct cause of the following exception:\n\n")
    elif context is not None and id(context) not in seen:
        _render(context, lines, seen)
        lines.append("\nDuring handling of the above exception, another exception occurred:\n\n")
    if error.__traceback__ is not None:
        lines.append("Traceback (most recent call last):\n")
        lines.extend(traceback.format_tb(error.__traceback__))
    kind = type(error)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    lines.append(f"{name}{_error_text(error)}\n")


_MISSING = object()


class _SafeExceptions(logging.Formatter):
    """What both formatters share: an exception is written by `format_exception`, an exception
    passed as an argument by `describe_error`, whoever logs it (our code, Django's "Internal Server
    Error", uvicorn, Celery). Celery's task-failure line (`celery.app.trace`) formats the
    exception itself and hands its traceback over as `data`: those are replaced too. The record
    is restored afterwards: other handlers (a test's log capture) see it as it was."""

    def formatException(self, ei: Any) -> str:
        error = ei[1] if ei else None
        return format_exception(error) if isinstance(error, BaseException) else ""

    def format(self, record: logging.LogRecord) -> str:
        saved = (record.msg, record.args, record.exc_text, record.__dict__.get("data", _MISSING))
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(record.msg, BaseException):
            record.msg = describe_error(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_safe_argument(value) for value in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: _safe_argument(value) for key, value in record.args.items()}
        if record.name.startswith("celery.") and isinstance(record.args, dict):
            record.args = _safe_celery_context(record.args, error)
            if isinstance(saved[3], dict):
                record.data = _safe_celery_context(saved[3], error)
        record.exc_text = None
        try:
            return super().format(record)
        finally:
            record.msg, record.args, record.exc_text = saved[:3]
            if saved[3] is not _MISSING:
                record.data = saved[3]


def _safe_argument(value: Any) -> Any:
    return describe_error(value) if isinstance(value, BaseException) else value


def _safe_celery_context(context: dict[str, Any], error: BaseException | None) -> dict[str, Any]:
    """Celery's context of a task's line without the traceback it formatted, and with `exc` (its
    repr of the exception) as `describe_error` says it."""
    safe = {key: _safe_argument(value) for key, value in context.items() if key != "traceback"}
    if isinstance(context.get("exc"), str) and error is not None:
        safe["exc"] = describe_error(error)  # Celery's repr of the exception, with its text
    return safe


class ConsoleFormatter(_SafeExceptions):
    """Development: `time LEVEL logger [request id] message`."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(context)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        request_id = getattr(record, "request_id", None)
        workspace = getattr(record, "workspace", None)
        parts = [part for part in (workspace, request_id) if part]
        record.context = f" [{' '.join(parts)}]" if parts else ""
        return super().format(record)


class JsonFormatter(_SafeExceptions, _BaseJsonFormatter):
    """Production: one JSON object per line with `timestamp`, `level`, `logger`, `message`,
    `request_id`, `workspace` and the record's extra fields. A Django request object passed as
    extra (django.request does) is left out: its repr carries the query string."""

    def __init__(self) -> None:
        super().__init__(
            ["levelname", "name", "message"],
            rename_fields={"levelname": "level", "name": "logger"},
            reserved_attrs=[*RESERVED_ATTRS, "request", "color_message", "context"],
            timestamp=True,
        )

    def process_log_record(self, log_data: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in log_data.items() if value is not None}


# --- Celery -------------------------------------------------------------------------------------


def _connect_celery_signals() -> None:
    from celery import signals

    running: dict[str, tuple[Any, float]] = {}

    @signals.before_task_publish.connect(weak=False)
    def carry_request_id(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
        context = _current.get()
        if context is not None and headers is not None:
            headers.setdefault(TASK_HEADER, context.request_id)

    @signals.task_prerun.connect(weak=False)
    def enter_task(task_id: str, task: Any, kwargs: dict[str, Any] | None = None, **rest: Any) -> None:
        carried = getattr(task.request, TASK_HEADER, None) or current_request_id()
        schema_name = (kwargs or {}).get("schema_name")
        context = RequestContext(request_id=accept_request_id(carried), workspace=schema_name)
        running[task_id] = (_current.set(context), time.perf_counter())

    @signals.task_postrun.connect(weak=False)
    def leave_task(task_id: str, task: Any, state: str | None = None, **rest: Any) -> None:
        entry = running.pop(task_id, None)
        if entry is None:
            return
        token, started = entry
        outcome = {"SUCCESS": "succeeded", "RETRY": "retried"}.get(state or "", "failed")
        metrics.task_run(task=task.name, outcome=outcome, seconds=time.perf_counter() - started)
        with contextlib.suppress(ValueError):  # reset from another context (eager calls nest)
            _current.reset(token)

    @signals.worker_process_shutdown.connect(weak=False)
    def pool_process_exited(pid: int | None = None, **rest: Any) -> None:
        metrics.process_exited(pid)


_connect_celery_signals()
