"""`migrate_workspaces` over many workspaces, for a typical release's migration: a column added
with a default and an index on it, in the contacts app (apps/tenancy/tests/typical_migration,
enabled for this run only). Goal: 10,000 workspaces in 10 minutes or less on this 2-core machine.

1. `--workspaces N` workspace schemas copied from the template (`--copiers` processes, SQL-level
   copies as apps.tenancy.cloning makes them, rows made in bulk; no owner), with the database's
   size after;
2. where one schema's migration went before: django-tenants' `migrate_schemas` on `--baseline`
   schemas one after the other (the whole `migrate` command per schema), and its parts measured
   apart on one schema: the migration graph loaded, the applied migrations' state rendered;
3. the command itself, `migrate_workspaces` (public, template, every workspace, spares), with
   `--processes` processes, its progress lines as it goes (the template's own line: it goes
   through the same runner, and its starting point is the one the pool's processes inherit);
4. the same command again, with nothing left to do (what a rerun costs per schema);
5. every workspace schema checked: the column and the migration's row are there.

    make bench ARGS="migrations --workspaces 1000"
    make bench ARGS="migrations --workspaces 2000 --resume"   # a stopped run's workspaces kept
    make bench ARGS="migrations --workspaces 200 --processes 2 --baseline 5"
"""

import argparse
import multiprocessing
import os
import time

TYPICAL = "apps.tenancy.tests.typical_migration"


def _copy(names: list[str]) -> None:
    """Copies the template into each of `names`, on a connection of its own."""
    from django.db import connections, transaction
    from django_tenants.utils import get_tenant_base_schema

    from apps.tenancy import cloning

    connections.close_all()
    base = get_tenant_base_schema()
    for name in names:
        with transaction.atomic():
            cloning.clone_schema(base, name)
    connections.close_all()


def make_workspaces(count: int, copiers: int) -> list[str]:
    """The `count` workspaces' schema names, copying those not there yet (an earlier run's
    schemas are kept by `--resume`: each copy is one transaction, so a schema is whole or absent)."""
    from django.db import connection, connections

    from apps.tenancy.models import Workspace

    names = [f"mig_{index:05d}" for index in range(count)]
    with connection.cursor() as cursor:
        cursor.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'mig\\_%%'")
        there = {row[0] for row in cursor.fetchall()}
    if there:
        print(f"  {len(there & set(names))} of them there already", flush=True)
    missing = [name for name in names if name not in there]
    connections.close_all()
    context = multiprocessing.get_context("fork")
    # Each copier's connection is renewed every 100 copies: a backend's plan cache grows with the
    # schemas it touched (apps.tenancy.cloning.fresh_backend).
    batches = [missing[i : i + 100] for i in range(0, len(missing), 100)]
    with context.Pool(copiers) as pool:
        for done, _ in enumerate(pool.imap_unordered(_copy, batches), start=1):
            if done % 10 == 0 or done == len(batches):
                print(f"  copied {min(done * 100, len(missing))}/{len(missing)}", flush=True)
    Workspace.objects.bulk_create(
        [Workspace(schema_name=name, name=name, brand_name=name) for name in names],
        batch_size=1000,
        ignore_conflicts=True,
    )
    return names


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench migrations")
    parser.add_argument("--workspaces", type=int, default=1000)
    parser.add_argument("--processes", type=int, default=None, help="default: ATRIUM_MIGRATION_PROCESSES")
    parser.add_argument("--copiers", type=int, default=2, help="processes copying the template")
    parser.add_argument("--baseline", type=int, default=5, help="schemas migrated the old way first")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="the bench's database as a stopped run left it: its workspaces kept, the missing ones "
        "copied; kept after the run (drop it with a run without --resume)",
    )
    args, _ = parser.parse_known_args(argv)

    from bench.common import drop_database, existing_database, use_fresh_database

    start = time.perf_counter()
    if args.resume:
        existing_database("atrium_bench")
        print("the bench's database as an earlier run left it", flush=True)
    else:
        use_fresh_database()
        print(f"fresh database, public and template migrated: {time.perf_counter() - start:.1f}s", flush=True)

    import logging

    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    logging.disable(logging.INFO)
    processes = args.processes or settings.TENANT_MULTIPROCESSING_MAX_PROCESSES

    start = time.perf_counter()
    names = make_workspaces(args.workspaces, args.copiers)
    made = time.perf_counter() - start
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_database_size(current_database())")
        size = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM pg_class")
        relations = cursor.fetchone()[0]
    print(
        f"{args.workspaces} workspaces copied in {made:.1f}s "
        f"({made / max(args.workspaces, 1) * 1000:.0f} ms each); "
        f"database {size / 2**30:.2f} GiB ({size / max(args.workspaces, 1) / 2**20:.1f} MiB per workspace), "
        f"{relations} relations",
        flush=True,
    )

    settings.MIGRATION_MODULES = {"contacts": TYPICAL}

    # Where the old path's time goes, on one schema (nothing applied: read only).
    connection.set_schema(names[-1])
    start = time.perf_counter()
    executor = MigrationExecutor(connection)
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    executor._create_project_state(with_applied_migrations=True).apps  # noqa: B018
    rendered = time.perf_counter() - start
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    connection.set_schema_to_public()
    print(
        f"one schema, the parts Django's migrate repeats for each: graph loaded {loaded * 1000:.0f} ms, "
        f"applied state rendered {rendered * 1000:.0f} ms; plan: {[m.name for m, _ in plan]}",
        flush=True,
    )

    baseline = names[: args.baseline]
    if baseline:
        start = time.perf_counter()
        for name in baseline:
            call_command("migrate_schemas", tenant=True, schema_name=name, interactive=False, verbosity=0)
        old = (time.perf_counter() - start) / len(baseline)
        print(
            f"before: django-tenants migrate_schemas, {len(baseline)} schemas one after the other: "
            f"{old * 1000:.0f} ms per schema (10,000 would take {old * 10000 / 60:.0f} min in one process)",
            flush=True,
        )

    for label in ("migrate_workspaces", "migrate_workspaces again (nothing left)"):
        print(f"{label}, {processes} processes:", flush=True)
        start = time.perf_counter()
        call_command("migrate_workspaces", processes=processes, verbosity=1)
        took = time.perf_counter() - start
        print(
            f"  {label}: {took:.1f}s for {args.workspaces} workspaces "
            f"({took / max(args.workspaces, 1) * 1000:.1f} ms per schema; "
            f"10,000 at this rate: {took / max(args.workspaces, 1) * 10000 / 60:.1f} min)",
            flush=True,
        )

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM information_schema.columns WHERE table_name = 'contacts_contact' "
            "AND column_name = 'upgrade_level' AND table_schema LIKE 'mig\\_%%'"
        )
        columns = cursor.fetchone()[0]
    print(f"  schemas with the new column: {columns} of {args.workspaces}", flush=True)
    print(f"  load (1, 5, 15 min) after: {os.getloadavg()}")
    if not args.resume:
        drop_database()
