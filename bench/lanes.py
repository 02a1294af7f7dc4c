"""The event loop's connections as lanes (apps.core.onloop._Pool), on their own: many schemas'
statements through one pool, the database side of "rotating over all 1,000" (bench/scale.py)
without the door, nginx and wrk around it, and without making real workspaces (minutes each
hundred): `--schemas` schemas of a database of its own, each with a contact table and a table of
its shares, and one statement per schema (a primary-key read with a subquery, its schema
written in, as apps.core.prepared writes a workspace's).

`--concurrency` tasks on one event loop each run the next schema's statement (rotating over all
of them) through a pool of SERVE_ON_LOOP_CONNECTIONS connections, lanes on (a schema's statement
on its lane's connection, up to SERVE_ON_LOOP_PREPARED_MAX prepared) and off (any free connection,
psycopg's 100 prepared: as before lanes), and on one schema only, in alternating rounds. Printed:
statements/s, and the CPU per statement of the client (this process) and of PostgreSQL's backends.

    make bench ARGS="lanes"                      # 1,000 schemas
    make bench ARGS="lanes --schemas 200 --seconds 4"
"""

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bench.common import empty_database

STATEMENT = (
    "SELECT c.id, c.first_name, c.last_name, c.email, c.city, c.created_at, c.data, "
    '(SELECT count(*) FROM "{schema}"."shares" s WHERE s.contact_id = c.id) '
    'FROM "{schema}"."contacts" c WHERE c.id = $1 AND c.city <> \'\''
)


SCHEMA = """
CREATE SCHEMA {name};
CREATE TABLE {name}.contacts (
    id int PRIMARY KEY, first_name text, last_name text, email text, city text,
    created_at timestamptz DEFAULT now(), data jsonb
);
CREATE TABLE {name}.shares (contact_id int, user_id int);
CREATE INDEX ON {name}.shares (contact_id);
INSERT INTO {name}.contacts (id, first_name, last_name, email, city, data)
    SELECT i, 'Ada', 'Lovelace', 'ada@example.com', 'Leeds', '{{}}' FROM generate_series(1, 20) i;
INSERT INTO {name}.shares SELECT i, 1 FROM generate_series(1, 20) i
"""


def make_schemas(url: str, count: int) -> list[str]:
    import psycopg
    from psycopg import sql

    names = [f"w{index:05d}" for index in range(1, count + 1)]
    with psycopg.connect(url, autocommit=True) as connection:
        for name in names:
            connection.execute(sql.SQL(SCHEMA).format(name=sql.Identifier(name)))
    return names


def backend_seconds(pids: list[int]) -> float:
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


async def one_round(pool, schemas: list[str], concurrency: int, seconds: float):
    """(statements/s, client µs and PostgreSQL µs of CPU per statement) of one round."""
    done = 0
    until = time.perf_counter() + seconds

    async def worker(start: int) -> None:
        nonlocal done
        index = start
        while time.perf_counter() < until:
            schema = schemas[index % len(schemas)]
            index += 1
            pooled = await pool.take(("public",), "default", schema)
            try:
                await pooled.cursor.execute(STATEMENT.format(schema=schema), [7])
                await pooled.cursor.fetchall()
            except BaseException:
                await pool.discard(pooled)
                raise
            pool.give_back(pooled)
            done += 1

    before = {p.conn.info.backend_pid: backend_seconds([p.conn.info.backend_pid]) for p in pool._slots if p}
    client = time.process_time()
    started = time.perf_counter()
    await asyncio.gather(*(worker(start * 7919) for start in range(concurrency)))
    elapsed = time.perf_counter() - started
    client = time.process_time() - client
    # A backend opened during the round counts from its start.
    pids = [p.conn.info.backend_pid for p in pool._slots if p]
    backends = sum(backend_seconds([pid]) - before.get(pid, 0.0) for pid in pids)
    return done / elapsed, client / done * 1e6, backends / done * 1e6


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench lanes")
    parser.add_argument("--schemas", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    args, _ = parser.parse_known_args(argv)

    url = empty_database("atrium_lanes_bench")
    import django

    django.setup()
    from django.conf import settings

    from apps.core import onloop

    started = time.perf_counter()
    schemas = make_schemas(url, args.schemas)
    print(f"  {len(schemas)} schemas made in {time.perf_counter() - started:.0f} s", flush=True)
    variants = {
        "lanes (prepared_max 1,000)": (True, 1000),
        "no lanes (prepared_max 100, as before)": (False, 100),
    }

    async def measure() -> None:
        pools = {label: onloop._Pool(settings.SERVE_ON_LOOP_CONNECTIONS) for label in variants}
        for what, rotated in (("one schema", schemas[:1]), (f"rotating over all {len(schemas)}", schemas)):
            figures: dict[str, list[tuple[float, float, float]]] = {label: [] for label in variants}
            for number in range(args.rounds + 2):  # two warming rounds
                for label, (lanes, prepared_max) in variants.items():
                    settings.SERVE_ON_LOOP_LANES = lanes
                    settings.SERVE_ON_LOOP_PREPARED_MAX = prepared_max
                    measured = await one_round(pools[label], rotated, args.concurrency, args.seconds)
                    if number >= 2:
                        figures[label].append(measured)
            for label, rows in figures.items():
                rate = statistics.median(row[0] for row in rows)
                print(
                    f"{what}, {label}: median {rate:.0f} statements/s "
                    f"(rounds {', '.join(f'{row[0]:.0f}' for row in rows)}); per statement: client "
                    f"{statistics.median(row[1] for row in rows):.0f} µs, PostgreSQL "
                    f"{statistics.median(row[2] for row in rows):.0f} µs; "
                    f"load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
        for pool in pools.values():
            await pool.close()

    asyncio.run(measure())
    import psycopg
    from django.db import connections

    connections.close_all()
    parts = urlsplit(url)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as connection:
        connection.execute('DROP DATABASE IF EXISTS "atrium_lanes_bench" WITH (FORCE)')
