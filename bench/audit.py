"""The tool-call log's writes over many workspaces (apps.catalogue.audit), on their own: what a
batch of calls spread over `--schemas` workspaces costs this process and PostgreSQL, per call
recorded, without the door around it (bench/scale.py's "rotating over all 1,000" pays it inside
the web process).

Each schema of a database of its own gets the log's table as the workspace's migrations make it
(its indexes, without the foreign keys to the workspace's people and keys, which the rows leave
empty), in seconds rather than the minutes real workspaces take. A batch is `--batch` entries,
each of a schema drawn at random (as calls rotating over every workspace arrive); batches are
written one after the other on one connection, as the writer thread does. Printed for each
batch size: calls recorded per second, and the CPU per call of this process and of PostgreSQL's
backend. `--batch` takes several sizes (the writer's batch is the calls of one interval, at most
ATRIUM_AUDIT_BATCH_SIZE), the first of them also on one schema alone (one COPY).

    make bench ARGS="audit"                         # 1,000 schemas, batches of 500 and 5,000
    make bench ARGS="audit --schemas 200 --batch 100,1000"
"""

import argparse
import os
import random
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bench.common import empty_database

DATABASE = "atrium_audit_bench"


def backend_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def make_schemas(count: int) -> list[str]:
    """`count` schemas, each with the tool-call log's table and its indexes (no foreign keys)."""
    from django.db import connection

    from apps.catalogue.models import ToolCall

    with connection.schema_editor(collect_sql=True) as editor:
        editor.create_model(ToolCall)
    statements = [text for text in editor.collected_sql if "FOREIGN KEY" not in text]
    names = [f"w{index:05d}" for index in range(1, count + 1)]
    with connection.cursor() as cursor:
        for name in names:
            cursor.execute(f'CREATE SCHEMA "{name}"')
            cursor.execute(f'SET search_path TO "{name}"')
            for text in statements:
                cursor.execute(text)
        cursor.execute("SET search_path TO public")
    return names


def batch_of(schemas: list[str], size: int, draw: random.Random) -> list:
    from apps.catalogue.audit import Entry

    now = datetime.now(UTC)
    return [
        Entry(
            schema_name=draw.choice(schemas),
            at=now,
            user_id=None,
            scheme="oauth",
            credential="a1b2c3d4",
            client="Bench client",
            tool="getContact",
            outcome="ok",
            error_code="",
            duration_ms=1.25,
        )
        for _ in range(size)
    ]


def one_round(
    schemas: list[str], size: int, seconds: float, draw: random.Random
) -> tuple[float, float, float]:
    """(calls recorded/s, this process's µs and PostgreSQL's µs of CPU per call) of one round."""
    from django.db import connection

    from apps.catalogue import audit

    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    batches = [batch_of(schemas, size, draw) for _ in range(4)]
    done = 0
    backend = backend_seconds(pid)
    client = time.process_time()
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        written, kept, error = audit._write(batches[done // size % len(batches)])
        if error is not None or kept:
            raise RuntimeError(f"the batch was not written: {error!r}")
        done += written
    elapsed = time.perf_counter() - started
    client = time.process_time() - client
    backend = backend_seconds(pid) - backend
    return done / elapsed, client / done * 1e6, backend / done * 1e6


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench audit")
    parser.add_argument("--schemas", type=int, default=1000)
    parser.add_argument("--batch", default="500,5000", help="batch sizes, comma-separated")
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    args, _ = parser.parse_known_args(argv)
    sizes = [int(part) for part in args.batch.split(",") if part.strip()]

    url = empty_database(DATABASE)
    import django

    django.setup()
    started = time.perf_counter()
    schemas = make_schemas(args.schemas)
    print(f"  {len(schemas)} schemas made in {time.perf_counter() - started:.0f} s", flush=True)
    draw = random.Random(45)
    cases = [(f"one schema, batches of {sizes[0]}", schemas[:1], sizes[0])]
    cases += [(f"over {len(schemas)} schemas, batches of {size}", schemas, size) for size in sizes]
    for label, chosen, size in cases:
        one_round(chosen, size, 1, draw)  # warming: the backend's catalogue cache
        rows = [one_round(chosen, size, args.seconds, draw) for _ in range(args.rounds)]
        print(
            f"{label}: median {statistics.median(row[0] for row in rows):.0f} calls recorded/s "
            f"(rounds {', '.join(f'{row[0]:.0f}' for row in rows)}); per call: this process "
            f"{statistics.median(row[1] for row in rows):.1f} µs, PostgreSQL "
            f"{statistics.median(row[2] for row in rows):.1f} µs; load {os.getloadavg()[0]:.1f}",
            flush=True,
        )

    import psycopg
    from django.db import connections

    connections.close_all()
    parts = urlsplit(url)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
