"""Synchronous code run on the event loop, for the reads that cost less than a thread hop.

The MCP door is synchronous (`apps.mcp.handlers.serve`) and runs in a worker thread per request.
For a one-statement read that hop costs more than the read: the request crosses threads twice and
the worker hands the interpreter lock back and forth with the loop around its blocking round trip
to the database (bench/RESULTS.md, "MCP endpoint"). Here the same synchronous code runs on the
event loop itself, in a greenlet (`run`), and where it waits for PostgreSQL (a prepared query,
`apps.core.prepared`; the tool-call log written at once, `apps.catalogue.audit`) it awaits an
async psycopg connection instead (`fetch`, `copy`): the loop serves other requests meanwhile, as an
async server does, and nothing of the door is written twice.

Nothing may block the loop, so whatever would block gives up instead, before it has done anything:

- Django's ORM and cursors: their async-safety check raises SynchronousOnlyOperation on a thread
  running an event loop (a route, a credential or a session not in its process cache yet, a lazy
  relation a tool reads).
- Redis (`apps.core.shared_redis`) and anything else that calls `forbid`.

`run` then raises `NeedsThread` and the caller serves the request from the start in a worker
thread, as it always did. Code on this path lets both exceptions through (`ABORTS`): a handler
that turned one into an answer would answer for a request it has not served.

Only code written for it runs here (`apps.mcp.handlers.may_serve_on_loop`: ping, tools/list and
the tools declared `on_loop=True`, CONVENTIONS.md). With DJANGO_ALLOW_ASYNC_UNSAFE set, Django's
check is off and nothing would stop a blocking query: nothing runs here then.
"""

import asyncio
import contextvars
import logging
import os
import sys
import weakref
import zlib
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import greenlet  # type: ignore[import-untyped]  # it ships no type information
import psycopg
from django.conf import settings
from django.core.exceptions import SynchronousOnlyOperation
from django.db import DEFAULT_DB_ALIAS, connections
from psycopg import sql
from psycopg.types.datetime import TimestamptzLoader

logger = logging.getLogger(__name__)

T = TypeVar("T")


class NeedsThread(Exception):
    """This request cannot be served on the loop without blocking it: serve it in a thread."""


# What code on this path must let through (see the module's notes).
ABORTS: tuple[type[Exception], ...] = (NeedsThread, SynchronousOnlyOperation)


class _LoopGreenlet(greenlet.greenlet):
    """A greenlet whose parent is the coroutine awaiting what it hands over (`wait`), with the
    database connection objects of the request it serves (`_Connections`)."""

    connections: dict[str, Any]


def available() -> bool:
    """Whether synchronous code may run on the loop in this process (settings.SERVE_ON_LOOP, and
    Django's async-safety check left on)."""
    return settings.SERVE_ON_LOOP and not os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")


def active() -> bool:
    """Whether this code runs on the loop, through `run`."""
    return isinstance(greenlet.getcurrent(), _LoopGreenlet)


def forbid(what: str) -> None:
    """Called before anything that would block: on the loop, give up (NeedsThread) instead."""
    if active():
        raise NeedsThread(what)


async def run(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` on this event loop, in a greenlet with a copy of the current context and
    a database connection object of its own (`_Connections`); what it hands to `wait` is awaited
    here. Raises NeedsThread when it gave up (see the module)."""
    _Connections.install()
    child = _LoopGreenlet(function)
    child.gr_context = contextvars.copy_context()
    # Django keeps its connection objects per thread, and every greenlet here runs on the loop's:
    # each has its own (it never connects; it holds the workspace the request activated).
    own = _wrappers.pop() if _wrappers else connections.create_connection(DEFAULT_DB_ALIAS)
    child.connections = {DEFAULT_DB_ALIAS: own}
    try:
        handed = child.switch(*args)
        while not child.dead:
            try:
                value = await handed
            except BaseException:
                handed = child.throw(*sys.exc_info())
            else:
                handed = child.switch(value)
    except SynchronousOnlyOperation as error:
        raise NeedsThread(str(error)) from error
    # Served: used again by a later request (it keeps its workspace, so one of the same workspace
    # skips switching). One whose request failed is dropped, whatever state it was left in.
    if len(_wrappers) < _WRAPPERS_KEPT and child.connections.get(DEFAULT_DB_ALIAS) is own:
        _wrappers.append(own)
    return handed


# Connection objects of requests served on the loop, for the next ones (`run`).
_wrappers: list[Any] = []
_WRAPPERS_KEPT = 64


class _Connections:
    """Django's store of connection objects (`connections._connections`, asgiref's Local: per
    thread, and per context on a thread running an event loop), with each greenlet of `run`
    holding its own (its `connections` dict), as gevent's greenlet-local storage does for a whole
    process. Everything else is asked of Django's store, unchanged.

    On the loop a look-up of Django's store costs a context variable, a thread-id check and an
    object per write: about 1.5 µs, tens of times per request (bench/RESULTS.md); this one is a
    dict look-up."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Any) -> None:
        object.__setattr__(self, "_inner", inner)

    @classmethod
    def install(cls) -> None:
        if not isinstance(connections._connections, cls):  # type: ignore[attr-defined]
            connections._connections = cls(connections._connections)  # type: ignore[attr-defined]

    def __getattr__(self, alias: str) -> Any:
        current = greenlet.getcurrent()
        if type(current) is _LoopGreenlet:
            try:
                return current.connections[alias]
            except KeyError:
                raise AttributeError(alias) from None
        return getattr(self._inner, alias)

    def __setattr__(self, alias: str, value: Any) -> None:
        current = greenlet.getcurrent()
        if type(current) is _LoopGreenlet:
            current.connections[alias] = value
        else:
            setattr(self._inner, alias, value)

    def __delattr__(self, alias: str) -> None:
        current = greenlet.getcurrent()
        if type(current) is _LoopGreenlet:
            try:
                del current.connections[alias]
            except KeyError:
                raise AttributeError(alias) from None
        else:
            delattr(self._inner, alias)


def wait(awaitable: Awaitable[T]) -> T:
    """Awaits `awaitable` on the loop from the synchronous code `run` runs."""
    current = greenlet.getcurrent()
    if not isinstance(current, _LoopGreenlet):
        raise RuntimeError("onloop.wait outside onloop.run")
    return current.parent.switch(awaitable)


class Tally:
    """How often each kind of request was served on the loop and how often it gave up there: one
    that mostly gives up (a tool whose answers mostly read a lazy relation) stops being tried,
    since it then costs its Python twice. Stopped, it is still tried once in `PROBE` requests: a
    burst of cold requests (each giving up because nothing was kept yet) must not turn the loop
    off for the life of the process, and a probe served there counts it back.

    A kind's first give-up at a host (`where`), or its first since it was last served there, is
    not counted: that is the process's caches warming for that workspace (its route, credential or
    session not kept yet, or expired), which the thread that serves it fills. Counted, a process
    that starts serving 1,000 workspaces at once would turn the loop off for every workspace after
    the first GRACE of them, until probes brought it back. A kind that gives up by its nature gives
    up again at the same host, and that counts."""

    GRACE = 16
    PROBE = 64
    # The (kind, host) pairs remembered as having given up once, at the most (the oldest go).
    REMEMBERED = 20_000

    def __init__(self) -> None:
        self.served: dict[str, int] = {}
        self.gave_up: dict[str, int] = {}
        self.skipped: dict[str, int] = {}
        self._warming: dict[tuple[str, str], None] = {}

    def worth(self, what: str) -> bool:
        if self.gave_up.get(what, 0) <= 4 * self.served.get(what, 0) + self.GRACE:
            return True
        skipped = self.skipped.get(what, 0) + 1
        self.skipped[what] = 0 if skipped >= self.PROBE else skipped
        return skipped >= self.PROBE

    def count(self, what: str, *, served: bool, where: str = "") -> None:
        if where:
            key = (what, where)
            if served:
                self._warming.pop(key, None)
            elif key not in self._warming:
                if len(self._warming) >= self.REMEMBERED:
                    del self._warming[next(iter(self._warming))]
                self._warming[key] = None
                return
        counts = self.served if served else self.gave_up
        counts[what] = counts.get(what, 0) + 1


tally = Tally()


# --- PostgreSQL ---------------------------------------------------------------------------------


def fetch(
    statement: str, params: Sequence[Any], search_path: Sequence[str], workspace: str = ""
) -> list[tuple[Any, ...]]:
    """The rows of one statement (numbered placeholders: $1, ...; bound on the server, as
    `apps.core.prepared` binds it), run with
    `search_path` on one of this loop's connections: the lane of `workspace` (its schema) when it
    is free (`_Pool`)."""
    try:
        return wait(_fetch(statement, params, tuple(search_path), _server(), workspace))
    except psycopg.Error as error:
        # Whatever it is (a statement refused, the server gone), the thread's path answers it as
        # it answers every database error: the same words, the same status.
        raise NeedsThread(f"the statement failed on the loop: {type(error).__name__}") from error


def copy(statement: sql.SQL | sql.Composed, rows: Sequence[Sequence[Any]]) -> None:
    """One COPY ... FROM STDIN of `rows` on one of this loop's connections."""
    try:
        wait(_copy(statement, rows, _server()))
    except psycopg.Error as error:
        raise NeedsThread(f"the COPY failed on the loop: {type(error).__name__}") from error


def _server() -> str:
    """The database server (apps.core.servers) the default connection is on: the loop's connection
    used must be one of that server's."""
    return str(getattr(connections["default"], "server", DEFAULT_DB_ALIAS))


async def _fetch(
    statement: str,
    params: Sequence[Any],
    search_path: tuple[str, ...],
    server: str = DEFAULT_DB_ALIAS,
    workspace: str = "",
) -> list[tuple[Any, ...]]:
    pool = _pool()
    pooled = await pool.take(search_path, server, workspace)
    try:
        await pooled.cursor.execute(statement, params)
        rows = await pooled.cursor.fetchall()
    except BaseException:
        await pool.discard(pooled)
        raise
    pool.give_back(pooled)
    return rows


async def _copy(
    statement: sql.SQL | sql.Composed, rows: Sequence[Sequence[Any]], server: str = DEFAULT_DB_ALIAS
) -> None:
    pool = _pool()
    pooled = await pool.take((), server)
    try:
        async with pooled.conn.cursor() as cursor, cursor.copy(statement) as copying:
            for row in rows:
                await copying.write_row(row)
    except BaseException:
        await pool.discard(pooled)
        raise
    pool.give_back(pooled)


class _Pooled:
    """One of a loop's connections, with the cursor its statements run on, the search path it
    was last set to, the database server it is connected to and its lane (`_Pool`)."""

    __slots__ = ("conn", "cursor", "lane", "search_path", "server")

    def __init__(self, conn: psycopg.AsyncConnection, server: str, lane: int) -> None:
        self.conn = conn
        # Raw: its statements come with PostgreSQL's numbered placeholders and are sent as they
        # are, never parsed for psycopg's (apps.core.prepared).
        self.cursor = psycopg.AsyncRawCursor(conn)
        self.search_path: tuple[str, ...] = ()
        self.server = server
        self.lane = lane


def lane_of(workspace: str, lanes: int) -> int:
    """The lane (`_Pool`) of a workspace's statements: the same in every process and every run
    (CRC-32 of the schema's name, not Python's salted hash), spread evenly over `lanes`."""
    return zlib.crc32(workspace.encode()) % lanes


class _Pool:
    """At most settings.SERVE_ON_LOOP_CONNECTIONS connections of one event loop, in autocommit
    (as the door's reads run: no BEGIN, each statement its own snapshot), opened as Django opens its
    own (the same parameters, type adapters and time zone). A connection is set to a workspace's
    search path only when it had another one. One that failed in any way is closed, not reused.

    Each connection is a lane, and each workspace has one (`lane_of` its schema): a workspace's
    statements run on its lane's connection only, waiting for it when it is busy, so each
    PostgreSQL backend sees 1/lanes of the workspaces. It keeps their tables in its catalogue
    caches and their statements prepared (psycopg prepares a statement after `prepare_threshold`
    runs on one connection, and keeps `SERVE_ON_LOOP_PREPARED_MAX` of them), where a pool handing
    out any free connection had each backend see every workspace: past ~1,000 workspaces nothing
    stayed prepared, and each backend held every workspace's catalogue entries (~650 kB a
    workspace with getContact's plan, measured: bench/RESULTS.md, "Scale-out"). A statement
    lent to another lane's connection when its own was busy (a *stray*, as lanes first were)
    spread every workspace over every backend again within minutes of rotating, so a lane is
    lent only to its own workspace: a statement whose lane is busy with another workspace's
    waits for it (a fraction of a millisecond), and one whose lane is busy with a statement of
    the same workspace takes an idle lane if there is one (no statement on it or waiting for it),
    so that a workspace alone with many calls at once still has the whole pool. What belongs to no
    workspace (the call log's COPY) takes any free connection.

    `take` and `give_back` rather than a context manager and a semaphore: they are on every
    request's path, and a free connection is a list look-up (bench/RESULTS.md)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._opened = 0  # idle or in use
        self._slots: list[_Pooled | None] = [None] * size  # by lane: its connection, when opened
        self._busy = [False] * size
        self._free = size  # lanes not busy
        self._waiting: deque[asyncio.Future[None]] = deque()  # for any lane
        self._lane_waiting: list[deque[asyncio.Future[None]]] = [deque() for _ in range(size)]
        self._holders = [""] * size  # by lane: the workspace of the statement holding it

    def _free_lane(self, *, idle: bool = False) -> int:
        """A free lane, one whose connection is open before a closed one (a statement of no
        workspace then opens nothing); `idle`: one no statement waits for either. -1: none."""
        closed = -1
        for lane, pooled in enumerate(self._slots):
            if not self._busy[lane] and not (idle and self._lane_waiting[lane]):
                if pooled is not None:
                    return lane
                if closed < 0:
                    closed = lane
        return closed

    async def _wait(self, lane: int = -1) -> None:
        """Waits in lane `lane`'s line (-1: the line for any lane) until `_wake` says to look again."""
        line = self._lane_waiting[lane] if lane >= 0 else self._waiting
        waiter = asyncio.get_running_loop().create_future()
        line.append(waiter)
        try:
            await waiter
        except BaseException:
            if waiter in line:
                line.remove(waiter)
            elif waiter.done() and not waiter.cancelled():
                self._wake(lane)  # woken, then cancelled: the next one's turn
            raise

    async def take(
        self, search_path: tuple[str, ...], server: str = DEFAULT_DB_ALIAS, workspace: str = ""
    ) -> _Pooled:
        if workspace and settings.SERVE_ON_LOOP_LANES:
            home = lane_of(workspace, self._size)
            while True:
                if not self._busy[home]:
                    lane = home
                    break
                if self._holders[home] != workspace:
                    await self._wait(home)
                    continue
                # Busy with this workspace's own statement: one busy workspace takes idle lanes,
                # and waits for whichever frees first.
                lane = self._free_lane(idle=True)
                if lane >= 0:
                    break
                await self._wait()
        else:
            while not self._free:
                await self._wait()
            lane = self._free_lane()
        self._busy[lane] = True
        self._holders[lane] = workspace
        self._free -= 1
        pooled = self._slots[lane]
        if pooled is not None and (pooled.server != server or pooled.conn.closed or pooled.conn.broken):
            # Another database server's (apps.core.servers; never with one server), or gone: closed,
            # and one of `server` opened in its place.
            self._slots[lane] = None
            self._opened -= 1
            await _close(pooled.conn)
            pooled = None
        if pooled is None:
            self._opened += 1
            try:
                pooled = _Pooled(await _connect(server), server, lane)
            except BaseException:
                self._lost(lane)
                raise
            self._slots[lane] = pooled
        if search_path and pooled.search_path != search_path:
            try:
                names = sql.SQL(", ").join(sql.Identifier(name) for name in search_path)
                await pooled.conn.execute(sql.SQL("SET search_path = {}").format(names))
            except BaseException:
                await self.discard(pooled)
                raise
            pooled.search_path = search_path
        return pooled

    def give_back(self, pooled: _Pooled) -> None:
        self._busy[pooled.lane] = False
        self._free += 1
        self._wake(pooled.lane)

    async def discard(self, pooled: _Pooled) -> None:
        if self._slots[pooled.lane] is pooled:
            self._slots[pooled.lane] = None
        self._lost(pooled.lane)
        await _close(pooled.conn)

    def _lost(self, lane: int) -> None:
        self._opened -= 1
        self._busy[lane] = False
        self._free += 1
        self._wake(lane)

    def _wake(self, lane: int) -> None:
        """Lane `lane` is free: the first statement waiting for it, and the first waiting for any
        lane (which looks again, and waits again if the other took it: a statement of no
        workspace is never held back for as long as every lane has a queue of its own)."""
        for line in (self._lane_waiting[lane], self._waiting) if lane >= 0 else (self._waiting,):
            while line:
                waiter = line.popleft()
                if not waiter.done():
                    waiter.set_result(None)
                    break

    async def close(self) -> None:
        for lane, pooled in enumerate(self._slots):
            if pooled is not None and not self._busy[lane]:
                self._slots[lane] = None
                self._opened -= 1
                await _close(pooled.conn)


async def _connect(server: str = DEFAULT_DB_ALIAS) -> psycopg.AsyncConnection:
    wrapper = connections["default"]
    if getattr(wrapper, "server", DEFAULT_DB_ALIAS) != server:
        # The loop's own wrapper is on another database server (apps.core.servers): that server's
        # parameters, as a wrapper on it would give them.
        from apps.core import servers

        tenant_wrapper: Any = wrapper  # the backend's, with its servers
        on = dict(servers.settings_for(server, tenant_wrapper.primary_settings()))
        wrapper = type(wrapper)(on, DEFAULT_DB_ALIAS)
    params = dict(wrapper.get_connection_params())
    params.pop("cursor_factory", None)  # Django's synchronous cursor classes
    conn = await psycopg.AsyncConnection.connect(**params, autocommit=True)
    # Its lane's workspaces' statements prepared, not only the last ~100 (psycopg's default): each
    # workspace's statement is its own text, its schema written in (apps.core.prepared).
    conn.prepared_max = settings.SERVE_ON_LOOP_PREPARED_MAX
    zone = wrapper.timezone_name
    if conn.info.parameter_status("TimeZone") != zone:
        await conn.execute("SELECT set_config('TimeZone', %s, false)", [zone])
    if settings.USE_TZ:
        # Django's timestamptz loader is a Python subclass of psycopg's that puts Django's zone on
        # each value; psycopg's own (its C build, psycopg-binary) gives the same aware datetimes
        # in the connection's zone, set to Django's above, at a fraction of the cost (~5 % of a
        # getContact call: bench/RESULTS.md).
        conn.adapters.register_loader("timestamptz", TimestamptzLoader)
    return conn


async def _close(conn: psycopg.AsyncConnection) -> None:
    try:
        await conn.close()
    except Exception:  # already gone: nothing to release
        logger.debug("closing a loop connection failed", exc_info=True)


_pools: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Pool]" = weakref.WeakKeyDictionary()
# The last loop asked and its pool: a web process has one loop.
_last: tuple[Any, _Pool | None] = (None, None)


def _pool() -> _Pool:
    global _last
    loop = asyncio.get_running_loop()
    last_loop, pool = _last
    if last_loop is loop and pool is not None:
        return pool
    pool = _pools.get(loop)
    if pool is None:
        pool = _pools[loop] = _Pool(settings.SERVE_ON_LOOP_CONNECTIONS)
    _last = (loop, pool)
    return pool


async def close() -> None:
    """Closes this loop's idle connections (a process stopping, a test ending)."""
    global _last
    loop = asyncio.get_running_loop()
    pool = _pools.pop(loop, None)
    if _last[0] is loop:
        _last = (None, None)
    if pool is not None:
        await pool.close()
