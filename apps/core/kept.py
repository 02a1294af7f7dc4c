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
1,000 workspaces), do not all run out, or come due to be read again, in the same second.

An entry in use is read again before it runs out (`get(..., renew=)`): its first use once
RENEW_AFTER of its longer while has passed, still trusted, answers with what is kept and leaves the
reading to the process's background thread (`later`), which keeps what it reads under a new stamp.
A request served on the event loop cannot read the database through the ORM: without this, every
workspace's entries running out sent one of its requests through a worker thread, on a
connection cold for that workspace, and over 1,000 workspaces (entries kept 60 s then) those
requests cut the rate by half or more (bench/RESULTS.md, "Scale-out"). What is kept is still
never older than TOLD_CACHE_SECONDS plus the read's own time. What is read again while a change
of its kind is told is not kept at all (`put`): it may predate the change, and unlike a
request's own read it is not needed at once.
"""

import itertools
import logging
import math
import queue
import random
import threading
import time
from collections.abc import Callable, Hashable
from functools import partial
from typing import Any, Generic, Protocol, TypeVar

from django import db
from django.conf import settings
from django.db.backends.signals import connection_created

logger = logging.getLogger(__name__)

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
# An entry: (short until, long until, renew from, stamp, value); monotonic times.
_Entry = tuple[float, float, float, Stamp, Any]
# What share of TOLD_CACHE_SECONDS an entry's longer while may be short of it, drawn per entry.
JITTER = 0.25
# The share of an entry's longer while after which its next use has it read again (`Kept.get`).
RENEW_AFTER = 0.75


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
        self._entries: dict[K, _Entry] = {}
        self._lock = threading.Lock()

    def stamp(self) -> Stamp:
        return stamp(self.kind)

    def get(self, key: K, default: Any = MISSING, *, renew: Callable[[], object] | None = None) -> V | Any:
        """What is kept of `key`, or `default`. `renew`, when given, reads it again and puts it
        (or drops it): it runs in the background thread (`later`) at the first use past the
        entry's renewal time, while it is still trusted."""
        entry = self._entries.get(key)
        if entry is None:
            return default
        short_until, long_until, renew_from, entry_stamp, value = entry
        now = time.monotonic()
        if now < short_until:
            return value
        if now < long_until and trusts(entry_stamp, self.kind):
            if renew is not None and now >= renew_from:
                self._renew(key, entry, renew)
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
        renew_from = now + (long_until - now) * RENEW_AFTER
        with self._lock:
            # Put again, an entry moves to the end: the dict's order is the entries' age.
            self._entries.pop(key, None)
            if getattr(_renewing, "now", False) and not trusts(stamp, self.kind):
                # Read again in the background while a change of its kind was told: what was read
                # may predate the change, and no request waits for it. (Checked under the lock
                # that the message's own drop takes, after the stamp it changed.)
                return
            if len(self._entries) >= self._limit:
                self._make_room(now)
            self._entries[key] = (min(now + short, long_until), long_until, renew_from, stamp, value)

    def _renew(self, key: K, entry: _Entry, renew: Callable[[], object]) -> None:
        """Has `renew` run in the background, once for this entry: the entry is marked so that
        later uses do not ask again (the put of what is read replaces it)."""
        with self._lock:
            if self._entries.get(key) is not entry:
                return
            self._entries[key] = (*entry[:2], math.inf, *entry[3:])
        later(partial(_renewal, renew))

    def _make_room(self, now: float) -> None:
        """The expired entries dropped, then the oldest down to nine tenths of the limit (under
        the lock)."""
        for key in [key for key, entry in self._entries.items() if entry[1] <= now]:
            del self._entries[key]
        over = len(self._entries) - (self._limit - max(1, self._limit // 10))
        if over > 0:
            for key in list(itertools.islice(self._entries, over)):
                del self._entries[key]

    def discard(self, key: K) -> None:
        """Drops the entry of `key`, if any."""
        with self._lock:
            self._entries.pop(key, None)

    def forget(self) -> None:
        """Drops every entry."""
        with self._lock:
            self._entries.clear()

    def drop(self, wanted: Callable[[K, V], bool]) -> None:
        """Drops the entries for which `wanted(key, value)` is true."""
        with self._lock:
            for key, entry in list(self._entries.items()):
                if wanted(key, entry[4]):
                    del self._entries[key]

    def items(self) -> list[tuple[K, V]]:
        """What is kept now, expired or not (tests, diagnostics)."""
        return [(key, entry[4]) for key, entry in list(self._entries.items())]

    def __contains__(self, key: K) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)


# Set on the background thread while it reads an entry again (`Kept.put` keeps it only trusted).
_renewing = threading.local()


def _renewal(renew: Callable[[], object]) -> None:
    _renewing.now = True
    try:
        renew()
    finally:
        _renewing.now = False


class _Later:
    """One daemon thread of the process, started at its first job, doing in order what requests
    leave for later (`later`): reading again a kept entry about to run out, writing a session's
    last use. A job that fails is logged and changes nothing else (the entry runs out as it
    would have). Past LATER_LIMIT jobs waiting, more are dropped: the entries they were for run
    out, and their next requests read them as before.

    The thread keeps its database connections past CONN_MAX_AGE, with no health check between
    jobs: it reads a few rows of every workspace the process serves, and a new connection is a
    backend that has every one of those workspaces' tables to look up again in PostgreSQL's
    catalogue (over 1,000 workspaces, a connection opened again each minute cost PostgreSQL more
    than the reads: bench/RESULTS.md, "Scale-out"). After a job fails, only a connection that no
    longer answers is closed (the next job opens it again).

    Every job waits behind the one before, so none may wait long: the thread's connections give
    up a lock after LATER_LOCK_TIMEOUT_MS (a session's touch while its workspace is frozen for a
    move between servers) and a statement after LATER_STATEMENT_TIMEOUT_MS."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], object]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._waiting = 0  # jobs put and not yet done
        self._thread: threading.Thread | None = None

    @property
    def thread(self) -> threading.Thread | None:
        return self._thread

    def put(self, job: Callable[[], object]) -> bool:
        with self._lock:
            if self._waiting >= LATER_LIMIT:
                return False
            self._waiting += 1
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="atrium-later", daemon=True)
                self._thread.start()
        self._jobs.put(job)
        return True

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is _stop:
                db.connections.close_all()
                with self._idle:
                    self._thread = None
                    self._waiting -= 1
                    self._idle.notify_all()
                return
            try:
                job()
            except Exception:
                # What it was for runs out as it would have; a connection that failed is opened
                # again by the next job, and the others are kept warm.
                logger.warning("A job left for later failed", exc_info=True)
                _close_the_broken()
            finally:
                with self._idle:
                    self._waiting -= 1
                    if not self._waiting:
                        self._idle.notify_all()

    def done(self, timeout: float = 10.0) -> bool:
        """Waits until no job is waiting (tests); False when `timeout` ran out first."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._waiting, timeout)

    def stop(self, timeout: float = 10.0) -> bool:
        """Ends the thread once the jobs before are done, with its database connections closed
        (a test run dropping its database); a later job starts another."""
        with self._lock:
            if self._thread is None:
                return True
            self._waiting += 1
        self._jobs.put(_stop)
        return self.done(timeout)


def _stop() -> None:
    """The job that ends the background thread (`_Later.stop`)."""


def _close_the_broken() -> None:
    for connection in db.connections.all(initialized_only=True):
        if connection.connection is not None and not connection.is_usable():
            connection.close()


def _bound_the_waits(sender: object, connection: Any, **kwargs: Any) -> None:
    """A connection opened by the background thread gives up a lock or a statement soon
    (`_Later`); those of requests and tasks keep the server's settings."""
    if threading.current_thread() is not _later.thread:
        return
    with connection.connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('lock_timeout', %s, false), set_config('statement_timeout', %s, false)",
            [f"{LATER_LOCK_TIMEOUT_MS}ms", f"{LATER_STATEMENT_TIMEOUT_MS}ms"],
        )


# How many jobs may wait for the background thread before more are dropped.
LATER_LIMIT = 10_000
# How long a statement of the background thread may wait for a lock, and run, before it fails.
LATER_LOCK_TIMEOUT_MS = 1_000
LATER_STATEMENT_TIMEOUT_MS = 5_000
_later = _Later()
connection_created.connect(_bound_the_waits, dispatch_uid="atrium-later")


def later(job: Callable[[], object]) -> bool:
    """Runs `job` in the process's background thread, after those put before it (see `_Later`);
    False when it was dropped. For what a request served on the event loop must not wait for."""
    return _later.put(job)


def later_done(timeout: float = 10.0) -> bool:
    """Whether every job left for later is done, waiting up to `timeout` (tests)."""
    return _later.done(timeout)


def later_stop(timeout: float = 10.0) -> bool:
    """Ends the background thread after its jobs, its database connections closed (tests)."""
    return _later.stop(timeout)
