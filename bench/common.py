"""What every benchmark shares: its own database, Django set up on it, a server, statistics."""

import importlib
import os
import pkgutil
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

BENCH_DIR = Path(__file__).resolve().parent


def benchmarks() -> dict[str, Callable[[list[str]], None]]:
    """Every module of bench/ with a `run(argv)` function, by module name."""
    found = {}
    for module in pkgutil.iter_modules([str(BENCH_DIR)]):
        if module.name in {"common", "__main__"}:
            continue
        loaded = importlib.import_module(f"bench.{module.name}")
        if hasattr(loaded, "run"):
            found[module.name] = loaded.run
    return dict(sorted(found.items()))


def use_fresh_database(name: str = "atrium_bench") -> str:
    """Points DATABASE_URL at an empty database `name` (dropped and re-created), migrated, and
    sets Django up on it. Returns the URL, for server processes."""
    import psycopg

    parts = urlsplit(os.environ["DATABASE_URL"])
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    url = urlunsplit(parts._replace(path=f"/{name}"))
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.bench")

    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate_workspaces", verbosity=0)
    return url


@contextmanager
def timer() -> Iterator[Callable[[], float]]:
    start = time.perf_counter()
    elapsed: list[float] = []
    yield lambda: elapsed[0] if elapsed else time.perf_counter() - start
    elapsed.append(time.perf_counter() - start)


def summary(samples: list[float], unit: float = 1000.0, label: str = "ms") -> str:
    ordered = sorted(samples)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * unit

    return (
        f"n={len(samples)} mean={statistics.fmean(samples) * unit:.2f}{label} "
        f"p50={pct(0.50):.2f}{label} p90={pct(0.90):.2f}{label} p99={pct(0.99):.2f}{label} "
        f"max={ordered[-1] * unit:.2f}{label}"
    )


def ensure_wrk() -> str:
    """The wrk load generator (C, so it takes little of the 2 cores), installed from Debian's
    packages when missing and allowed."""
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("(installing wrk from Debian's packages)", flush=True)
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "wrk"],
            check=True,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
        found = shutil.which("wrk")
    if not found:
        sys.exit("this benchmark needs wrk (apt-get install wrk)")
    return found
