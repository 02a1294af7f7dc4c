"""Time to create a workspace (goal: under 0.5 s mean over 200 in a row on 2 cores).

Each creation is what `create_workspace` does: take a spare copy of the template schema (or copy
it then and there when none is ready), add the domain, and create the owner (with a password,
hashed with Argon2id, the first of PASSWORD_HASHERS, unless --no-password). With spares (--spares
N, default the setting ATRIUM_SPARE_SCHEMAS), one Celery worker refills the pool the way the
deployed workers do, on the same two cores; the figures say how many creations found a spare
ready, what those with a spare and those that copied the template took, and the mean of each
tenth of the run (flat: no growth with the number of workspaces). The database is dropped at
the end: on ext4, files are slow to create for a few minutes after such a drop (common.
drop_database), so a second run started right after this one copies the template 2-3 times slower.
"""

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench workspaces")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--no-password", action="store_true", help="owner without a password (invitation)")
    parser.add_argument("--spares", type=int, default=None, help="spare schemas kept ready (0: none)")
    args, _ = parser.parse_known_args(argv)

    from bench.common import drop_database, summary, use_fresh_database

    url = use_fresh_database()
    import logging

    import redis
    from django.conf import settings

    from apps.core.testing import start_celery_worker
    from apps.tenancy import spares
    from apps.tenancy.services import workspace_create

    logging.disable(logging.INFO)
    if args.spares is not None:
        settings.ATRIUM_SPARE_SCHEMAS = args.spares
    pool = settings.ATRIUM_SPARE_SCHEMAS
    claims = {"spare": 0}
    claim = spares.claim

    def counted_claim(target: str) -> bool:
        taken = claim(target)
        claims["spare"] += taken
        return taken

    spares.claim = counted_claim  # type: ignore[assignment]
    broker = redis.Redis.from_url(settings.REDIS_URL)
    broker.flushdb()
    worker = None
    if pool:
        spares.fill()
        env = {**os.environ, "DATABASE_URL": url, "ATRIUM_SPARE_SCHEMAS": str(pool)}
        worker = start_celery_worker(env, Path(tempfile.mkdtemp(prefix="bench-workspaces-")), "bench")
    samples, found = [], []
    try:
        for index in range(args.count):
            before = claims["spare"]
            start = time.perf_counter()
            workspace_create(
                name=f"Bench {index}",
                domains=[f"bench-{index}.test"],
                owner_email=f"owner{index}@bench.test",
                owner_password=None if args.no_password else "a-bench-password-1",
            )
            samples.append(time.perf_counter() - start)
            found.append(claims["spare"] > before)
    finally:
        if worker is not None:
            worker.stop()
        broker.flushdb()
    password = "no" if args.no_password else "with"
    print(f"create {args.count} workspaces in a row ({password} owner password, {pool} spare schemas):")
    print(f"  {summary(samples)}")
    print(f"  first={samples[0] * 1000:.0f}ms last={samples[-1] * 1000:.0f}ms")
    print(f"  a spare schema was ready for {claims['spare']} of {args.count}")
    for label, wanted in (("with a spare", True), ("copied then", False)):
        chosen = [sample for sample, spare in zip(samples, found, strict=True) if spare is wanted]
        if chosen:
            print(f"  {label}: {summary(chosen)}")
    tenth = max(1, args.count // 10)
    by_tenth = [statistics.fmean(samples[i : i + tenth]) * 1000 for i in range(0, args.count, tenth)]
    print("  mean by tenth of the run (ms): " + " ".join(f"{mean:.0f}" for mean in by_tenth))
    print(f"  load (1, 5, 15 min) after: {os.getloadavg()}")
    drop_database()
