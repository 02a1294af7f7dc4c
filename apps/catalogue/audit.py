"""Recording tool calls without paying a row insert per call.

`record()` appends an entry to a per-process buffer; a daemon thread writes the buffer every
`ATRIUM_AUDIT_FLUSH_SECONDS` (or sooner once `ATRIUM_AUDIT_BATCH_SIZE` entries wait): one
statement for the whole batch when it spans several workspaces (below), one `COPY` when it is one
workspace's, on its own database connection, kept between batches (CONN_MAX_AGE) and closed when it stops.

Entries spread thin (fewer than two a workspace, over `SPREAD_WORKSPACES` or more, as when calls
rotate over many workspaces) wait longer: each workspace in a batch costs PostgreSQL about as
much as a hundred rows of one workspace (its table opened, locked and planned: bench/audit.py).
The writer then waits until they are no longer thin, `SPREAD_FACTOR` times the batch size wait,
or the oldest has waited `ATRIUM_AUDIT_SPREAD_SECONDS` (5 s by default), whichever comes first
(`AuditBuffer.thin`).
With `ATRIUM_AUDIT_FLUSH_SECONDS = 0` (the tests' default) each entry is written at once, the
same way, on the caller's connection, inside the caller's transaction.

Why COPY: a batch of 500 rows cost 17-23 ms of this process's CPU through `bulk_create` (the
model's per-row, per-field work), 3-4 ms through COPY, 7-11 ms through one INSERT ... SELECT FROM
unnest() with an array per column (in-process, timeit, four runs on a busy 2-core machine).
A batch over many workspaces is one statement, not a COPY each: every COPY costs a round trip and
~0.3 ms of this process, so a second of calls spread over 200 workspaces cost 200 COPYs
(bench/RESULTS.md, "Scale-out"). The rows go in as one array per column, unnested once and
inserted into each workspace's table by a data-modifying CTE of its own. If that statement fails
(a workspace's rows refused, a schema dropped), each workspace is written on its own to find
which.

The columns are those `_fields` fills, mapped to the model's columns; a column it does not fill
gets its database default (only the id may be left out: apps/catalogue/tests/test_audit.py).

What a crash can lose: the entries of the last interval (one second by default; up to
`ATRIUM_AUDIT_SPREAD_SECONDS` of entries spread thin). A process that
exits normally writes what is left (atexit). If the database is unreachable, entries are kept up
to `MAX_PENDING` and the oldest are dropped beyond that, with a warning in the log. A workspace
whose rows are refused keeps its entries without holding back the others' (they are written
once); the entries of a workspace deleted in between are dropped, with a warning.
"""

import atexit
import logging
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from functools import cache, lru_cache

import psycopg
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field
from django.utils import timezone
from psycopg import sql

from apps.core import onloop, servers

logger = logging.getLogger(__name__)

MAX_PENDING = 50_000
# Entries spread thin wait until this many times ATRIUM_AUDIT_BATCH_SIZE do, at the most; and only
# when they are of this many workspaces at least (a few workspaces' statement costs little).
SPREAD_FACTOR = 10
SPREAD_WORKSPACES = 50
# The workspaces one statement writes into (each holds locks on its table and its indexes to the
# end of the transaction: PostgreSQL's lock table is max_locks_per_transaction a connection).
WORKSPACES_A_STATEMENT = 250


@dataclass(frozen=True, slots=True)
class Entry:
    schema_name: str
    at: datetime
    user_id: int | None
    scheme: str
    credential: str
    client: str
    tool: str
    outcome: str
    error_code: str
    duration_ms: float
    refusal: str = ""
    api_key_id: int | None = None


class AuditBuffer:
    def __init__(self) -> None:
        self._pending: list[Entry] = []
        # How many of the pending entries each workspace has, and when the oldest came (monotonic).
        self._schemas: dict[str, int] = {}
        self._since = 0.0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._flush_lock = threading.Lock()
        self._closed = threading.Event()

    @property
    def interval(self) -> float:
        return float(getattr(settings, "ATRIUM_AUDIT_FLUSH_SECONDS", 1.0))

    @property
    def batch_size(self) -> int:
        return int(getattr(settings, "ATRIUM_AUDIT_BATCH_SIZE", 500))

    @property
    def spread_seconds(self) -> float:
        return float(getattr(settings, "ATRIUM_AUDIT_SPREAD_SECONDS", 5.0))

    def record(self, entry: Entry) -> None:
        if self.interval <= 0:
            self._write_inline(entry)
            return
        with self._lock:
            if not self._pending:
                self._since = time.monotonic()
            self._pending.append(entry)
            self._schemas[entry.schema_name] = self._schemas.get(entry.schema_name, 0) + 1
            if len(self._pending) > MAX_PENDING:
                dropped = len(self._pending) - MAX_PENDING
                del self._pending[:dropped]
                self._counted()
                logger.warning("audit buffer full: %d tool-call records dropped", dropped)
            waiting = len(self._pending)
            # The writer is woken as the batch fills, and again when thin entries have waited for
            # as many as they may (not at every entry in between: it would only wait again).
            full = waiting == self.batch_size or waiting >= self.batch_size * SPREAD_FACTOR
        if self._thread is None or not self._thread.is_alive():
            self._start()
        if full:
            self._wake.set()

    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    def flush(self) -> int:
        """Writes every waiting entry now, on this thread's connection. Returns how many."""
        with self._flush_lock:
            with self._lock:
                batch, self._pending = self._pending, []
                self._schemas = {}
            if not batch:
                return 0
            written, kept, error = _write(batch)
            if kept:
                with self._lock:
                    # Put them back in front, to try again with the next batch.
                    self._pending[:0] = kept
                    self._since = time.monotonic()
                    self._counted()
            if error is not None:
                raise error
            return written

    def _counted(self) -> None:
        """The pending entries counted by workspace again (under the lock)."""
        self._schemas = {}
        for entry in self._pending:
            self._schemas[entry.schema_name] = self._schemas.get(entry.schema_name, 0) + 1

    def thin(self) -> bool:
        """Whether the pending entries are spread thin enough, and young enough, to wait for more."""
        with self._lock:
            waiting = len(self._pending)
            return (
                self.interval > 0
                and 0 < waiting < self.batch_size * SPREAD_FACTOR
                and len(self._schemas) >= SPREAD_WORKSPACES
                and 2 * len(self._schemas) > waiting
                and time.monotonic() - self._since < self.spread_seconds
            )

    def _write_inline(self, entry: Entry) -> None:
        try:
            if onloop.active():
                # On the event loop (apps.core.onloop), outside any transaction: awaited.
                onloop.copy(*_copy_of(entry.schema_name, [entry]))
                return
            # As a failed ORM write would: the caller's transaction is rolled back at its end.
            with transaction.mark_for_rollback_on_error():
                _copy(connection, entry.schema_name, [entry])
        except onloop.ABORTS:
            raise
        except Exception:
            # An audit failure never turns a tool's answer into an error.
            logger.exception("could not record a call of %s", entry.tool)

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._closed.clear()
            self._thread = threading.Thread(target=self._run, name="atrium-audit", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Writes what waits and stops the writer thread (a later `record` starts it again)."""
        self._closed.set()
        self._wake.set()
        thread = self._thread
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        while True:
            interval = self.interval
            if interval > 0 and not self._closed.is_set():
                self._wake.wait(interval)
                self._wake.clear()
                while not self._closed.is_set() and self.thin():
                    self._wake.wait(interval)
                    self._wake.clear()
            try:
                self.flush()
            except Exception:
                logger.exception("could not write the tool-call log; will retry")
            finally:
                # The connection is kept between batches (as long as CONN_MAX_AGE allows): a new one
                # would look up every workspace's table in PostgreSQL's catalogue again, which for
                # a batch over 200 workspaces cost PostgreSQL more than the calls themselves.
                for db in connections.all(initialized_only=True):
                    db.close_if_unusable_or_obsolete()
            # Closed, or entries are now written as they come (the setting changed under a running
            # process, as tests do): a thread left waiting 0 s would spin and starve the process.
            if self._closed.is_set() or self.interval <= 0:
                connections.close_all()  # nothing held once stopped (tests drop their database)
                return


def _fields(entry: Entry) -> dict[str, object]:
    return {
        "at": entry.at,
        "user_id": entry.user_id,
        "scheme": _text(entry.scheme, 20),
        "credential": _text(entry.credential, 64),
        "client": _text(entry.client, 200),
        "tool": _text(entry.tool, 100),
        "outcome": entry.outcome,
        "error_code": _text(entry.error_code, 64),
        "duration_ms": round(entry.duration_ms, 3),
        "refusal": _text(entry.refusal, 24),
        "api_key_id": entry.api_key_id,
    }


def _text(value: str, length: int) -> str:
    # PostgreSQL refuses NUL in text, and a tool's name comes from the client: one NUL would
    # make its workspace's batch fail again and again.
    if "\x00" in value:
        value = value.replace("\x00", "\ufffd")
    return value[:length]


def _write(batch: list[Entry]) -> tuple[int, list[Entry], Exception | None]:
    """Writes `batch` (`_write_here`), each workspace's entries on its database server
    (apps.core.servers: with one server, all here)."""
    if not servers.configured():
        return _write_here(batch)
    by_server: dict[str, list[Entry]] = defaultdict(list)
    for entry in batch:
        by_server[servers.placement(entry.schema_name)[0]].append(entry)
    if list(by_server) == [servers.current()]:
        return _write_here(batch)
    written, kept, first_error = 0, [], None
    for key, entries in by_server.items():
        try:
            with servers.pinned(key):
                done, again, error = _write_here(entries)
        except Exception as failure:  # the server out of reach, or a transaction open here
            done, again, error = 0, entries, failure
        written += done
        kept.extend(again)
        first_error = first_error or error
    return written, kept, first_error


def _write_here(batch: list[Entry]) -> tuple[int, list[Entry], Exception | None]:
    """Writes `batch` on the default connection's server, one COPY per workspace schema. Returns
    how many entries were written, the entries to try again, and the first error. A workspace
    whose rows are refused does not hold back the others; once the database is out of reach, the
    rest is kept without trying. The entries of a schema that no longer exists (a deleted
    workspace) are dropped."""
    by_schema: dict[str, list[Entry]] = defaultdict(list)
    for entry in batch:
        by_schema[entry.schema_name].append(entry)
    if len(by_schema) > 1 and not connection.in_atomic_block:
        # Outside a transaction: a failed statement leaves nothing to roll back.
        try:
            _insert_all(connection, by_schema)
        except (OperationalError, InterfaceError) as error:
            return 0, batch, error
        except Exception:
            logger.debug(
                "one statement for %d workspaces failed; each on its own", len(by_schema), exc_info=True
            )
        else:
            return len(batch), [], None
    written, kept, first_error, out_of_reach = 0, [], None, False
    for schema_name, entries in by_schema.items():
        if out_of_reach:
            kept.extend(entries)
            continue
        try:
            _copy(connection, schema_name, entries)
        except Exception as error:
            if getattr(error.__cause__, "sqlstate", None) == "3F000":  # invalid_schema_name
                logger.warning(
                    "workspace schema %s no longer exists: %d tool-call records dropped",
                    schema_name,
                    len(entries),
                )
                continue
            kept.extend(entries)
            first_error = first_error or error
            out_of_reach = isinstance(error, OperationalError | InterfaceError)
        else:
            written += len(entries)
    return written, kept, first_error


def _copy(db: BaseDatabaseWrapper, schema_name: str, entries: list[Entry]) -> None:
    """One COPY of `entries` into the ToolCall table of `schema_name`, on `db`'s connection (in its
    transaction if one is open). The table is named with its schema: whatever search_path the
    connection has, the rows land in that workspace."""
    statement, rows = _copy_of(schema_name, entries)
    with db.cursor() as cursor, db.wrap_database_errors, cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)


def _insert_all(db: BaseDatabaseWrapper, by_schema: dict[str, list[Entry]]) -> None:
    """Every entry of `by_schema` (a batch's, by workspace) into its workspace's ToolCall table:
    one statement for up to `WORKSPACES_A_STATEMENT` workspaces (each INSERT holds locks on its
    table and indexes until the end), all in one transaction. The rows go in as one array a
    column, unnested once; each workspace's INSERT takes its own rows by number. The text is
    written with PostgreSQL's numbered placeholders and sent as it is (a raw cursor: psycopg would
    otherwise parse each batch's long text again), each workspace's table named once per process
    (`_target`), its columns as COPY names them (`_plain_columns`).

    bench/audit.py measured what a statement over many workspaces costs: PostgreSQL's part is
    about 150 µs a workspace whatever its rows (its table opened, locked and planned), which a
    shape slicing the arrays for each workspace did not lower (it doubled it); the way down is
    fewer workspaces a batch for the same rows (`AuditBuffer.thin`)."""
    schemas = list(by_schema)
    db.ensure_connection()
    with db.wrap_database_errors, transaction.atomic(using=db.alias):
        for start in range(0, len(schemas), WORKSPACES_A_STATEMENT):
            chosen = schemas[start : start + WORKSPACES_A_STATEMENT]
            entries = [entry for schema_name in chosen for entry in by_schema[schema_name]]
            numbers = [number for number, schema_name in enumerate(chosen) for _ in by_schema[schema_name]]
            rows = [_fields(entry) for entry in entries]
            names = tuple(rows[0])
            columns, unnested, aliases = _plain_columns(names)
            inserts = [
                # Quoted names and numbers only: every value is a parameter.
                f"w{number} AS (INSERT INTO {_target(schema_name)} ({columns}) "  # noqa: S608
                f"SELECT {aliases} FROM batch WHERE s = {number})"
                for number, schema_name in enumerate(chosen)
            ]
            # One array per column (psycopg adapts a list as a PostgreSQL array).
            params = [numbers, *([row[name] for row in rows] for name in names)]
            with psycopg.RawCursor(db.connection) as cursor:
                cursor.execute(f"WITH {unnested}, {', '.join(inserts)} SELECT 1", params, prepare=False)


@lru_cache(maxsize=100_000)
def _target(schema_name: str) -> str:
    """The workspace's ToolCall table, its schema and name quoted as PostgreSQL quotes them."""
    return f"{_quoted(schema_name)}.{_quoted(_table())}"


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _copy_of(schema_name: str, entries: list[Entry]) -> tuple[sql.SQL, list[tuple[object, ...]]]:
    """The COPY statement for `entries` and their rows."""
    fields = [_fields(entry) for entry in entries]
    columns, _unnested, _aliases = _plain_columns(tuple(fields[0]))
    # Quoted names only.
    statement = sql.SQL(f"COPY {_target(schema_name)} ({columns}) FROM STDIN")
    return statement, [tuple(row.values()) for row in fields]


@cache
def _table() -> str:
    from apps.catalogue.models import ToolCall

    return ToolCall._meta.db_table


@cache
def _plain_columns(names: tuple[str, ...]) -> tuple[str, str, str]:
    """For these fields: the column list, quoted; the `batch` CTE that unnests the workspace's
    number ($1) and one array a column ($2, ...), typed; and its columns' aliases, listed."""
    from apps.catalogue.models import ToolCall

    opts = ToolCall._meta
    columns, typed, aliases = [], ["$1::int[]"], []
    for number, name in enumerate(names, 2):
        field = opts.get_field(name)
        assert isinstance(field, Field) and field.column  # `_fields` fills columns only
        columns.append(_quoted(field.column))
        typed.append(f"${number}::{field.db_type(connection)}[]")
        aliases.append(f"c{number}")
    listed = ", ".join(aliases)
    unnested = f"batch AS (SELECT * FROM unnest({', '.join(typed)}) AS b(s, {listed}))"  # noqa: S608
    return ", ".join(columns), unnested, ", ".join(aliases)


buffer = AuditBuffer()


def record(
    *,
    schema_name: str,
    principal: object,
    tool: str,
    outcome: str,
    duration_ms: float,
    error_code: str = "",
    refusal: str = "",
) -> None:
    user = getattr(principal, "user", None)
    buffer.record(
        Entry(
            schema_name=schema_name,
            at=timezone.now(),
            user_id=getattr(user, "pk", None),
            scheme=getattr(principal, "scheme", "") or "",
            credential=getattr(principal, "credential", "") or "",
            client=getattr(principal, "client", "") or "",
            tool=tool,
            outcome=outcome,
            error_code=error_code,
            duration_ms=duration_ms,
            refusal=refusal,
            api_key_id=getattr(principal, "api_key_id", None),
        )
    )


def flush() -> int:
    return buffer.flush()


@atexit.register
def _flush_at_exit() -> None:
    if buffer.pending():
        try:
            buffer.flush()
        except Exception:
            logger.exception("could not write the last tool-call records")
