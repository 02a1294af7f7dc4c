"""Workspaces on two PostgreSQL servers (issue on scale, part 3): where new workspaces are placed,
and what a move between servers costs (docs/deploy.md, "More than one PostgreSQL server").

The bench's own database on the embedded server is the primary; a second embedded server is
started for the run with a copy of its public and template schemas (as the suite's two-server
test makes it). Then, with both servers known:

1. `--workspaces` workspaces are created with no server named: the placement of each (the least
   loaded server, `least_loaded_server`) and the time of each creation.
2. One workspace on the primary gets `--contacts` contacts (and a task each tenth), then is moved
   to the second server and back (`apps.tenancy.moving.move_workspace`). A reader polls the
   workspace's row every 10 ms on its own connection meanwhile: the pause is how long the row
   said `moving_to` (the doors answer 503 with Retry-After for that long), the move's time adds
   the old schema's drop after the switch. Each move's rows are compared by the move itself
   (row counts and a digest per table); the bench checks the contacts again after each.

    make bench ARGS="servers"
    make bench ARGS="servers --workspaces 40 --contacts 50000"
"""

import argparse
import shutil
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import psycopg

from bench import common

SECOND = "second"
READ_PAUSE = "SELECT moving_to FROM tenancy_workspace WHERE id = %s"


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench servers")
    parser.add_argument("--workspaces", type=int, default=20)
    parser.add_argument("--contacts", type=int, default=10_000)
    parser.add_argument("--database", default="atrium_bench_servers")
    args, _ = parser.parse_known_args(argv)

    started = time.perf_counter()
    primary_url = common.use_fresh_database(args.database)
    print(f"primary migrated in {time.perf_counter() - started:.0f} s", flush=True)

    from apps.core.testing import PrivatePostgres, secondary_server_database

    workdir = Path(tempfile.mkdtemp(prefix="bench-servers-"))
    second = PrivatePostgres(workdir / "postgres").start()
    try:
        started = time.perf_counter()
        second_url = secondary_server_database(second, primary_url)
        print(f"second server prepared (a copy of the public and template schemas) in "
              f"{time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
        _measure(args, second_url)
    finally:
        from django.db import connections

        connections.close_all()
        second.stop()
        shutil.rmtree(workdir, ignore_errors=True)
        common.drop_database(args.database)


def _measure(args: argparse.Namespace, second_url: str) -> None:
    from django.conf import settings
    from django.test import override_settings
    from django_tenants.utils import schema_context

    from apps.contacts.models import Contact
    from apps.core import servers
    from apps.tenancy import moving, services

    settings.ATRIUM_SPARE_SCHEMAS = 0  # every workspace copied on its server: no worker needed
    with override_settings(ATRIUM_DATABASE_SERVERS={SECOND: second_url}):
        assert services.server_ready(SECOND)
        made, took = [], []
        for index in range(1, args.workspaces + 1):
            began = time.perf_counter()
            made.append(
                services.workspace_create(
                    name=f"Placed {index}",
                    domains=[f"p{index}.servers.test"],
                    owner_email=f"owner@p{index}.test",
                )
            )
            took.append((made[-1].database, (time.perf_counter() - began) * 1000))
        placed = Counter(workspace.database for workspace in made)
        for key in servers.known():
            times = [ms for database, ms in took if database == key]
            print(
                f"placement: {placed[key]} of {len(made)} new workspaces on {key}; creation (copying the "
                f"template there) mean {statistics.mean(times) if times else 0:.0f} ms",
                flush=True,
            )

        workspace = next(one for one in made if one.database == servers.PRIMARY)
        with schema_context(workspace.schema_name):
            Contact.objects.bulk_create(
                Contact(first_name=f"Contact {n}", last_name="Moved", email=f"c{n}@moved.test")
                for n in range(args.contacts)
            )
        for target in (SECOND, servers.PRIMARY):
            watch = _PauseWatch(workspace.pk)
            with watch:
                moved = moving.move_workspace(workspace.schema_name, target)
            workspace.refresh_from_db()
            with schema_context(workspace.schema_name):
                kept = Contact.objects.filter(last_name="Moved").count()
            assert workspace.database == target and not workspace.moving_to
            assert kept == args.contacts, f"{kept} contacts after the move, not {args.contacts}"
            print(
                f"move {moved.source} -> {moved.target}: {moved.tables} tables, {moved.rows} rows, "
                f"{moved.seconds:.2f} s in all; paused (the row saying moving_to) {watch.paused:.2f} s; "
                f"{kept} contacts there after it",
                flush=True,
            )


class _PauseWatch:
    """Polls a workspace row's `moving_to` on a connection of its own: how long it was set."""

    def __init__(self, pk: int) -> None:
        from apps.core import servers

        self.pk = pk
        self.url = servers.url_for(servers.PRIMARY)
        self.paused = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> "_PauseWatch":
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _poll(self) -> None:
        began = None
        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self._stop.is_set():
                row = conn.execute(
                    "SELECT moving_to FROM tenancy_workspace WHERE id = %s", [self.pk]
                ).fetchone()
                now = time.perf_counter()
                if row and row[0] and began is None:
                    began = now
                elif began is not None and not (row and row[0]):
                    self.paused += now - began
                    began = None
                time.sleep(0.01)
