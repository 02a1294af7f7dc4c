"""Prometheus metrics for operators: every part of Atrium counts through this one module.

Call the functions, never the metric objects:

    from apps.core import metrics

    metrics.tool_call(door="mcp", tool="getContact", outcome="ok", seconds=0.012)
    with metrics.ToolCall("mcp", name) as counted:  # the same, timed around the call
        result = counted.answered(dispatch.call_tool(context, name, arguments))
    metrics.mcp_session("initialized")
    metrics.conversation("resolved", seconds=4.2)          # seconds: since acceptance
    metrics.webhook_delivery(outcome="delivered", seconds=0.3)
    metrics.budget_event("settled", microdollars=1250)
    metrics.model_call(backend="anthropic", outcome="ok", seconds=2.1)

HTTP requests and Celery tasks are counted for you (`apps.core.observability`).

Label values are closed sets, checked here: a typo fails loudly in tests instead of creating a
new time series in production, and nothing a caller sends (a made-up tool name, a path) can
grow the number of series. Workspaces are never a label: thousands of them would multiply every
series; per-workspace figures belong to the usage records of the database.

Several processes per machine (web processes, Celery's pool) share one set of figures through
prometheus_client's multiprocess mode: when `PROMETHEUS_MULTIPROC_DIR` is set in the environment
of every process (before any of them starts; the directory emptied at each start of the group),
a scrape of any one process reports the sum over all of them. docs/deploy.md says how to scrape.
"""

from __future__ import annotations

import hmac
import os
import time
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

MULTIPROCESS = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))

# Latency buckets (seconds): web requests are milliseconds, agent turns and webhooks seconds.
FAST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SLOW_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0)

# --- the closed sets of label values ------------------------------------------------------------

HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
TOOL_DOORS = frozenset({"gateway", "mcp"})
# ok: a result; tool_error: a result with isError (bad arguments, refused confirmation, the
# tool's own failure); not_found: unknown or not permitted (the two look the same to callers);
# exception: an unexpected crash.
TOOL_OUTCOMES = frozenset({"exception", "not_found", "ok", "tool_error"})
MCP_SESSION_EVENTS = frozenset({"ended", "expired", "initialized"})
CONVERSATION_EVENTS = frozenset({"accepted", "expired", "failed", "processing", "requeued", "resolved"})
WEBHOOK_OUTCOMES = frozenset({"delivered", "failed", "retry_scheduled"})
# reserved: the maximum cost of a model call held against a key; settled: its real cost
# charged; released: a reservation given back (settlement, or swept after a dead worker);
# exceeded: a request refused with 429 BUDGET_EXCEEDED.
BUDGET_EVENTS = frozenset({"exceeded", "released", "reserved", "settled"})
MODEL_OUTCOMES = frozenset({"error", "ok", "timeout"})
TASK_OUTCOMES = frozenset({"failed", "retried", "succeeded"})

# --- the metrics --------------------------------------------------------------------------------

HTTP_REQUESTS = Counter(
    "atrium_http_requests",
    "HTTP requests answered, by method, route pattern and status code.",
    ["method", "route", "status"],
)
HTTP_LATENCY = Histogram(
    "atrium_http_request_duration_seconds",
    "Time from a request's arrival to its response headers (for SSE: until the stream opens).",
    ["method", "route"],
    buckets=FAST_BUCKETS,
)
TOOL_CALLS = Counter(
    "atrium_tool_calls", "Catalogue tool calls, by door, tool and outcome.", ["door", "tool", "outcome"]
)
TOOL_LATENCY = Histogram(
    "atrium_tool_call_duration_seconds",
    "Time spent in a catalogue tool call, by door and tool.",
    ["door", "tool"],
    buckets=FAST_BUCKETS,
)
MCP_SESSIONS = Counter("atrium_mcp_sessions", "MCP sessions, by event.", ["event"])
MCP_ON_LOOP = Counter(
    "atrium_mcp_on_loop",
    "MCP requests tried on the event loop (apps.core.onloop): served there, or given up to a thread.",
    ["outcome"],
)
MCP_STREAMS = Gauge(
    "atrium_mcp_sse_streams_open",
    "SSE streams open now (summed over live processes).",
    multiprocess_mode="livesum",
)
CONVERSATIONS = Counter("atrium_gateway_conversations", "Gateway conversations, by event.", ["event"])
CONVERSATION_DURATION = Histogram(
    "atrium_gateway_conversation_duration_seconds",
    "Time from a conversation's acceptance to its end, by final status.",
    ["status"],
    buckets=SLOW_BUCKETS,
)
WEBHOOK_DELIVERIES = Counter(
    "atrium_webhook_deliveries", "Webhook delivery attempts, by outcome.", ["outcome"]
)
WEBHOOK_LATENCY = Histogram(
    "atrium_webhook_delivery_duration_seconds",
    "Time of one webhook delivery attempt (the receiver's HTTP answer), by outcome.",
    ["outcome"],
    buckets=(*FAST_BUCKETS, 30.0),
)
BUDGET_EVENTS_TOTAL = Counter("atrium_budget_events", "Budget events of API keys, by event.", ["event"])
BUDGET_MICRODOLLARS = Counter(
    "atrium_budget_microdollars",
    "Money moved by budget events, in micro-dollars (USD 1e-6), by event.",
    ["event"],
)
MODEL_CALLS = Counter(
    "atrium_model_calls",
    "Calls of the gateway agent's model API, by backend and outcome.",
    ["backend", "outcome"],
)
MODEL_LATENCY = Histogram(
    "atrium_model_call_duration_seconds",
    "Time of one model API call, by backend.",
    ["backend"],
    buckets=SLOW_BUCKETS,
)
TASKS = Counter("atrium_celery_tasks", "Celery tasks run, by task name and outcome.", ["task", "outcome"])
TASK_DURATION = Histogram(
    "atrium_celery_task_duration_seconds",
    "Run time of Celery tasks, by task name.",
    ["task"],
    buckets=SLOW_BUCKETS,
)


def _check(value: str, allowed: frozenset[str], what: str) -> str:
    if value not in allowed:
        raise ValueError(f"{what} {value!r} is not one of {sorted(allowed)}")
    return value


def _name(value: str) -> str:
    """A name that comes from code (a tool, a task, a backend), bounded in length."""
    return value[:64] if value else "unknown"


# A metric's child for some label values, once looked up: prometheus_client's `labels()` checks
# and converts the values and takes a lock every time, and the doors count several per request.
_children: dict[tuple[Any, ...], Any] = {}
_CHILDREN_LIMIT = 20_000


def _labelled(metric: Any, *values: str) -> Any:
    key = (metric, *values)
    child = _children.get(key)
    if child is None:
        child = metric.labels(*values)
        if len(_children) >= _CHILDREN_LIMIT:
            _children.clear()
        _children[key] = child
    return child


# --- the API the rest of Atrium calls ---------------------------------------------------------


def http_request(*, method: str, route: str, status: int, seconds: float) -> None:
    """One HTTP response (called by the ASGI middleware; route is a URL pattern, never a path)."""
    method = method if method in HTTP_METHODS else "other"
    code = str(status) if 100 <= status <= 599 else "other"
    _labelled(HTTP_REQUESTS, method, route, code).inc()
    _labelled(HTTP_LATENCY, method, route).observe(seconds)


def tool_call(*, door: str, tool: str, outcome: str, seconds: float) -> None:
    """One `tools/call` (MCP) or one tool call of the gateway's agent. For `not_found` the name
    the caller sent is not recorded (anyone can send any name)."""
    _check(door, TOOL_DOORS, "door")
    _check(outcome, TOOL_OUTCOMES, "outcome")
    tool = "unknown" if outcome == "not_found" else _name(tool)
    _labelled(TOOL_CALLS, door, tool, outcome).inc()
    _labelled(TOOL_LATENCY, door, tool).observe(seconds)


@dataclass
class ToolCall:
    """One tool call at a door, counted (`tool_call`) as its block ends: "exception" unless the
    door says otherwise (`outcome = "not_found"`, "tool_error" for a refusal of its own), "ok"
    or "tool_error" by the result it `answered`; nothing when the door sets "" (a call handed to
    a thread, which counts it)."""

    door: str
    tool: str
    outcome: str = "exception"
    started: float = field(default_factory=time.perf_counter)

    def answered(self, result: dict[str, Any]) -> dict[str, Any]:
        self.outcome = "tool_error" if result.get("isError") else "ok"
        return result

    def __enter__(self) -> ToolCall:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.outcome:
            seconds = time.perf_counter() - self.started
            tool_call(door=self.door, tool=self.tool, outcome=self.outcome, seconds=seconds)


def mcp_session(event: str) -> None:
    _labelled(MCP_SESSIONS, _check(event, MCP_SESSION_EVENTS, "event")).inc()


def mcp_on_loop(*, served: bool) -> None:
    _labelled(MCP_ON_LOOP, "served" if served else "thread").inc()


def sse_stream_opened() -> None:
    MCP_STREAMS.inc()


def sse_stream_closed() -> None:
    MCP_STREAMS.dec()


def conversation(event: str, *, seconds: float | None = None) -> None:
    """A conversation moved: accepted, processing, requeued (its worker died), resolved, failed,
    expired. For resolved and failed, `seconds` is the time since acceptance."""
    _labelled(CONVERSATIONS, _check(event, CONVERSATION_EVENTS, "event")).inc()
    if seconds is not None and event in {"failed", "resolved"}:
        _labelled(CONVERSATION_DURATION, event).observe(seconds)


def webhook_delivery(*, outcome: str, seconds: float) -> None:
    """One delivery attempt: delivered, retry_scheduled (it failed and will be tried again) or
    failed (it failed for the last time)."""
    _labelled(WEBHOOK_DELIVERIES, _check(outcome, WEBHOOK_OUTCOMES, "outcome")).inc()
    _labelled(WEBHOOK_LATENCY, outcome).observe(seconds)


def budget_event(event: str, *, microdollars: int = 0) -> None:
    _labelled(BUDGET_EVENTS_TOTAL, _check(event, BUDGET_EVENTS, "event")).inc()
    if microdollars:
        if microdollars < 0:
            raise ValueError("microdollars is an amount moved, never negative")
        _labelled(BUDGET_MICRODOLLARS, event).inc(microdollars)


def model_call(*, backend: str, outcome: str, seconds: float) -> None:
    backend = _name(backend)
    _labelled(MODEL_CALLS, backend, _check(outcome, MODEL_OUTCOMES, "outcome")).inc()
    _labelled(MODEL_LATENCY, backend).observe(seconds)


def task_run(*, task: str, outcome: str, seconds: float) -> None:
    """One Celery task run (called by the task signals of `apps.core.observability`)."""
    _labelled(TASKS, _name(task), _check(outcome, TASK_OUTCOMES, "outcome")).inc()
    _labelled(TASK_DURATION, _name(task)).observe(seconds)


# --- exposition ---------------------------------------------------------------------------------


def registry() -> CollectorRegistry:
    """What a scrape reports: in multiprocess mode, every process of this machine's directory."""
    if not MULTIPROCESS:
        return REGISTRY
    collected = CollectorRegistry()
    multiprocess.MultiProcessCollector(collected)
    return collected


def exposition() -> tuple[bytes, str]:
    return generate_latest(registry()), CONTENT_TYPE_LATEST


def authorized(authorization: str | None, token: str) -> bool:
    """`Authorization: Bearer <token>`, compared in constant time; no token configured: no."""
    if not token or not authorization:
        return False
    scheme, _, given = authorization.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def process_exited(pid: int | None = None) -> None:
    """Drops a finished process's share of the live gauges (multiprocess mode only)."""
    if MULTIPROCESS:
        multiprocess.mark_process_dead(pid or os.getpid())
