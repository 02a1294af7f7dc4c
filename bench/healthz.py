"""Latency of GET /healthz on a workspace host, with 1 and with 500 workspaces present (goal: no
measurable growth). One web process; requests one at a time over a kept-alive connection.

Two request patterns per size: the same host every time (the routing cache always hits), and a
different workspace host on each request, round-robin over all of them (so each host is resolved
from the database whenever its cache entry has expired).
"""

import argparse
import os
import time


def measure(server, hosts: list[str], count: int) -> list[float]:  # type: ignore[no-untyped-def]
    import httpx

    samples = []
    with httpx.Client(base_url=server.url(), timeout=10) as client:
        for index in range(200):  # warm up
            client.get("/healthz", headers={"Host": hosts[index % len(hosts)]})
        for index in range(count):
            host = hosts[index % len(hosts)]
            start = time.perf_counter()
            response = client.get("/healthz", headers={"Host": host})
            samples.append(time.perf_counter() - start)
            assert response.status_code == 200, response.text
    return samples


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench healthz")
    parser.add_argument("--workspaces", type=int, default=500)
    parser.add_argument("--requests", type=int, default=3000)
    args, _ = parser.parse_known_args(argv)

    from bench.common import drop_database, summary, use_fresh_database

    url = use_fresh_database()
    import logging

    from apps.core.testing import start_web
    from apps.tenancy.services import workspace_create

    logging.disable(logging.INFO)

    def grow_to(size: int, have: int) -> int:
        for index in range(have, size):
            workspace_create(name=f"W {index}", domains=[f"w{index}.test"], owner_email=f"o{index}@w.test")
        return size

    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings.bench"}
    have = 0
    for size in (1, args.workspaces):
        started = time.perf_counter()
        have = grow_to(size, have)
        if size > 1:
            print(f"(created {size - 1} more workspaces in {time.perf_counter() - started:.0f}s)")
        server = start_web(env)
        try:
            hosts = [f"w{index}.test" for index in range(size)]
            one = measure(server, hosts[:1], args.requests)
            every = measure(server, hosts, args.requests)
        finally:
            server.stop()
        print(f"{size} workspace(s), same host:      {summary(one)}")
        print(f"{size} workspace(s), rotating hosts: {summary(every)}")
    drop_database()
