"""The long-lived event streams of `/api/mcp` that relay what the Channels layer brings: the
session's GET stream, a resumed POST stream (GET with a POST stream's Last-Event-ID) and a
2026-07-28 `subscriptions/listen`. They differ in their groups, in what they send first and in
what each layer event becomes; the rest is this one loop.

`join` subscribes a new channel to the stream's groups, then runs what must follow the joining
(replaying missed events, taking over the session): everything that needs Redis comes before the
headers, so without it the client gets a clean 503. `relay` sends the headers and the first
events, then what `handle` makes of each layer event, a keep-alive comment every
MCP_KEEPALIVE_SECONDS, until the client leaves, `handle` ends the stream, or the process stops
(`end_streams`: the client reconnects, through the load balancer, to a process that stays).
"""

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

from channels.layers import get_channel_layer
from django.conf import settings

from apps.core import errors, metrics, observability
from apps.mcp import protocol
from apps.mcp.handlers import Reply

logger = logging.getLogger(__name__)

SSE_HEADERS = {
    "Content-Type": "text/event-stream",
    # Proxies must pass events through as they come: no caching, no transformation, no buffering.
    "Cache-Control": "no-cache, no-transform",
    "X-Accel-Buffering": "no",
}
KEEPALIVE = b": keep-alive\n\n"

# One future per stream held by this process, resolved when the process stops (`end_streams`).
_held: set[asyncio.Future] = set()

T = TypeVar("T")
# What a layer event becomes on the stream: the bytes to send (None: nothing) and whether the
# stream ends after them.
Handle = Callable[[dict[str, Any]], tuple[bytes | None, bool]]


def end_streams() -> None:
    """Ends every stream this process holds (it is stopping)."""
    for stopping in list(_held):
        if not stopping.done():
            stopping.set_result(None)


def sse_event(data: Any, event_id: str | None = None) -> bytes:
    payload = data if isinstance(data, bytes | bytearray) else protocol.dumps(data)
    head = f"id: {event_id}\n".encode() if event_id is not None else b""
    return head + b"event: message\ndata: " + bytes(payload) + b"\n\n"


def encode_headers(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]


class Relay:
    """One stream of one response (`consumer`, a Channels HTTP consumer) over `groups`."""

    def __init__(self, consumer: Any, groups: Sequence[str], reply: Reply, *, what: str) -> None:
        self.consumer = consumer
        self.groups = groups
        self.reply = reply
        self.what = what  # for the log line of a refusal: "stream", "listen stream"
        layer = get_channel_layer()
        assert layer is not None  # settings.CHANNEL_LAYERS always names one
        self.layer = layer
        self.channel: str | None = None

    async def join(self, then: Callable[[], Awaitable[T]] | None = None) -> tuple[bool, T | None]:
        """Subscribes to the groups, then runs `then`. (False, None) once the client was answered
        503 because Redis is unreachable; (True, what `then` returned) otherwise."""
        try:
            self.channel = await self.layer.new_channel()
            for group in self.groups:
                await self.layer.group_add(group, self.channel)
            return True, (await then() if then is not None else None)
        except Exception as error:
            outage = errors.unavailable(error)
            if outage is None:
                raise
            logger.warning(
                "MCP %s refused with 503, Redis is unreachable: %s",
                self.what,
                observability.describe_error(error),
            )
            await self._leave()
            reply = self.reply
            await self.consumer.reply(Reply(503, outage.as_body(), {**reply.headers, **outage.headers}))
            return False, None

    async def run(
        self,
        receive: Any,
        first: Iterable[bytes],
        handle: Handle,
        *,
        ended: bool = False,
        farewell: bytes | None = None,
        counted: bool = True,
    ) -> None:
        """Relays until the end. `first` goes out before any layer event (`ended`: nothing more
        after it); `farewell` is the last event when the process stops; `counted` streams are in
        the open-streams gauge."""
        consumer, layer, channel = self.consumer, self.layer, self.channel
        assert channel is not None  # joined
        await consumer.send_headers(status=200, headers=encode_headers({**SSE_HEADERS, **self.reply.headers}))
        if counted:
            metrics.sse_stream_opened()
        from_layer: asyncio.Future | None = None
        from_client: asyncio.Future | None = None
        stopping = asyncio.get_running_loop().create_future()
        _held.add(stopping)
        connected = True
        try:
            for opening in first:
                await consumer.send_body(opening, more_body=True)
            if ended:
                return
            from_layer = asyncio.ensure_future(layer.receive(channel))
            from_client = asyncio.ensure_future(receive())
            while True:
                done, _pending = await asyncio.wait(
                    {from_layer, from_client, stopping},
                    timeout=settings.MCP_KEEPALIVE_SECONDS,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if not done:
                    await consumer.send_body(KEEPALIVE, more_body=True)
                    continue
                if stopping in done:
                    if farewell is not None:
                        await consumer.send_body(farewell, more_body=True)
                    return
                if from_client in done:
                    if from_client.result()["type"] == "http.disconnect":
                        connected = False
                        return
                    from_client = asyncio.ensure_future(receive())
                if from_layer in done:
                    chunk, last = handle(from_layer.result())
                    if chunk is not None:
                        await consumer.send_body(chunk, more_body=True)
                    if last:
                        return
                    from_layer = asyncio.ensure_future(layer.receive(channel))
        finally:
            _held.discard(stopping)
            if counted:
                metrics.sse_stream_closed()
            for task in (from_layer, from_client):
                if task is not None:
                    task.cancel()
            await self._leave()
            if connected:
                with contextlib.suppress(Exception):
                    await consumer.send_body(b"")

    async def _leave(self) -> None:
        if self.channel is None:
            return
        # Redis may be gone meanwhile: its subscription then went with the connection.
        for group in self.groups:
            with contextlib.suppress(Exception):
                await self.layer.group_discard(group, self.channel)
