"""`/api/mcp`: the Streamable HTTP transport, a Channels HTTP consumer routed before Django.

The endpoint does not pay for what it does not use: no middleware stack, no URL resolution, no
request object. Each HTTP request costs one hop to a worker thread (`handlers.serve`: workspace,
Origin, credential, session, method, the tool itself) and back.

POST answers `application/json`, or `text/event-stream` as soon as something must reach the
client before the result (progress, an elicitation request). GET holds the session's stream: it
joins the session's group on the Channels layer, replays what the client missed (Last-Event-ID),
and writes what any process publishes for the session, with a keep-alive comment every
MCP_KEEPALIVE_SECONDS. A newer GET for the same session takes over (each message goes to one
stream only); DELETE closes it, and so does the process stopping. The three streams that relay
the Channels layer (GET, a resumed POST stream, `subscriptions/listen`) run on apps.mcp.relay.
"""

import asyncio
import contextvars
import logging
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qsl

from channels.generic.http import AsyncHttpConsumer
from channels.layers import get_channel_layer
from django.conf import settings

from apps.core import errors, metrics, observability, onloop
from apps.mcp import protocol, sessions, stateless, streams, versions
from apps.mcp.errors import body_too_large
from apps.mcp.handlers import (
    ALLOWED_METHODS,
    Reply,
    Request,
    jsonrpc_error,
    may_serve_on_loop,
    may_wait,
    serve,
)
from apps.mcp.relay import KEEPALIVE, SSE_HEADERS, Relay, encode_headers, sse_event
from apps.mcp.streams import CancelledByClient, RunningCall, hub

logger = logging.getLogger(__name__)

# How soon a client should reconnect to a resumable POST stream that ended before its response
# (the SSE `retry` field of the priming event).
RETRY_MILLISECONDS = 1000

_pools: dict[bool, ThreadPoolExecutor] = {}


def executor(quick: bool = True) -> ThreadPoolExecutor:
    """The quick pool, or the pool of calls that may wait (settings MCP_QUICK_THREADS, and
    MCP_WORKER_THREADS plus MCP_MAX_WAITING; `handlers.may_wait` chooses). Made on first use, in
    the event loop."""
    pool = _pools.get(quick)
    if pool is None:
        # The waiting pool also seats every call that may wait on a person (apps.mcp.waiting).
        size = settings.MCP_QUICK_THREADS if quick else settings.MCP_WORKER_THREADS + settings.MCP_MAX_WAITING
        pool = _pools[quick] = ThreadPoolExecutor(
            max_workers=size, thread_name_prefix="mcp" if quick else "mcp-waiting"
        )
    return pool


class McpConsumer(AsyncHttpConsumer):
    # Any: Channels' stubs type every consumer's scope as a WebSocket's; this one is HTTP's.
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        # The generic consumer would open a channel-layer channel for every request; only the GET
        # stream needs one, so requests are routed here by hand.
        self.scope = scope
        self.base_send = send
        observability.set_route("api/mcp")
        sessions.watch.start()  # told of ended sessions from now on (once per process)
        method = scope["method"]
        if method not in {"GET", "POST", "DELETE", "OPTIONS"}:
            await self.reply(
                Reply(
                    405,
                    protocol.error(None, protocol.INVALID_REQUEST, "Method Not Allowed"),
                    {"Allow": ALLOWED_METHODS},
                )
            )
            return
        headers: dict[str, str] = {}
        for name, value in scope.get("headers", []):
            headers[name.decode("latin-1")] = value.decode("latin-1")
        host = headers.get("host")
        if host is None:
            server = scope.get("server") or ("localhost", 80)
            host = f"{server[0]}:{server[1]}"
        request = Request(
            method=method,
            scheme=scope.get("scheme", "http"),
            host=host,
            headers=headers,
            query=dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"))),
        )
        if method == "POST":
            body = await self.read_body(receive)
            if body is None:
                error = body_too_large(settings.MCP_MAX_BODY_BYTES)
                await self.reply(
                    jsonrpc_error(
                        413,
                        None,
                        protocol.INVALID_REQUEST,
                        str(error.message),
                        {"code": error.code, **error.data},
                    )
                )
                return
            request.body = body
            await self.post(request, receive)
        elif method == "GET":
            await self.stream(request, receive)
        else:
            reply = await self.serve(request)
            await self.reply(reply)
            await self.after(reply)

    async def serve(self, request: Request) -> Reply:
        # The request's context (its id, for logs and metrics) goes along to the worker thread.
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(executor(), context.run, serve, request, None)

    @staticmethod
    def sse_headers(call: RunningCall) -> list[tuple[bytes, bytes]]:
        return encode_headers({**SSE_HEADERS, **call.headers})

    async def read_body(self, receive: Any) -> bytes | None:
        chunks, size, limit = [], 0, settings.MCP_MAX_BODY_BYTES
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return b""
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
            if not message.get("more_body"):
                return b"".join(chunks)

    async def reply(self, reply: Reply) -> None:
        headers = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in reply.headers.items()]
        body = b""
        if reply.body is not None:
            body = protocol.dumps(reply.body)
            headers.append((b"content-type", b"application/json"))
        await self.send_response(reply.status, body, headers=headers)

    async def after(self, reply: Reply) -> None:
        """What a message asks of this process once it is answered. The answer is out already:
        with Redis unreachable, what had to cross processes is lost (logged), nothing else."""
        with errors.unless_unavailable(
            logger, "could not pass %s on to the other processes: %s", reply.then and reply.then[0]
        ):
            await self._after(reply)

    async def _after(self, reply: Reply) -> None:
        if reply.then is None:
            return
        kind = reply.then[0]
        if kind == "answer":
            _kind, key, message = reply.then
            if not hub.answer(key, message):
                await hub.forward("answer", key, message)
        elif kind == "cancel":
            key = reply.then[1]
            if not hub.cancel(key):
                await hub.forward("cancel", key)
        elif kind == "end":
            layer = get_channel_layer()
            if layer is not None:
                await layer.group_send(streams.session_group(reply.then[1]), {"type": "mcp.end"})

    # --- POST -----------------------------------------------------------------------------------

    async def post(self, request: Request, receive: Any) -> None:
        loop = asyncio.get_running_loop()
        call = RunningCall(loop=loop, queue=asyncio.Queue())
        watcher: asyncio.Future | None = None
        if b"tools/call" in request.body:
            if versions.stateless((request.headers.get(protocol.VERSION_HEADER) or "").strip(" \t")):
                # 2026-07-28: the client cancels a call by closing its response (there is no
                # session, so nothing else would be its own): watched from the start.
                call.ends_with_its_response = True
                watcher = asyncio.ensure_future(_watch_disconnect(receive, call))
            else:
                # A cancellation may be POSTed to another process: be subscribed before running.
                await hub.listening()
        if not await _served_on_loop(request, call):
            # Submitted to the pool itself, not through run_in_executor: the reply comes back
            # through the call's queue, and an asyncio future for the job would cost the loop a
            # second wake-up from the thread per request (`serve` never raises).
            quick = not may_wait(request)
            executor(quick=quick).submit(contextvars.copy_context().run, _job, request, call, quick)
        streaming = False
        # The response can still be written to (False once it ended early or the client left).
        writable = True
        post = _PostStream(self, call)
        try:
            while True:
                if streaming and writable:
                    try:
                        kind, value = await asyncio.wait_for(call.queue.get(), settings.MCP_KEEPALIVE_SECONDS)
                    except TimeoutError:
                        await self.send_body(KEEPALIVE, more_body=True)
                        continue
                else:
                    kind, value = await call.queue.get()
                if kind in {"message", "close"} and not streaming:
                    await self.send_headers(status=200, headers=self.sse_headers(call))
                    streaming = True
                    if watcher is None:
                        watcher = asyncio.ensure_future(_watch_disconnect(receive, call))
                    await post.open()
                if kind == "message":
                    await post.write(value, writable=writable)
                elif kind == "close":
                    # The tool ends the response early (2025-11-25 polling); only a resumable
                    # stream can: its client comes back with GET and Last-Event-ID.
                    if post.stream is not None and writable:
                        await self.send_body(b"")
                        writable = False
                elif kind == "reply":
                    reply: Reply = value
                    if not streaming and reply.then is not None and reply.then[0] == "listen":
                        await self.listen(reply, receive)
                        return
                    if streaming:
                        if reply.body is not None:
                            await post.write(reply.body, writable=writable, final=True)
                        if writable:
                            await self.send_body(b"")
                    else:
                        await self.reply(reply)
                    await self.after(reply)
                    return
                elif kind == "cancelled":
                    # The client cancelled: no response for that request (the tool was told).
                    if not streaming:
                        await self.send_headers(status=200, headers=self.sse_headers(call))
                    if writable:
                        await self.send_body(b"")
                    return
                elif kind == "abandoned":
                    # Its client closed the response, which cancelled the call: nobody to answer.
                    return
                elif kind == "disconnect":
                    if post.stream is None:
                        return
                    # Resumable: the rest is kept for the client's GET with Last-Event-ID.
                    writable = False
        finally:
            if watcher is not None:
                watcher.cancel()
            if call.key is not None:
                hub.calls.pop(call.key, None)
                if not call.cancelled.is_set():
                    call.gone.set()
                hub.release(call, CancelledByClient())

    # --- subscriptions/listen (2026-07-28) --------------------------------------------------------

    async def listen(self, reply: Reply, receive: Any) -> None:
        """The stream of a `subscriptions/listen`: the acknowledgement first, then a
        `notifications/tools/list_changed` whenever the person's tool list changes (if asked) and
        a `notifications/tasks` whenever one of the tasks it named changes (the tasks extension),
        each tagged with the subscription's id, and keep-alive comments, until the client leaves
        or this process stops (then the request's result ends it)."""
        _kind, subscription_id, honoured, groups = reply.then  # type: ignore[misc]
        relay = Relay(self, groups, reply, what="listen stream")
        joined, _ = await relay.join()
        if not joined:
            return

        def handle(event: dict[str, Any]) -> tuple[bytes | None, bool]:
            if event.get("type") == "mcp.listchanged" and honoured.get("toolsListChanged"):
                return sse_event(stateless.list_changed(subscription_id)), False
            if event.get("type") == "mcp.task" and event["task"].get("taskId") in honoured.get("taskIds", ()):
                return sse_event(stateless.task_changed(subscription_id, event["task"])), False
            return None, False

        await relay.run(
            receive,
            [sse_event(stateless.acknowledgement(subscription_id, honoured))],
            handle,
            farewell=sse_event(stateless.listen_ended(subscription_id)),
        )

    # --- GET ------------------------------------------------------------------------------------

    async def stream(self, request: Request, receive: Any) -> None:
        reply = await self.serve(request)
        if reply.then is None or reply.then[0] != "stream":
            await self.reply(reply)
            return
        digest = reply.then[1]
        last_event_id = request.headers.get(protocol.LAST_EVENT_ID_HEADER)
        resumed = streams.parse_post_event_id(last_event_id)
        if resumed is not None:
            await self.resume(digest, *resumed, reply, receive)
            return
        relay = Relay(self, [streams.session_group(digest)], reply, what="stream")
        # Orders this stream among the session's: the later one keeps the session.
        opened = [time.time_ns(), secrets.token_hex(8)]

        async def take_over() -> list[dict[str, str]]:
            # Each message goes to one stream: a stream still open for this session steps down.
            # The pub/sub layer hands a group message to whoever is in the group when it arrives,
            # so a takeover can reach a stream opened after it: only a later one makes it yield.
            await relay.layer.group_send(relay.groups[0], {"type": "mcp.takeover", "opened": opened})
            # Read after joining the group: nothing published meanwhile falls between the two.
            if not last_event_id:
                return []
            return await asyncio.get_running_loop().run_in_executor(
                executor(), streams.buffered_after, digest, last_event_id
            )

        joined, missed = await relay.join(take_over)
        if not joined:
            return
        sent = max((int(event["id"]) for event in missed or ()), default=0)

        def handle(event: dict[str, Any]) -> tuple[bytes | None, bool]:
            nonlocal sent
            kind = event.get("type")
            if kind == "mcp.event" and int(event["id"]) > sent:
                sent = int(event["id"])
                return sse_event(event["data"].encode(), event["id"]), False
            ended = kind == "mcp.end" or (kind == "mcp.takeover" and list(event.get("opened") or ()) > opened)
            return None, ended

        first = [b": stream open\n\n"] + [sse_event(e["data"].encode(), e["id"]) for e in missed or ()]
        await relay.run(receive, first, handle)

    async def resume(self, digest: str, stream: str, after: int, reply: Reply, receive: Any) -> None:
        """GET with the Last-Event-ID of a POST stream: what that stream sent after it, then what
        it sends from now on, until its response (2025-11-25, SEP-1699). It does not take the
        session's GET stream over."""
        relay = Relay(self, [streams.post_group(digest, stream)], reply, what="resumed stream")

        async def missed_events() -> list[dict[str, Any]]:
            # Read after joining the group: nothing sent meanwhile falls between the two.
            return await asyncio.get_running_loop().run_in_executor(
                executor(), streams.post_events_after, digest, stream, after
            )

        joined, missed = await relay.join(missed_events)
        if not joined:
            return
        first, sent, ended = [], after, False
        for event in missed or ():
            first.append(sse_event(event["data"].encode(), event["id"]))
            sent = max(sent, streams.event_number(event))
            if event.get("final"):
                ended = True
                break

        def handle(event: dict[str, Any]) -> tuple[bytes | None, bool]:
            nonlocal sent
            if event.get("type") == "mcp.event" and streams.event_number(event) > sent:
                sent = streams.event_number(event)
                return sse_event(event["data"].encode(), event["id"]), bool(event.get("final"))
            return None, False

        await relay.run(receive, first, handle, ended=ended, counted=False)


class _PostStream:
    """The events of one POST answered as a stream. In a session whose revision makes POST streams
    resumable, it opens with a priming event (an id, no data, `retry`), numbers every event, and
    keeps each in Redis and sends it to the stream's group (`streams`, "resumable POST streams")
    before writing it, so that what the client misses it can fetch with GET and Last-Event-ID.
    Otherwise events go out as before, without ids."""

    def __init__(self, consumer: McpConsumer, call: RunningCall) -> None:
        self.consumer = consumer
        self.call = call
        self.stream: str | None = None
        self.number = 0

    async def open(self) -> None:
        if not self.call.resumable:
            return
        self.stream = secrets.token_hex(6)
        event_id = streams.post_event_id(self.stream, 0)
        priming = f"id: {event_id}\nretry: {RETRY_MILLISECONDS}\ndata: \n\n".encode()
        await self.consumer.send_body(priming, more_body=True)

    async def write(self, message: Any, *, writable: bool, final: bool = False) -> None:
        if self.stream is None:
            if writable:
                await self.consumer.send_body(sse_event(message), more_body=True)
            return
        self.number += 1
        event_id = streams.post_event_id(self.stream, self.number)
        payload = message if isinstance(message, bytes | bytearray) else protocol.dumps(message)
        event = {"id": event_id, "data": bytes(payload).decode(), "final": final}
        with errors.unless_unavailable(logger, "a POST stream's event is not kept for resumption: %s"):
            await asyncio.get_running_loop().run_in_executor(
                executor(), streams.record_post_event, self.call.digest, self.stream, event
            )
            layer = get_channel_layer()
            if layer is not None:
                await layer.group_send(
                    streams.post_group(self.call.digest, self.stream), {"type": "mcp.event", **event}
                )
        if writable:
            await self.consumer.send_body(sse_event(payload, event_id), more_body=True)


def _job(request: Request, call: RunningCall, quick: bool = True) -> None:
    try:
        call.put(("reply", serve(request, call)))
    finally:
        if not quick:
            _close_connection()


def _close_connection() -> None:
    """A thread of the waiting pool gives its database connection back once its call is answered:
    the pool has up to MCP_WORKER_THREADS + MCP_MAX_WAITING threads, and connections kept by its
    idle threads would hold the process's slots (DATABASE_MAX_CONNECTIONS, apps/core/dbbackend)
    that the busy ones need. The quick pool's few threads keep theirs (reads are most requests)."""
    from django.db import connection

    if connection.connection is not None and not connection.in_atomic_block:
        connection.close()


async def _served_on_loop(request: Request, call: RunningCall) -> bool:
    """Serves the request on the event loop when it is one that may be (apps.core.onloop): True
    once its reply is in the call's queue, False when it must go to a thread (not one for the
    loop, or it gave up there before doing anything)."""
    what = may_serve_on_loop(request)
    if what is None:
        return False
    try:
        reply = await onloop.run(serve, request, call)
    except onloop.NeedsThread:
        onloop.tally.count(what, served=False, where=request.host)
        metrics.mcp_on_loop(served=False)
        return False
    onloop.tally.count(what, served=True, where=request.host)
    metrics.mcp_on_loop(served=True)
    call.queue.put_nowait(("reply", reply))
    return True


async def _watch_disconnect(receive: Any, call: RunningCall) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            if call.ends_with_its_response:
                # 2026-07-28: closing the response is the cancellation, and only the request's
                # own client can close it.
                call.cancelled.set()
                hub.release(call, CancelledByClient())
                call.queue.put_nowait(("abandoned", None))
                return
            # Per the 2025 transport a dropped connection is not a cancellation: the tool runs
            # on, but nothing more can be asked of the client.
            call.gone.set()
            call.queue.put_nowait(("disconnect", None))
            return
