"""What a web process keeps of the rows every request reads, and for how long.

Every request of the doors reads the same few things: the workspace of its host, the workspace
of a schema, a workspace's host names, its credential, its stored session. Each process keeps
them (`Kept`) for a short while (`short`: what a change made elsewhere may take to be seen when
no one says it happened), and for much longer, TOLD_CACHE_SECONDS, while the process is told of
every change of that kind as it happens (apps.mcp.endings: Redis pub/sub, listened to on the web
process's event loop).

"Told of every change" is decided by the process's listener (`watched_by`), by epoch, as for
sessions: an entry carries the stamp taken *before* it was read from the database; the stamp
changes when the listener subscribes again (messages may have been lost meanwhile) and with every
message of the entry's kind (one may have been told between the read and the keep). An entry is
kept past its short while only under the stamp it was read in. Without a listener (a worker, a
management command, Redis down) nothing is trusted, and the short while is all there is.

What a message cannot tell, an entry must not outlive: `put(..., until=)` bounds it by a wall
time (an access token's expiry).

The longer while of each entry is drawn between (1 - JITTER) and all of TOLD_CACHE_SECONDS, so
that the entries of many workspaces, kept in the same few seconds (a process starting to serve
1,000 workspaces), do not all run out in the same second a minute later: each one that has run
out sends its next request through a thread to be read again, and those are better spread over
a quarter of a minute than queued for the threads at once.
"""

import itertools
import random
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any, Generic, Protocol, TypeVar

from django.conf import settings

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

Stamp = tuple[int, int] | None

# The kinds of change a process is told of (each on its own channel: apps.mcp.endings).
ENDED = "ended"  # MCP sessions ended
REVOKED = "revoked"  # credentials revoked, or people's role or key changed
WORKSPACES = "workspaces"  # workspaces saved or deleted, host names added or removed
KINDS = (ENDED, REVOKED, WORKSPACES)


class Watch(Protocol):
    """The process's listener for changes (apps.mcp.endings.ChangesWatch)."""

    def stamp(self, kind: str) -> Stamp: ...

    def trusts(self, stamp: Stamp, kind: str) -> bool: ...


_watch: Watch | None = None


def watched_by(watch: Watch) -> None:
    """Makes `watch` the listener whose epochs decide how long entries are kept."""
    global _watch
    _watch = watch


def stamp(kind: str) -> Stamp:
    """The stamp to keep what is about to be read under (None: it will not be trusted)."""
    return _watch.stamp(kind) if _watch is not None else None


def trusts(stamp: Stamp, kind: str) -> bool:
    return _watch is not None and _watch.trusts(stamp, kind)


MISSING: Any = object()
# What share of TOLD_CACHE_SECONDS an entry's longer while may be short of it, drawn per entry.
JITTER = 0.25


class Kept(Generic[K, V]):
    """A per-process cache of one kind of change (`kind`: the channel that tells of them). An
    entry lives `short()` seconds, and up to TOLD_CACHE_SECONDS while trusted (see the module).
    Safe from several threads; never more than `limit` entries (a flood of made-up host names
    or credentials must not grow memory): when full, the expired entries go, then the oldest (a
    tenth of the limit at once), never all of them, so a process serving more workspaces than the
    limit keeps the most recent ones."""

    def __init__(self, kind: str, short: Callable[[], float], *, limit: int = 10_000) -> None:
        self.kind = kind
        self._short = short
        self._limit = limit
        # key -> (short until, long until, stamp, value); monotonic times
        self._entries: dict[K, tuple[float, float, Stamp, V]] = {}
        self._lock = threading.Lock()

    def stamp(self) -> Stamp:
        return stamp(self.kind)

    def get(self, key: K, default: Any = MISSING) -> V | Any:
        entry = self._entries.get(key)
        if entry is None:
            return default
        short_until, long_until, entry_stamp, value = entry
        now = time.monotonic()
        if now < short_until:
            return value
        if now < long_until and trusts(entry_stamp, self.kind):
            return value
        with self._lock:
            if self._entries.get(key) is entry:
                del self._entries[key]
        return default

    def put(self, key: K, value: V, stamp: Stamp, *, until: float | None = None) -> None:
        """Keeps `value`, read under `stamp`; never past the wall time `until` (time.time())."""
        now = time.monotonic()
        short = self._short()
        if short <= 0:
            return
        told = float(settings.TOLD_CACHE_SECONDS)
        long_until = now + max(short, told * (1 - JITTER * random.random()))  # noqa: S311 (not a secret)
        if until is not None:
            long_until = min(long_until, now + (until - time.time()))
        with self._lock:
            # Put again, an entry moves to the end: the dict's order is the entries' age.
            self._entries.pop(key, None)
            if len(self._entries) >= self._limit:
                self._make_room(now)
            self._entries[key] = (min(now + short, long_until), long_until, stamp, value)

    def _make_room(self, now: float) -> None:
        """The expired entries dropped, then the oldest down to nine tenths of the limit (under
        the lock)."""
        for key in [key for key, entry in self._entries.items() if entry[1] <= now]:
            del self._entries[key]
        over = len(self._entries) - (self._limit - max(1, self._limit // 10))
        if over > 0:
            for key in list(itertools.islice(self._entries, over)):
                del self._entries[key]

    def forget(self) -> None:
        """Drops every entry."""
        with self._lock:
            self._entries.clear()

    def drop(self, wanted: Callable[[K, V], bool]) -> None:
        """Drops the entries for which `wanted(key, value)` is true."""
        with self._lock:
            for key, entry in list(self._entries.items()):
                if wanted(key, entry[3]):
                    del self._entries[key]

    def items(self) -> list[tuple[K, V]]:
        """What is kept now, expired or not (tests, diagnostics)."""
        return [(key, entry[3]) for key, entry in list(self._entries.items())]

    def __contains__(self, key: K) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)
