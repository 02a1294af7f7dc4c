"""Ended sessions, revoked credentials and changed workspaces, told to every web process at once
(Redis pub/sub).

Each web process keeps the live sessions it served (`sessions._kept`). Ending sessions (DELETE,
an erasure) marks them ended in Redis and publishes their keys on the ENDED channel in the same
transaction (`sessions._mark_ended`). Every web process listens on its event loop (`watch`,
started by the first MCP request) and drops its kept copies as the message arrives.

While the listener is subscribed, a kept session is served without asking Redis anything: a
round trip from a worker thread costs as much CPU as the rest of a small request (bench/RESULTS.md,
"MCP endpoint"). Trust is given by stamp: the subscription's epoch, which changes when the
listener (re)subscribes, and the count of messages of the kind received; it is None while the
listener is not subscribed. A kept copy is trusted only under the stamp it was verified in
(`stamp(kind)` taken *before* reading it from the database or Redis), so:

- messages lost while the listener was down cannot leave a stale copy trusted: the new
  subscription is a new epoch, and each kept copy is checked again;
- a session ended while a request was verifying it is not trusted afterwards (the message changed
  the stamp between the stamp and the keep).

Without the listener (Redis down, tests that call `handlers.serve` directly, a process that has
not served an MCP request yet) nothing is trusted, and the per-request Redis check decides, as
before it existed.

Revoked credentials (`apps.core.credentials.revoked`) go out on the REVOKED channel once their
transaction commits, and so do the people whose role or active state changed (`signals`: a kept
credential carries the person as they were): each process drops the credentials it keeps of
those people (`access.forget_principals`). Workspaces saved or deleted, and host names added or
removed, go out on the WORKSPACES channel (`signals`), and each process forgets the routes and
workspaces it keeps. Those caches are `apps.core.kept.Kept`: an entry lives its short while
(MCP_CREDENTIAL_CACHE_SECONDS, the routes' ten seconds) untrusted, and up to TOLD_CACHE_SECONDS
under the stamp it was read in.

Why not the Channels layer's control group (`streams.hub`), which every process also listens to:
its pub/sub connection reconnects and subscribes again by itself, so a message lost in between
would go unnoticed, and trust must end the moment messages may be lost.
"""

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Mapping

import redis.asyncio as aioredis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.retry import Retry

from apps.core import errors
from apps.core.kept import ENDED, KINDS, REVOKED, WORKSPACES, Stamp
from apps.mcp import streams

logger = logging.getLogger(__name__)

# Without any message for this long the listener pings Redis; without an answer to that ping
# for as long again, the connection is taken for dead and opened again (a new epoch).
QUIET_SECONDS = 5.0
RESUBSCRIBE_PAUSE = 1.0
# How the listener's connection shows in Redis's CLIENT LIST: this name, a dash, the process id.
CLIENT_NAME = "atrium-mcp-ended-watch"


def client_name() -> str:
    """The name of this process's listener (one web process's can be told from another's)."""
    return f"{CLIENT_NAME}-{os.getpid()}"


# Each kind of change (apps.core.kept.KINDS) on its own channel, `streams.redis_name(kind)`.


def channel() -> str:
    return streams.redis_name(ENDED)


def revoked_channel() -> str:
    return streams.redis_name(REVOKED)


def workspaces_channel() -> str:
    return streams.redis_name(WORKSPACES)


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
        settings.TOLD_CACHE_SECONDS,
    ):
        streams.redis_client().publish(revoked_channel(), encode_people(schema_name, user_ids))


def tell_workspaces_changed(schema_names: list[str]) -> None:
    """Tells every web process (this one too) that these workspaces, or their host names, changed:
    what they keep of routes and workspaces is dropped (`tenancy.routing`, `core.workspaces`,
    `access.workspace_hosts`)."""
    with errors.unless_unavailable(
        logger,
        "other web processes may route these hosts as before for up to %s s (Redis: %s)",
        settings.TOLD_CACHE_SECONDS,
    ):
        streams.redis_client().publish(workspaces_channel(), " ".join(schema_names))


class ChangesWatch:
    """The listener of one process. `handlers[kind]` is called, on the event loop, with the
    payload of every message of that kind; what it keeps is trusted by stamp (`stamp(kind)`):
    the subscription's epoch and how many messages of that kind it has received."""

    def __init__(self, handlers: Mapping[str, Callable[[bytes | str], None]]) -> None:
        self._handlers = dict(handlers)
        self._epoch = 0
        self._told = dict.fromkeys(KINDS, 0)
        self._live = False
        self._task: asyncio.Task | None = None
        self._subscribed: asyncio.Event | None = None

    def stamp(self, kind: str = ENDED) -> Stamp:
        """The current stamp of `kind`, or None when nothing may be trusted (from any thread)."""
        return (self._epoch, self._told[kind]) if self._live else None

    def trusts(self, stamp: Stamp, kind: str = ENDED) -> bool:
        return stamp is not None and self._live and stamp == (self._epoch, self._told[kind])

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
            settings.REDIS_URL,
            socket_connect_timeout=2,
            retry=Retry(NoBackoff(), 0),
            client_name=client_name(),
        )
        pubsub = client.pubsub()
        channels = {streams.redis_name(kind): kind for kind in KINDS}
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
                elif kind == "message" and name in channels:
                    told = channels[name]
                    # First the stamp: what a request read before this message is not trusted
                    # past its short while, even if it is kept after the handler ran.
                    self._told[told] += 1
                    handler = self._handlers.get(told)
                    if handler is not None:
                        handler(message["data"])
        finally:
            self._live = False
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            with contextlib.suppress(Exception):
                await client.aclose()
