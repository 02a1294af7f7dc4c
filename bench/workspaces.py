"""Time to create a workspace (goal: under 0.25 s mean over 200 in a row on 2 cores).

Each creation is what `create_workspace` does: take a spare copy of the template schema (or copy
it then and there when none is ready), add the domain, and create the owner (with a password,
hashed with Argon2id, the first of PASSWORD_HASHERS, unless --no-password). With spares (--spares
N, default the setting ATRIUM_SPARE_SCHEMAS; all N made before the run), one Celery worker refills
the pool the way the deployed workers do, on the same two cores (while creations go on, only once
fewer than a quarter of the pool, or two, are left: apps.tenancy.spares); the figures say how
many creations found a spare ready, what those with a spare and those that copied the template
took, and the mean of each tenth of the run (flat: no growth with the number of workspaces). The
database is dropped at the end: on ext4, files are slow to create for a few minutes after such a
drop (common.drop_database), so a second run started right after this one copies the template
2-3 times slower.

With `--compare code=DIR` the creations of each round are made twice, by this checkout and then
by the checkout DIR (another commit's, with the same migrations), each in a process of its own
with its own worker, on the same database; `--rounds` rounds alternate them, so that the
machine's drift hits both alike:

    make bench ARGS="workspaces --count 100 --rounds 3 --compare code=/tmp/main-checkout"
"""

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(count: int, password: bool, pool: int | None, prefix: str) -> dict:
    """Creates `count` workspaces in a row; their times and whether each found a spare. Written
    to run as it is in another checkout's process too (`--compare`): it imports what it needs."""
    import logging
    import os
    import tempfile
    import time
    from pathlib import Path

    import redis
    from django.conf import settings

    from apps.core.testing import start_celery_worker
    from apps.tenancy import spares
    from apps.tenancy.services import workspace_create

    logging.disable(logging.INFO)
    if pool is not None:
        settings.ATRIUM_SPARE_SCHEMAS = pool
    pool = settings.ATRIUM_SPARE_SCHEMAS
    claims = {"spare": 0}
    claim = spares.claim

    def counted_claim(target: str) -> bool:
        taken = claim(target)
        claims["spare"] += taken
        return taken

    spares.claim = counted_claim
    broker = redis.Redis.from_url(settings.REDIS_URL)
    broker.flushdb()
    worker = None
    if pool:
        spares.fill()
        env = {**os.environ, "ATRIUM_SPARE_SCHEMAS": str(pool)}
        worker = start_celery_worker(env, Path(tempfile.mkdtemp(prefix="bench-workspaces-")), "bench")
    samples, found = [], []

    def postgres_cpu() -> float:
        """Seconds of CPU of every PostgreSQL process so far: the postmaster's own and its ended
        children's, and each running child's."""
        from django.db import connection

        def stat(pid: int) -> list[str]:
            with open(f"/proc/{pid}/stat") as file:
                return file.read().rsplit(")", 1)[1].split()

        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            postmaster = int(stat(cursor.fetchone()[0])[1])
        ticks = sum(int(field) for field in stat(postmaster)[11:15])
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    fields = stat(int(entry))
                except OSError:
                    continue
                if int(fields[1]) == postmaster:
                    ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def own_cpu() -> float:
        import resource

        return sum(
            usage.ru_utime + usage.ru_stime
            for usage in (
                resource.getrusage(resource.RUSAGE_SELF),
                resource.getrusage(resource.RUSAGE_CHILDREN),
            )
        )

    cpu_before = (own_cpu(), postgres_cpu())
    try:
        for index in range(count):
            before = claims["spare"]
            start = time.perf_counter()
            workspace_create(
                name=f"Bench {prefix} {index}",
                domains=[f"bench-{prefix}-{index}.test"],
                owner_email=f"owner{index}@bench.test",
                owner_password="a-bench-password-1" if password else None,
            )
            samples.append(time.perf_counter() - start)
            found.append(claims["spare"] > before)
    finally:
        if worker is not None:
            worker.stop()
        broker.flushdb()
    # The worker has stopped (its CPU is its parent's, this process's, now); the PostgreSQL
    # figure holds whatever else used the same server meanwhile.
    cpu = {"python": own_cpu() - cpu_before[0], "postgres": postgres_cpu() - cpu_before[1]}
    return {"samples": samples, "found": found, "pool": pool, "cpu": cpu}


def measured_in(code: Path, count: int, password: bool, pool: int | None, prefix: str) -> dict:
    """`measure` run in a process of its own on the checkout `code`, on this run's database."""
    program = "\n".join(
        [
            "import django, json, sys",
            "django.setup()",
            inspect.getsource(measure),
            f"print('FIGURES ' + json.dumps(measure({count!r}, {password!r}, {pool!r}, {prefix!r})))",
        ]
    )
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=code, env=env, capture_output=True, text=True, check=False
    )
    for line in done.stdout.splitlines():
        if line.startswith("FIGURES "):
            return json.loads(line.removeprefix("FIGURES "))
    raise RuntimeError(f"the creations in {code} failed:\n{done.stderr[-4000:]}")


def report(label: str, figures: dict, password: bool) -> None:
    from bench.common import summary

    samples, found, count = figures["samples"], figures["found"], len(figures["samples"])
    print(
        f"{label}: create {count} workspaces in a row ({'with' if password else 'no'} owner password, "
        f"{figures['pool']} spare schemas):"
    )
    print(f"  {summary(samples)}")
    print(f"  first={samples[0] * 1000:.0f}ms last={samples[-1] * 1000:.0f}ms")
    print(f"  a spare schema was ready for {sum(found)} of {count}")
    for kind, wanted in (("with a spare", True), ("copied then", False)):
        chosen = [sample for sample, spare in zip(samples, found, strict=True) if spare is wanted]
        if chosen:
            print(f"  {kind}: {summary(chosen)}")
    tenth = max(1, count // 10)
    by_tenth = [statistics.fmean(samples[i : i + tenth]) * 1000 for i in range(0, count, tenth)]
    print("  mean by tenth of the run (ms): " + " ".join(f"{mean:.0f}" for mean in by_tenth))
    cpu = figures["cpu"]
    print(
        f"  CPU per creation: {cpu['python'] / count * 1000:.0f} ms of this process and its worker (the "
        f"owner's password, the copies' Python), {cpu['postgres'] / count * 1000:.0f} ms of PostgreSQL",
        flush=True,
    )


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench workspaces")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--no-password", action="store_true", help="owner without a password (invitation)")
    parser.add_argument("--spares", type=int, default=None, help="spare schemas kept ready (0: none)")
    parser.add_argument("--compare", metavar="code=DIR", help="also the creations of the checkout DIR")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of --count creations (each code)")
    args, _ = parser.parse_known_args(argv)
    password = not args.no_password
    compared = None
    if args.compare:
        name, _, value = args.compare.partition("=")
        compared = Path(value.strip())
        if name.strip() != "code" or not compared.is_dir():
            sys.exit(f"--compare takes code=DIR, the directory of another checkout, not {args.compare!r}")

    from bench.common import drop_database, use_fresh_database

    use_fresh_database()
    variants = [("this checkout", ROOT)] + ([(f"compared ({compared})", compared)] if compared else [])
    means: dict[str, list[float]] = {label: [] for label, _code in variants}
    for number in range(args.rounds):
        for place, (label, code) in enumerate(variants):
            prefix = f"r{number}v{place}"
            if compared is None:
                figures = measure(args.count, password, args.spares, prefix)
            else:
                figures = measured_in(code, args.count, password, args.spares, prefix)
            report(f"round {number + 1}, {label}", figures, password)
            means[label].append(statistics.fmean(figures["samples"]))
            print(f"  load (1, 5, 15 min) after: {os.getloadavg()}", flush=True)
    if compared is not None:
        ours, theirs = (means[label] for label, _code in variants)
        rounds = (" ".join(f"{mean * 1000:.0f}" for mean in means[label]) for label, _code in variants)
        print(
            "mean of each round (ms): "
            + "; ".join(f"{label} {listed}" for (label, _c), listed in zip(variants, rounds, strict=True))
        )
        ratios = sorted(a / b for a, b in zip(ours, theirs, strict=True))
        print(
            f"this checkout / compared, mean creation time: median of the rounds' ratios "
            f"{statistics.median(ratios):.2f} (rounds {', '.join(f'{r:.2f}' for r in ratios)})"
        )
    drop_database()
