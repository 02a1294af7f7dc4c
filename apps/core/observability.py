"""Request ids, structured logs, and the HTTP and task metrics that come for free.

One request id follows a piece of work from the HTTP request that started it, through every
Celery task it enqueued (and the tasks those enqueue), into every log line written on the way:

- `RequestObservabilityMiddleware` (ASGI, around the whole application) reuses an incoming
  `X-Request-ID` when it is well-formed (8 to 128 characters of letters, digits and `._:+=-`),
  otherwise makes one, and returns it in the response's `X-Request-ID` header. It also counts
  the request (`apps.core.metrics.http_request`) and, with `ATRIUM_ACCESS_LOG`, writes one
  access line: method, path without its query, route, status, duration. No address, no query
  string, no header: they can carry personal data or credentials.
- `RequestRouteMiddleware` (Django, right after the workspace middleware) records the URL
  pattern that matched (the metrics label) and the workspace's schema name (the log field).
  Code answering before Django (an ASGI consumer) calls `set_route("api/mcp")` itself.
- Celery: the id travels as the message header `atrium_request_id`; the task signals below put
  it back in place in the worker, with the task's `schema_name`, and count the task.
- Work resumed later from a stored row (a webhook retry swept by beat) re-enters the id it
  stored: `with request_context(row.request_id): ...`.

`RequestContextFilter` adds `request_id` and `workspace` to every log record; production logs
are one JSON object per line (`JsonFormatter`), development keeps a readable console line.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
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
                access_logger.info(
                    "%s %s %s",
                    scope.get("method", ""),
                    scope.get("path", ""),
                    status,
                    extra={
                        "http_method": scope.get("method", ""),
                        "path": scope.get("path", ""),
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


# --- logs ---------------------------------------------------------------------------------------


class RequestContextFilter(logging.Filter):
    """Adds `request_id` and `workspace` (a schema name, never a person) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        context = _current.get()
        record.request_id = context.request_id if context else None
        record.workspace = context.workspace if context else None
        return True


class ConsoleFormatter(logging.Formatter):
    """Development: `time LEVEL logger [request id] message`."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(context)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        request_id = getattr(record, "request_id", None)
        workspace = getattr(record, "workspace", None)
        parts = [part for part in (workspace, request_id) if part]
        record.context = f" [{' '.join(parts)}]" if parts else ""
        return super().format(record)


class JsonFormatter(_BaseJsonFormatter):
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
