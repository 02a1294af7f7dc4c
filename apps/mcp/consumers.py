"""`/api/mcp`: the Streamable HTTP transport, a Channels HTTP consumer routed before Django.

The endpoint does not pay for what it does not use: no middleware stack, no URL resolution, no
request object. Each HTTP request costs one hop to a worker thread (`handlers.serve`: workspace,
Origin, credential, session, method, the tool itself) and back.

POST answers `application/json`, or `text/event-stream` as soon as something must reach the
client before the result (progress, an elicitation request). GET holds the session's stream: it
joins the session's group on the Channels layer, replays what the client missed (Last-Event-ID),
and writes what any process publishes for the session, with a keep-alive comment every
MCP_KEEPALIVE_SECONDS. A newer GET for the same session takes over (each message goes to one
stream only); DELETE closes it, and so does the process stopping (`end_streams`).
"""

import asyncio
import contextlib
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

from apps.core import errors, metrics, observability
from apps.mcp import protocol, sessions, streams
from apps.mcp.handlers import ALLOWED_METHODS, Reply, Request, jsonrpc_error, may_wait, serve
from apps.mcp.streams import CancelledByClient, RunningCall, hub

logger = logging.getLogger(__name__)

SSE_HEADERS = {
    "Content-Type": "text/event-stream",
    # Proxies must pass events through as they come: no caching, no transformation, no buffering.
    "Cache-Control": "no-cache, no-transform",
    "X-Accel-Buffering": "no",
}
KEEPALIVE = b": keep-alive\n\n"

_pools: dict[bool, ThreadPoolExecutor] = {}
# One future per stream held by this process, resolved when the process stops (`end_streams`).
_held: set[asyncio.Future] = set()


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


def end_streams() -> None:
    """Ends every stream this process holds (it is stopping): each client reconnects, through the
    load balancer, to a process that stays, and replays what it missed with Last-Event-ID."""
    for stopping in list(_held):
        if not stopping.done():
            stopping.set_result(None)


def sse_event(data: Any, event_id: str | None = None) -> bytes:
    payload = data if isinstance(data, bytes | bytearray) else protocol.dumps(data)
    head = f"id: {event_id}\n".encode() if event_id is not None else b""
    return head + b"event: message\ndata: " + bytes(payload) + b"\n\n"


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
                await self.reply(jsonrpc_error(413, None, protocol.INVALID_REQUEST, "Payload Too Large."))
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
        if b"tools/call" in request.body:
            # A cancellation may be POSTed to another process: be subscribed before running.
            await hub.listening()
        # Submitted to the pool itself, not through run_in_executor: the reply comes back through
        # the call's queue, and an asyncio future for the job would cost the loop a second
        # wake-up from the thread per request (`serve` never raises).
        executor(quick=not may_wait(request)).submit(contextvars.copy_context().run, _job, request, call)
        streaming = False
        watcher: asyncio.Future | None = None
        try:
            while True:
                if streaming:
                    try:
                        kind, value = await asyncio.wait_for(call.queue.get(), settings.MCP_KEEPALIVE_SECONDS)
                    except TimeoutError:
                        await self.send_body(KEEPALIVE, more_body=True)
                        continue
                else:
                    kind, value = await call.queue.get()
                if kind == "message":
                    if not streaming:
                        await self.send_headers(status=200, headers=_encode({**SSE_HEADERS, **call.headers}))
                        streaming = True
                        watcher = asyncio.ensure_future(_watch_disconnect(receive, call))
                    await self.send_body(sse_event(value), more_body=True)
                elif kind == "reply":
                    reply: Reply = value
                    if streaming:
                        if reply.body is not None:
                            await self.send_body(sse_event(reply.body), more_body=True)
                        await self.send_body(b"")
                    else:
                        await self.reply(reply)
                    await self.after(reply)
                    return
                elif kind == "cancelled":
                    # The client cancelled: no response for that request (the tool was told).
                    if not streaming:
                        await self.send_headers(status=200, headers=_encode({**SSE_HEADERS, **call.headers}))
                    await self.send_body(b"")
                    return
                elif kind == "disconnect":
                    return
        finally:
            if watcher is not None:
                watcher.cancel()
            if call.key is not None:
                hub.calls.pop(call.key, None)
                if not call.cancelled.is_set():
                    call.gone.set()
                hub.release(call, CancelledByClient())

    # --- GET ------------------------------------------------------------------------------------

    async def stream(self, request: Request, receive: Any) -> None:
        reply = await self.serve(request)
        if reply.then is None or reply.then[0] != "stream":
            await self.reply(reply)
            return
        digest = reply.then[1]
        layer = get_channel_layer()
        assert layer is not None  # settings.CHANNEL_LAYERS always names one
        group = streams.session_group(digest)
        # Orders this stream among the session's: the later one keeps the session.
        opened = [time.time_ns(), secrets.token_hex(8)]
        last_event_id = request.headers.get(protocol.LAST_EVENT_ID_HEADER)
        channel = None
        missed: list[dict[str, str]] = []
        # Everything that needs Redis comes before the headers: without it, a clean 503.
        try:
            channel = await layer.new_channel()
            await layer.group_add(group, channel)
            # Each message goes to one stream: a stream still open for this session steps down.
            # The pub/sub layer hands a group message to whoever is in the group when it arrives,
            # so a takeover can reach a stream opened after it: only a later one makes it yield.
            await layer.group_send(group, {"type": "mcp.takeover", "opened": opened})
            # Read after joining the group: nothing published meanwhile falls between the two.
            if last_event_id:
                missed = await asyncio.get_running_loop().run_in_executor(
                    executor(), streams.buffered_after, digest, last_event_id
                )
        except Exception as error:
            outage = errors.unavailable(error)
            if outage is None:
                raise
            reason = observability.describe_error(error)
            logger.warning("MCP stream refused with 503, Redis is unreachable: %s", reason)
            if channel is not None:
                with contextlib.suppress(Exception):
                    await layer.group_discard(group, channel)
            await self.reply(Reply(503, outage.as_body(), {**reply.headers, **outage.headers}))
            return
        await self.send_headers(status=200, headers=_encode({**SSE_HEADERS, **reply.headers}))
        metrics.sse_stream_opened()
        from_layer: asyncio.Future | None = None
        from_client: asyncio.Future | None = None
        stopping = asyncio.get_running_loop().create_future()
        _held.add(stopping)
        connected = True
        try:
            await self.send_body(b": stream open\n\n", more_body=True)
            sent = 0
            for event in missed:
                await self.send_body(sse_event(event["data"].encode(), event["id"]), more_body=True)
                sent = max(sent, int(event["id"]))
            from_layer = asyncio.ensure_future(layer.receive(channel))
            from_client = asyncio.ensure_future(receive())
            while True:
                done, _pending = await asyncio.wait(
                    {from_layer, from_client, stopping},
                    timeout=settings.MCP_KEEPALIVE_SECONDS,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if not done:
                    await self.send_body(KEEPALIVE, more_body=True)
                    continue
                if stopping in done:
                    return
                if from_client in done:
                    if from_client.result()["type"] == "http.disconnect":
                        connected = False
                        return
                    from_client = asyncio.ensure_future(receive())
                if from_layer in done:
                    event = from_layer.result()
                    kind = event.get("type")
                    if kind == "mcp.event" and int(event["id"]) > sent:
                        await self.send_body(sse_event(event["data"].encode(), event["id"]), more_body=True)
                        sent = int(event["id"])
                    elif kind == "mcp.end" or (
                        kind == "mcp.takeover" and list(event.get("opened") or ()) > opened
                    ):
                        return
                    from_layer = asyncio.ensure_future(layer.receive(channel))
        finally:
            _held.discard(stopping)
            metrics.sse_stream_closed()
            for task in (from_layer, from_client):
                if task is not None:
                    task.cancel()
            # Redis may be gone meanwhile: its subscription then went with the connection.
            with contextlib.suppress(Exception):
                await layer.group_discard(group, channel)
            if connected:
                with contextlib.suppress(Exception):
                    await self.send_body(b"")


def _encode(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]


def _job(request: Request, call: RunningCall) -> None:
    call.put(("reply", serve(request, call)))


async def _watch_disconnect(receive: Any, call: RunningCall) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            # Per the transport spec a dropped connection is not a cancellation: the tool runs
            # on, but nothing more can be asked of the client.
            call.gone.set()
            call.queue.put_nowait(("disconnect", None))
            return
