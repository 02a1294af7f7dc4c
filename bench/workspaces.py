"""Time to create a workspace (goal: under 1 s each on 2 cores, over 50 in a row).

Each creation is what `create_workspace` does: clone the template schema, add the domain, and
create the owner (with a password, hashed with Django's default PBKDF2, unless --no-password).
"""

import argparse
import time


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench workspaces")
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--no-password", action="store_true", help="owner without a password (invitation)")
    args, _ = parser.parse_known_args(argv)

    from bench.common import summary, use_fresh_database

    use_fresh_database()
    import logging

    from apps.tenancy.services import workspace_create

    logging.disable(logging.INFO)
    samples = []
    for index in range(args.count):
        start = time.perf_counter()
        workspace_create(
            name=f"Bench {index}",
            domains=[f"bench-{index}.test"],
            owner_email=f"owner{index}@bench.test",
            owner_password=None if args.no_password else "a-bench-password-1",
        )
        samples.append(time.perf_counter() - start)
    print(f"create {args.count} workspaces in a row ({'no' if args.no_password else 'with'} owner password):")
    print(f"  {summary(samples)}")
    print(f"  first={samples[0] * 1000:.0f}ms last={samples[-1] * 1000:.0f}ms")
