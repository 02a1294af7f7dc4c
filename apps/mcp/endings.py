"""Ended sessions and revoked credentials, told to every web process at once (Redis pub/sub).

Each web process keeps the live sessions it served (`sessions._kept`). Ending sessions (DELETE,
an erasure) marks them ended in Redis and publishes their keys on the ENDED channel in the same
transaction (`sessions._mark_ended`). Every web process listens on its event loop (`watch`,
started by the first MCP request) and drops its kept copies as the message arrives.

While the listener is subscribed, a kept session is served without asking Redis anything: a
round trip from a worker thread costs as much CPU as the rest of a small request (bench/RESULTS.md,
"MCP endpoint"). Trust is given by epoch: the epoch changes when the listener (re)subscribes and
with every message it receives, and it is None while the listener is not subscribed. A kept copy
is trusted only under the epoch it was verified in (`stamp()` taken *before* reading the session
from the database or Redis), so:

- messages lost while the listener was down cannot leave a stale copy trusted: the new
  subscription is a new epoch, and each kept copy is checked against Redis once again;
- a session ended while a request was verifying it is not trusted afterwards (the message changed
  the epoch between the stamp and the keep).

Without the listener (Redis down, tests that call `handlers.serve` directly, a process that has
not served an MCP request yet) nothing is trusted, and the per-request Redis check decides, as
before it existed.

Revoked credentials (`apps.core.credentials.revoked`) go out on the REVOKED channel once their
transaction commits, and so do the people whose role or active state changed (`signals`: a kept
credential carries the person as they were): each process drops the credentials it keeps of
those people (`access.forget_principals`). Those need no epoch: a kept credential expires by itself within
MCP_CREDENTIAL_CACHE_SECONDS, which bounds what a lost message can cost.

Why not the Channels layer's control group (`streams.hub`), which every process also listens to:
its pub/sub connection reconnects and subscribes again by itself, so a message lost in between
would go unnoticed, and trust must end the moment messages may be lost.
"""

import asyncio
import contextlib
import logging
from collections.abc import Callable

import redis.asyncio as aioredis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.retry import Retry

from apps.core import errors
from apps.mcp import streams

logger = logging.getLogger(__name__)

# Without any message for this long the listener pings Redis; without an answer to that ping
# for as long again, the connection is taken for dead and opened again (a new epoch).
QUIET_SECONDS = 5.0
RESUBSCRIBE_PAUSE = 1.0
# How the listener's connection shows in Redis's CLIENT LIST.
CLIENT_NAME = "atrium-mcp-ended-watch"


def channel() -> str:
    return streams.redis_name("ended")


def revoked_channel() -> str:
    return streams.redis_name("revoked")


def encode(keys: list[tuple[str, str]]) -> str:
    """The message for these (workspace schema, session digest) pairs: one pair per line."""
    return "\n".join(f"{schema} {digest}" for schema, digest in keys)


def decode(payload: bytes | str) -> list[tuple[str, str]]:
    text = payload.decode() if isinstance(payload, bytes) else payload
    pairs = []
    for line in text.splitlines():
        schema, _, digest = line.partition(" ")
        if schema and digest:
            pairs.append((schema, digest))
    return pairs


def encode_people(schema_name: str, user_ids: list[int]) -> str:
    """The message for these people's credentials in this workspace."""
    return f"{schema_name} {','.join(map(str, user_ids))}"


def decode_people(payload: bytes | str) -> tuple[str, list[int]]:
    text = payload.decode() if isinstance(payload, bytes) else payload
    schema_name, _, ids = text.partition(" ")
    return schema_name, [int(user_id) for user_id in ids.split(",") if user_id.isdigit()]


def tell_revoked(schema_name: str, user_ids: list[int]) -> None:
    """Tells every web process (this one too) that these people's credentials were revoked, or
    that what a kept credential says of them (their role) is out of date."""
    with errors.unless_unavailable(
        logger,
        "revoked credentials may still be accepted by other web processes for %s s (Redis: %s)",
        settings.MCP_CREDENTIAL_CACHE_SECONDS,
    ):
        streams.redis_client().publish(revoked_channel(), encode_people(schema_name, user_ids))


class EndedWatch:
    """The listener of one process. `forget` is called, on the event loop, with the (schema,
    digest) pairs of every ended-sessions message; `forget_people`, if given, with the schema and
    user ids of every revoked-credentials message."""

    def __init__(
        self,
        forget: Callable[[list[tuple[str, str]]], None],
        forget_people: Callable[[str, list[int]], None] | None = None,
    ) -> None:
        self._forget = forget
        self._forget_people = forget_people
        self._epoch = 0
        self._live = False
        self._task: asyncio.Task | None = None
        self._subscribed: asyncio.Event | None = None

    def stamp(self) -> int | None:
        """The current epoch, or None when nothing may be trusted (from any thread)."""
        return self._epoch if self._live else None

    def trusts(self, stamp: int | None) -> bool:
        return stamp is not None and self._live and stamp == self._epoch

    def start(self) -> None:
        """Starts listening (once), from the event loop; returns at once."""
        if self._task is None or self._task.done():
            self._subscribed = asyncio.Event()
            self._task = asyncio.ensure_future(self._run())

    async def started(self, timeout: float = 5.0) -> bool:
        """Starts listening and waits until subscribed (tests, start-up)."""
        self.start()
        assert self._subscribed is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._subscribed.wait(), timeout)
        return self._live

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._live = False

    async def _run(self) -> None:
        while True:
            try:
                await self._listen()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                logger.warning(
                    "not told of ended MCP sessions (%s); kept sessions are checked in Redis until "
                    "subscribed again",
                    error,
                )
            finally:
                self._live = False
            await asyncio.sleep(RESUBSCRIBE_PAUSE)

    async def _listen(self) -> None:
        # No retries: redis-py would reconnect and subscribe again by itself, and the messages
        # missed in between would go unnoticed. Every failure ends this subscription instead.
        client = aioredis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=2, retry=Retry(NoBackoff(), 0), client_name=CLIENT_NAME
        )
        pubsub = client.pubsub()
        revoked = revoked_channel()
        channels = (channel(), revoked)
        try:
            await pubsub.subscribe(*channels)
            pinged = False
            while True:
                message = await pubsub.get_message(timeout=QUIET_SECONDS)
                if message is None:
                    if pinged:
                        raise ConnectionError(f"no answer from Redis for {2 * QUIET_SECONDS:.0f} s")
                    await pubsub.ping()
                    pinged = True
                    continue
                pinged = False
                kind = message.get("type")
                name = message.get("channel")
                name = name.decode() if isinstance(name, bytes) else name
                if kind == "subscribe" and message.get("data") == len(channels):  # all subscribed
                    self._epoch += 1
                    self._live = True
                    if self._subscribed is not None:
                        self._subscribed.set()
                elif kind == "message" and name == revoked:
                    if self._forget_people is not None:
                        self._forget_people(*decode_people(message["data"]))
                elif kind == "message":
                    self._epoch += 1
                    self._forget(decode(message["data"]))
        finally:
            self._live = False
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            with contextlib.suppress(Exception):
                await client.aclose()
