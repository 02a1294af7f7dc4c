"""Server-to-client messages across web processes, through the Channels layer.

Two kinds of traffic cross processes:

- Messages for a session's GET stream (`notifications/tools/list_changed`): `publish` numbers
  them per session (the SSE event id), keeps the last MCP_EVENT_BUFFER in Redis for
  `Last-Event-ID` replay, and sends them to the session's group; whichever process holds the
  stream writes them out.
- Answers to what a running `tools/call` waits for (the client's reply to an elicitation, a
  `notifications/cancelled`): they are POSTed to any process. The process that received them
  resolves them at once when the call runs there, and otherwise sends them to the control group
  that every web process listens to (one subscription per process), where the process running
  the call picks them up. Both are rare, so the broadcast costs nothing on the hot path.
"""

import asyncio
import concurrent.futures
import json
import logging
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

from apps.core.shared_redis import SharedRedis

logger = logging.getLogger(__name__)

CONTROL_GROUP = "mcp.control"


def session_group(digest: str) -> str:
    return f"mcp.s.{digest}"


# --- subscriptions/listen (2026-07-28) ----------------------------------------------------------
#
# A listen stream belongs to no session: it joins its person's group and its workspace's, and is
# told when either's tool list changes (`list_changed`); the process holding it writes the
# notification. Nothing is buffered: a client that reconnects lists the tools again.


def list_changed_groups(schema_name: str, user_id: int) -> list[str]:
    return [f"mcp.w.{schema_name}", f"mcp.u.{schema_name}.{user_id}"]


def task_group(schema_name: str, task_id: str) -> str:
    """The group of the listen streams that asked for a task's status (the tasks extension):
    task ids are URL-safe base64, which group names allow."""
    return f"mcp.t.{schema_name}.{task_id}"


def list_changed(schema_name: str, user_ids: list[int] | None) -> None:
    """Tells the listen streams of these people (None: of everyone in the workspace) that their
    tool list changed. Synchronous (signal handlers)."""
    layer = get_channel_layer()
    if layer is None:
        return
    groups = (
        [f"mcp.w.{schema_name}"] if user_ids is None else [f"mcp.u.{schema_name}.{pk}" for pk in user_ids]
    )
    for group in groups:
        async_to_sync(layer.group_send)(group, {"type": "mcp.listchanged"})


# --- the GET stream's events (Redis buffer + layer) ---------------------------------------------

redis_client = SharedRedis(timeout=2)


def redis_name(*parts: str) -> str:
    """The name of one of the endpoint's Redis keys or channels (under the cache's prefix)."""
    return ":".join((settings.CACHES["default"].get("KEY_PREFIX", "atrium"), "mcp", *parts))


def session_key(digest: str, name: str) -> str:
    """The Redis key `name` of a session (its events, their counter, its end mark)."""
    return redis_name(digest, name)


def _keys(digest: str) -> tuple[str, str]:
    return session_key(digest, "seq"), session_key(digest, "events")


def publish(digest: str, message: dict[str, Any]) -> str:
    """Numbers `message`, buffers it for replay and sends it to the session's stream, wherever it
    is held. Synchronous (signal handlers, tasks, tests). Returns the event id."""
    client = redis_client()
    seq_key, events_key = _keys(digest)
    seq = client.incr(seq_key)
    data = json.dumps(message, separators=(",", ":"))
    event = {"id": str(seq), "data": data}
    pipe = client.pipeline()
    pipe.rpush(events_key, json.dumps(event))
    pipe.ltrim(events_key, -settings.MCP_EVENT_BUFFER, -1)
    pipe.expire(events_key, settings.MCP_EVENT_BUFFER_SECONDS)
    pipe.expire(seq_key, settings.MCP_EVENT_BUFFER_SECONDS)
    pipe.execute()
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(session_group(digest), {"type": "mcp.event", **event})
    return event["id"]


def buffered_after(digest: str, last_event_id: str) -> list[dict[str, str]]:
    """The buffered events newer than `last_event_id` (none if it is not one of ours)."""
    try:
        last = int(last_event_id)
    except ValueError:
        return []
    _seq_key, events_key = _keys(digest)
    events = [json.loads(raw) for raw in redis_client().lrange(events_key, 0, -1)]
    return [event for event in events if int(event["id"]) > last]


def forget_events(digest: str) -> None:
    redis_client().delete(*_keys(digest))


# --- resumable POST streams (2025-11-25, SEP-1699) ----------------------------------------------
#
# A POST answered as an event stream in a session of a revision with `resumable_posts` gets an id
# of its own (12 hex digits); its events are numbered `<stream>-<n>`, the priming event `-0`. Every
# event after the priming one is kept in Redis (MCP_EVENT_BUFFER of them, for
# MCP_EVENT_BUFFER_SECONDS) and sent to the stream's group, so a client that lost the connection,
# or was told to poll, GETs with Last-Event-ID and receives the rest, the response last, from any
# web process. GET stream ids are plain numbers: the two never mix.

POST_EVENT_ID = re.compile(r"^([0-9a-f]{12})-([0-9]{1,9})$")


def post_event_id(stream: str, number: int) -> str:
    return f"{stream}-{number}"


def parse_post_event_id(value: str | None) -> tuple[str, int] | None:
    """(stream, number) of a POST stream's event id; None for anything else."""
    match = POST_EVENT_ID.match(value or "")
    return (match.group(1), int(match.group(2))) if match else None


def post_group(digest: str, stream: str) -> str:
    return f"mcp.p.{digest}.{stream}"


def _post_key(digest: str, stream: str) -> str:
    return session_key(digest, f"post:{stream}")


def record_post_event(digest: str, stream: str, event: dict[str, Any]) -> None:
    """Keeps one event of a POST stream for resumption ({"id", "data", "final"})."""
    key = _post_key(digest, stream)
    pipe = redis_client().pipeline()
    pipe.rpush(key, json.dumps(event))
    pipe.ltrim(key, -settings.MCP_EVENT_BUFFER, -1)
    pipe.expire(key, settings.MCP_EVENT_BUFFER_SECONDS)
    pipe.execute()


def post_events_after(digest: str, stream: str, number: int) -> list[dict[str, Any]]:
    """The kept events of a POST stream numbered after `number`, in order."""
    events = [json.loads(raw) for raw in redis_client().lrange(_post_key(digest, stream), 0, -1)]
    return [
        event
        for event in events
        if parse_post_event_id(event["id"]) is not None and event_number(event) > number
    ]


def event_number(event: dict[str, Any]) -> int:
    parsed = parse_post_event_id(event["id"])
    return parsed[1] if parsed is not None else 0


# --- calls in flight in this process ------------------------------------------------------------


class Flag:
    """Set once from one thread, read from others, never waited on: what `threading.Event` does
    for these flags without its condition variable and locks, made for every request."""

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set


@dataclass
class RunningCall:
    """A request this process is serving, as the consumer's loop sees it: its queue receives the
    messages to write (progress, elicitation requests) and the final outcome."""

    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue
    cancelled: Flag = field(default_factory=Flag)
    gone: Flag = field(default_factory=Flag)
    waiting: set[str] = field(default_factory=set)
    # (session digest, JSON of the request id) once the request is known to be a tools/call.
    key: tuple[str, str] | None = None
    # Headers every answer to this request carries (CORS), decided by the synchronous half.
    headers: dict[str, str] = field(default_factory=dict)
    # Its session's revision makes its event stream resumable (set before the tool runs).
    resumable: bool = False
    digest: str = ""
    # Closing the response cancels the call (2026-07-28, where nothing else is the client's own);
    # under 2025 a client that leaves has only gone.
    ends_with_its_response: bool = False

    def put(self, item: tuple[str, Any]) -> None:
        """From any thread."""
        self.loop.call_soon_threadsafe(self.queue.put_nowait, item)


class Hub:
    """What this process waits for: running calls (to cancel them) and the server-to-client
    requests they asked (to hand them the client's answer)."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], RunningCall] = {}
        self.pending: dict[tuple[str, str], tuple[concurrent.futures.Future, RunningCall]] = {}
        self._lock = threading.Lock()
        self._listener: asyncio.Task | None = None
        self._ready: asyncio.Event | None = None

    # Keys are (session digest, JSON of the request id): ids may be strings or numbers.
    @staticmethod
    def key(digest: str, request_id: Any) -> tuple[str, str]:
        # An integer's JSON is its digits (most clients number their requests): no encoder needed.
        return digest, str(request_id) if type(request_id) is int else json.dumps(request_id)

    def expect(self, key: tuple[str, str], call: RunningCall) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            self.pending[key] = (future, call)
            call.waiting.add(key[1])
        return future

    def stop_expecting(self, key: tuple[str, str]) -> None:
        with self._lock:
            entry = self.pending.pop(key, None)
        if entry is not None:
            entry[1].waiting.discard(key[1])

    def answer(self, key: tuple[str, str], message: dict[str, Any]) -> bool:
        """Hands the client's response to the call waiting for it here; False if none does."""
        with self._lock:
            entry = self.pending.pop(key, None)
        if entry is None:
            return False
        future, call = entry
        call.waiting.discard(key[1])
        if not future.done():
            future.set_result(message)
        return True

    def cancel(self, key: tuple[str, str]) -> bool:
        call = self.calls.get(key)
        if call is None:
            return False
        call.cancelled.set()
        self.release(call, CancelledByClient())
        call.queue.put_nowait(("cancelled", None))
        return True

    def release(self, call: RunningCall, error: Exception) -> None:
        """Fails whatever `call` still waits for (its request is over or its client gone)."""
        if call.key is None:
            return
        digest = call.key[0]
        with self._lock:
            for waited in list(call.waiting):
                entry = self.pending.pop((digest, waited), None)
                if entry is not None and not entry[0].done():
                    entry[0].set_exception(error)
            call.waiting.clear()

    async def forward(self, kind: str, key: tuple[str, str], message: dict[str, Any] | None = None) -> None:
        """An answer or a cancellation this process cannot place: to every other process."""
        layer = get_channel_layer()
        if layer is not None:
            await layer.group_send(
                CONTROL_GROUP, {"type": "mcp.control", "kind": kind, "key": list(key), "message": message}
            )

    async def listening(self, timeout: float = 2.0) -> bool:
        """Makes sure this process is subscribed to the control group (once). Without Redis,
        calls still run; only answers and cancellations POSTed to other processes miss them."""
        if self._ready is None:
            self._ready = asyncio.Event()
            self._listener = asyncio.ensure_future(self._listen())
        if self._ready.is_set():
            return True
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            logger.warning("not subscribed to the MCP control group yet (is Redis reachable?)")
            return False
        return True

    async def _listen(self) -> None:
        layer = get_channel_layer()
        assert self._ready is not None
        if layer is None:
            self._ready.set()
            return
        while True:
            try:
                channel = await layer.new_channel()
                await layer.group_add(CONTROL_GROUP, channel)
                self._ready.set()
                while True:
                    event = await layer.receive(channel)
                    key = tuple(event.get("key") or ("", ""))
                    if event.get("kind") == "answer":
                        self.answer(key, event.get("message") or {})
                    elif event.get("kind") == "cancel":
                        self.cancel(key)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("MCP control listener failed; subscribing again in 1 s")
                await asyncio.sleep(1)


class CancelledByClient(Exception):
    """The client cancelled the request while it waited for an answer."""


hub = Hub()
