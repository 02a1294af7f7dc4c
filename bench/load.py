"""Sustained load of mixed MCP calls on the multi-process topology, then a Redis restart and a
PostgreSQL restart under that load.

The topology is the multi-process proof's (`apps.core.testing.start_cluster`): three Daphne
processes behind nginx (round-robin, no stickiness), two Celery workers and a beat, on a
PostgreSQL and a Redis of their own (`PrivatePostgres`, `PrivateRedis`: the same binaries as
`make run`), so that restarting them disturbs nothing else on the machine.

Load: `--clients` closed-loop clients, each with its own MCP session (personal access token +
X-Api-Key), calling a weighted mix of `tools/list`, `getContact`, `listContacts` (reads) and
`createContact`, `updateContact` (writes) through the load balancer. Each answer is classified:
ok, tool_error (`isError`), unavailable (503 with SPEC 7.1's UNAVAILABLE body), 5xx (any other),
rpc_error, http_error, bad_body, timeout (no answer within `--timeout`: a hang), connection.
A client that got a failure waits 0.2 s and goes on (it does not honour Retry-After: recovery is
measured to a fraction of a second).

Reported: per phase, requests and their kinds, latency percentiles of the answered requests;
the resident memory of every process sampled every `--sample-every` seconds (flat memory: the
mean of the first minute against the last; a shorter run compares its first and last quarter);
for each fault, what clients saw while the dependency was down and how long after it came back
the service answered every request again. After the PostgreSQL restart, every createContact
that answered success must exist and none that failed may (nothing half-written).

The gateway (POST /api/agent and its polls) joins the mix by adding entries to OPERATIONS
(`--mix` picks weights by name); nothing else here depends on what the operations are.

    make bench ARGS="load"                       # 5 minutes of load, then both faults
    make bench ARGS="load --seconds 60"          # a shorter run on a busy machine
    make bench ARGS="load --faults none"         # load only
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import shutil
import statistics
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

PAUSE_AFTER_FAILURE = 0.2
EMAIL_DOMAIN = "load.test"
METRICS_TOKEN = "load-metrics"  # noqa: S105  (the loopback cluster's own, for one run)
METRIC = "atrium_tool_calls_total"
PURGE_TASK = "apps.mcp.tasks.purge_mcp_sessions"

# --- the operations of the mix ------------------------------------------------------------------


@dataclass
class Outcome:
    op: str
    at: float  # time.monotonic() when sent
    seconds: float
    kind: str
    status: int | None = None
    upstream: str | None = None
    detail: str = ""
    email: str | None = None  # createContact: the unique address it tried to create

    @property
    def ended(self) -> float:
        return self.at + self.seconds


def classify(response: httpx.Response) -> tuple[str, str]:
    """(kind, detail) of one answer of /api/mcp."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = None
    if status == 503:
        error = body.get("error") if isinstance(body, dict) else None
        clean = isinstance(error, dict) and error.get("code") == "UNAVAILABLE" and error.get("message")
        return ("unavailable" if clean else "5xx"), response.text[:200]
    if status >= 500:
        return "5xx", response.text[:200]
    if status != 200:
        return "http_error", f"{status} {response.text[:200]}"
    if not isinstance(body, dict):
        return "bad_body", response.text[:200]
    if "error" in body:
        return "rpc_error", json.dumps(body["error"])[:200]
    result = body.get("result") or {}
    if isinstance(result, dict) and result.get("isError"):
        text = " ".join(block.get("text", "") for block in result.get("content", []))
        return "tool_error", text[:200]
    return "ok", ""


class Client:
    """One closed-loop client: its own MCP session, its own contacts to update."""

    def __init__(self, load: Load, number: int) -> None:
        from apps.mcp.testing import McpHttp

        self.load = load
        self.rng = random.Random(number)  # a load mix, not a secret
        self.mcp = McpHttp(load.url, load.credentials, timeout=load.timeout)
        self.mine: list[int] = []

    def tools_list(self) -> tuple[httpx.Response, dict[str, Any]]:
        return self.mcp.request("tools/list", {}), {}

    def get_contact(self) -> tuple[httpx.Response, dict[str, Any]]:
        return self.mcp.call("getContact", {"contactId": self.rng.choice(self.load.contact_ids)}), {}

    def list_contacts(self) -> tuple[httpx.Response, dict[str, Any]]:
        return self.mcp.call("listContacts", {}), {}

    def create_contact(self) -> tuple[httpx.Response, dict[str, Any]]:
        unique = secrets.token_hex(8)
        email = f"load-{unique}@{EMAIL_DOMAIN}"
        # A name of its own: look-alikes would make every creation a duplicate check's worst case.
        response = self.mcp.call(
            "createContact", {"contact": {"firstName": "Load", "lastName": f"Test {unique}", "email": email}}
        )
        return response, {"email": email}

    def update_contact(self) -> tuple[httpx.Response, dict[str, Any]]:
        if not self.mine:
            return self.create_contact()
        contact_id = self.rng.choice(self.mine)
        city = self.rng.choice(["London", "Paris", "Lagos", "Lima", "Osaka"])
        return self.mcp.call("updateContact", {"contactId": contact_id, "changes": {"city": city}}), {}


# Name -> what a client does. The gateway's posts and polls go here once /api/agent is merged.
OPERATIONS: dict[str, Callable[[Client], tuple[httpx.Response, dict[str, Any]]]] = {
    "tools/list": Client.tools_list,
    "getContact": Client.get_contact,
    "listContacts": Client.list_contacts,
    "createContact": Client.create_contact,
    "updateContact": Client.update_contact,
}
DEFAULT_MIX = {"tools/list": 2, "getContact": 3, "listContacts": 2, "createContact": 2, "updateContact": 1}


def parse_mix(text: str) -> dict[str, int]:
    mix = {}
    for part in text.split(","):
        name, _, weight = part.strip().partition("=")
        if name not in OPERATIONS:
            raise SystemExit(f"unknown operation {name!r}; known: {', '.join(OPERATIONS)}")
        mix[name] = int(weight or 1)
    return mix


# --- the load itself ----------------------------------------------------------------------------


class Load:
    """`clients` threads sending the mix through `url` until `stop()`; `outcomes` grows as they go."""

    def __init__(
        self,
        url: str,
        credentials: dict[str, str],
        contact_ids: list[int],
        *,
        clients: int = 8,
        mix: dict[str, int] | None = None,
        timeout: float = 15.0,
    ) -> None:
        self.url = url
        self.credentials = credentials
        self.contact_ids = contact_ids
        self.clients = clients
        self.mix = mix or DEFAULT_MIX
        self.timeout = timeout
        self.outcomes: list[Outcome] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._ready = threading.Barrier(clients + 1)

    def start(self) -> Load:
        for number in range(self.clients):
            thread = threading.Thread(target=self._run, args=(number,), name=f"load-{number}", daemon=True)
            thread.start()
            self._threads.append(thread)
        self._ready.wait(timeout=120)  # every session initialised
        return self

    def stop(self) -> list[Outcome]:
        self._stop.set()
        for thread in self._threads:
            thread.join(self.timeout + 10)
        return self.outcomes

    def between(self, start: float, end: float) -> list[Outcome]:
        with self._lock:
            return [outcome for outcome in self.outcomes if start <= outcome.at < end]

    def _run(self, number: int) -> None:
        client = Client(self, number)
        try:
            client.mcp.initialize()
        finally:
            self._ready.wait(timeout=120)
        names, weights = list(self.mix), list(self.mix.values())
        try:
            while not self._stop.is_set():
                op = client.rng.choices(names, weights)[0]
                outcome = self._one(client, op)
                with self._lock:
                    self.outcomes.append(outcome)
                if outcome.kind != "ok":
                    time.sleep(PAUSE_AFTER_FAILURE)
        finally:
            client.mcp.close()

    def _one(self, client: Client, op: str) -> Outcome:
        started = time.monotonic()
        extra: dict[str, Any] = {}
        try:
            response, extra = OPERATIONS[op](client)
        except httpx.TimeoutException as error:
            return Outcome(op, started, time.monotonic() - started, "timeout", detail=repr(error)[:200])
        except httpx.HTTPError as error:
            return Outcome(op, started, time.monotonic() - started, "connection", detail=repr(error)[:200])
        seconds = time.monotonic() - started
        kind, detail = classify(response)
        outcome = Outcome(
            op, started, seconds, kind, response.status_code, response.headers.get("x-upstream"), detail
        )
        outcome.email = extra.get("email")
        if kind == "ok" and op == "createContact":
            client.mine.append(response.json()["result"]["structuredContent"]["contact"]["id"])
        return outcome


# --- reading the outcomes -----------------------------------------------------------------------

# What a client may see while a dependency is down and the request still fails cleanly: a 503 in
# SPEC 7.1's format, or (a tool already running when PostgreSQL went) a tool error saying that
# nothing was changed.
CLEAN_FAILURES = frozenset({"unavailable", "tool_error"})


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


def describe(outcomes: list[Outcome], seconds: float) -> str:
    kinds = Counter(outcome.kind for outcome in outcomes)
    answered = [outcome.seconds for outcome in outcomes if outcome.kind not in {"timeout", "connection"}]
    five_xx = sum(1 for outcome in outcomes if outcome.status is not None and outcome.status >= 500)
    lines = [
        f"{len(outcomes)} requests in {seconds:.0f} s ({len(outcomes) / max(seconds, 1e-9):.1f}/s); "
        f"kinds {dict(sorted(kinds.items()))}; HTTP 5xx {five_xx} "
        f"(503 UNAVAILABLE {kinds['unavailable']}, other {kinds['5xx']})",
        f"  latency all: p50 {percentile(answered, 0.5) * 1000:.0f} ms, p90 "
        f"{percentile(answered, 0.9) * 1000:.0f} ms, p99 {percentile(answered, 0.99) * 1000:.0f} ms, "
        f"max {max(answered, default=0) * 1000:.0f} ms",
    ]
    by_op: dict[str, list[float]] = defaultdict(list)
    for outcome in outcomes:
        if outcome.kind == "ok":
            by_op[outcome.op].append(outcome.seconds)
    for op, values in sorted(by_op.items()):
        lines.append(
            f"  {op:14} n={len(values):6d} p50 {percentile(values, 0.5) * 1000:6.0f} ms  "
            f"p99 {percentile(values, 0.99) * 1000:6.0f} ms"
        )
    odd = [outcome for outcome in outcomes if outcome.kind != "ok"]
    for outcome in odd[:5]:
        lines.append(f"  e.g. {outcome.op} {outcome.kind} {outcome.status}: {outcome.detail[:150]}")
    return "\n".join(lines)


@dataclass
class Fault:
    """What clients saw around one dependency restart (times are time.monotonic())."""

    name: str
    down_at: float
    up_at: float
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def failures(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if outcome.kind != "ok"]

    @property
    def unclean(self) -> list[Outcome]:
        """Failures that are not clean: another 5xx, a hang, a protocol error, a refused call."""
        return [outcome for outcome in self.failures if outcome.kind not in CLEAN_FAILURES]

    @property
    def recovery_seconds(self) -> float:
        """From the dependency being back to the end of the last failed request (0: none failed
        once it was back)."""
        late = [outcome.ended for outcome in self.failures if outcome.ended > self.up_at]
        return max(late) - self.up_at if late else 0.0

    @property
    def outage_seen(self) -> float:
        """From the first failure to the end of the last one, as clients saw it."""
        if not self.failures:
            return 0.0
        return max(o.ended for o in self.failures) - min(o.at for o in self.failures)

    def describe(self) -> str:
        kinds = Counter(outcome.kind for outcome in self.failures)
        return (
            f"{self.name}: down for {self.up_at - self.down_at:.1f} s; clients saw failures for "
            f"{self.outage_seen:.1f} s: {dict(sorted(kinds.items()))}; unclean {len(self.unclean)}; "
            f"every request succeeded again {self.recovery_seconds:.1f} s after it was back"
        )


def ledger(outcomes: list[Outcome]) -> tuple[set[str], set[str], set[str]]:
    """(answered success, answered failure, unknown: no answer) of the createContact calls."""
    ok, failed, unknown = set(), set(), set()
    for outcome in outcomes:
        if outcome.email is None:
            continue
        if outcome.kind == "ok":
            ok.add(outcome.email)
        elif outcome.kind in {"timeout", "connection"}:
            unknown.add(outcome.email)
        else:
            failed.add(outcome.email)
    return ok, failed, unknown


def stored_emails(database_url: str, schema_name: str) -> set[str]:
    """The load's contacts as PostgreSQL has them (read directly: no cache, no process of ours)."""
    import psycopg
    from psycopg import sql

    query = sql.SQL("SELECT email FROM {}.contacts_contact WHERE email LIKE %s").format(
        sql.Identifier(schema_name)
    )
    with psycopg.connect(database_url, connect_timeout=10) as connection:
        return {row[0] for row in connection.execute(query, [f"load-%@{EMAIL_DOMAIN}"])}


def half_written(outcomes: list[Outcome], database_url: str, schema_name: str) -> tuple[set[str], set[str]]:
    """(answered success but missing, answered failure but stored)."""
    ok, failed, _unknown = ledger(outcomes)
    stored = stored_emails(database_url, schema_name)
    return ok - stored, failed & stored


# --- memory of each process ---------------------------------------------------------------------


class MemorySampler:
    """The resident set size of named processes (with their children: a worker's pool), every
    `every` seconds, in a thread."""

    def __init__(self, processes: dict[str, int], every: float = 5.0) -> None:
        self.processes = processes
        self.every = every
        self.samples: dict[str, list[tuple[float, int]]] = defaultdict(list)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss", daemon=True)

    def start(self) -> MemorySampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(self.every + 5)

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            now = time.monotonic()
            for name, pid in self.processes.items():
                try:
                    process = psutil.Process(pid)
                    rss = process.memory_info().rss
                    rss += sum(child.memory_info().rss for child in process.children(recursive=True))
                except psutil.Error:
                    continue
                self.samples[name].append((now, rss))
            self._stop.wait(self.every)

    def report(self, start: float, end: float) -> list[str]:
        """Per process: MiB at the start and the end (mean of the first and last minute, or
        quarter of a shorter run), the change, and the peak."""
        window = min(60.0, (end - start) / 4)
        lines = []
        for name, samples in self.samples.items():
            inside = [(at, rss) for at, rss in samples if start <= at <= end]
            first = [rss for at, rss in inside if at <= start + window]
            last = [rss for at, rss in inside if at >= end - window]
            if not first or not last:
                continue
            head, tail = statistics.fmean(first) / 2**20, statistics.fmean(last) / 2**20
            peak = max(rss for _at, rss in inside) / 2**20
            lines.append(
                f"  {name:14} {head:7.1f} MiB -> {tail:7.1f} MiB ({tail - head:+6.1f}, "
                f"{(tail - head) / head * 100:+5.1f} %), peak {peak:7.1f} MiB, {len(inside)} samples"
            )
            lines.append(f"  {'':14} by {window:.0f} s: {' '.join(self._series(inside, start, window))}")
        return lines

    @staticmethod
    def _series(samples: list[tuple[float, int]], start: float, window: float) -> list[str]:
        slots: dict[int, list[int]] = defaultdict(list)
        for at, rss in samples:
            slots[int((at - start) // window)].append(rss)
        return [f"{statistics.fmean(slots[slot]) / 2**20:.0f}" for slot in sorted(slots)]


def cluster_processes(cluster: Any, redis: Any = None) -> dict[str, int]:
    processes = {f"web{index + 1}": web.process.pid for index, web in enumerate(cluster.webs)}
    processes.update({worker.name: worker.pid for worker in cluster.workers})
    if cluster.beat is not None:
        processes["beat"] = cluster.beat.pid
    if redis is not None and redis.process is not None:
        processes["redis"] = redis.process.pid
    return processes


# --- faults -------------------------------------------------------------------------------------


def restart_redis(
    redis: Any, down_for: float = 0.0, while_down: Callable[[], Any] | None = None
) -> tuple[float, float]:
    """SIGTERM (Redis saves its append-only file and closes every connection), `down_for`
    seconds without Redis (`while_down` runs then), a start on the same port and data:
    (down at, up at)."""
    down = time.monotonic()
    redis.stop()
    _wait_out(down + down_for, while_down)
    redis.start()
    return down, time.monotonic()


def restart_postgres(
    postgres: Any, down_for: float, while_down: Callable[[], Any] | None = None
) -> tuple[float, float]:
    """A fast shutdown (sessions cut, open transactions rolled back), `down_for` seconds without
    a database (`while_down` runs then), a start: (down at, up at)."""
    down = time.monotonic()
    postgres.stop("fast")
    _wait_out(down + down_for, while_down)
    postgres.start()
    return down, time.monotonic()


def _wait_out(until: float, while_down: Callable[[], Any] | None) -> None:
    if while_down is not None:
        while_down()
    time.sleep(max(0.0, until - time.monotonic()))


def fault_under_load(
    load: Load, name: str, act: Callable[[], tuple[float, float]], *, before: float, after: float
) -> Fault:
    time.sleep(before)
    down, up = act()
    time.sleep(after)
    fault = Fault(name, down, up)
    fault.outcomes = load.between(down - 1.0, up + after)
    return fault


# --- the benchmark ------------------------------------------------------------------------------


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench load")
    parser.add_argument("--seconds", type=float, default=300, help="sustained load (default 300)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--mix", default=",".join(f"{k}={v}" for k, v in DEFAULT_MIX.items()))
    parser.add_argument("--sample-every", type=float, default=5.0, help="RSS sampling period (s)")
    parser.add_argument("--faults", default="redis,postgres", help="redis,postgres or none")
    parser.add_argument("--redis-down", type=float, default=2.0, help="seconds without Redis")
    parser.add_argument("--postgres-down", type=float, default=5.0, help="seconds without PostgreSQL")
    parser.add_argument("--after", type=float, default=20.0, help="seconds of load after each fault")
    parser.add_argument("--timeout", type=float, default=15.0, help="a request without answer by then hangs")
    parser.add_argument("--web", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args, _ = parser.parse_known_args(argv)
    mix = parse_mix(args.mix)
    faults = [] if args.faults == "none" else [name.strip() for name in args.faults.split(",")]

    from apps.core.testing import PrivatePostgres, PrivateRedis, start_cluster

    workdir = Path(tempfile.mkdtemp(prefix="atrium-load-"))
    postgres = PrivatePostgres(workdir / "postgres").start()
    redis = PrivateRedis(workdir / "redis").start()
    cluster = None
    try:
        os.environ["DATABASE_URL"] = postgres.url("postgres")
        os.environ["REDIS_URL"] = redis.url()
        print("(migrating a fresh database: about a minute)", flush=True)
        from bench.common import use_fresh_database

        database_url = use_fresh_database("atrium_load")
        schema_name, credentials, contact_ids = _seed()
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis.url(),
            "DJANGO_SETTINGS_MODULE": "config.settings.bench",
            "ATRIUM_METRICS_TOKEN": METRICS_TOKEN,
            "ATRIUM_LOG_FORMAT": "json",
        }
        cluster = start_cluster(env, workdir / "cluster", web=args.web, workers=args.workers, beat=True)
        _measure(
            args, mix, faults, cluster, postgres, redis, database_url, schema_name, credentials, contact_ids
        )
    finally:
        if cluster is not None:
            cluster.stop()
        redis.stop()
        postgres.stop("immediate")
        shutil.rmtree(postgres.data, ignore_errors=True)
        print(f"(the processes' logs are under {workdir})")


def _seed() -> tuple[str, dict[str, str], list[int]]:
    from django.db import connection
    from django_tenants.utils import schema_context

    from apps.accounts.models import User
    from apps.contacts import services as contact_services
    from apps.core import permissions
    from apps.mcp.testing import pat_and_key
    from apps.tenancy.services import workspace_create

    workspace = workspace_create(
        name="Load",
        domains=["127.0.0.1"],
        owner_email="owner@load.test",
        installed_areas=permissions.optional_area_keys(),
    )
    with schema_context(workspace.schema_name):
        owner = User.objects.get(email="owner@load.test")
        contact_ids = [
            contact_services.contact_create(
                actor=owner,
                fields={"first_name": f"Seed {n}", "email": f"seed-{n}@seed.test", "city": "Oslo"},
            )[0].pk
            for n in range(20)
        ]
    credentials = pat_and_key("owner@load.test", workspace.schema_name)
    connection.close()
    return workspace.schema_name, credentials, contact_ids


def _measure(
    args, mix, faults, cluster, postgres, redis, database_url, schema_name, credentials, contact_ids
):  # type: ignore[no-untyped-def]
    from apps.mcp.signals import notify_tools_changed

    sampler = MemorySampler(cluster_processes(cluster, redis), every=args.sample_every).start()
    load = Load(cluster.url(), credentials, contact_ids, clients=args.clients, mix=mix, timeout=args.timeout)
    print(f"load average before: {_loadavg()}; {args.clients} clients, mix {mix}", flush=True)
    load.start()
    try:
        time.sleep(10)  # warm-up: imports, caches, connections
        start = time.monotonic()
        time.sleep(args.seconds)
        end = time.monotonic()
        print(f"\n--- sustained load, {args.seconds:.0f} s (load average now {_loadavg()})")
        print(describe(load.between(start, end), end - start))
        print("resident memory (first minute -> last minute):")
        print("\n".join(sampler.report(start, end)))

        results = []
        if "redis" in faults:
            # A stream held across the restart must still get what is raised after it.
            from apps.mcp.testing import McpHttp

            watcher = McpHttp(cluster.url(), credentials)
            watcher.initialize()
            stream = watcher.stream()
            fault = fault_under_load(
                load,
                "redis restart",
                lambda: restart_redis(redis, args.redis_down),
                before=5,
                after=args.after,
            )
            results.append(fault)
            print(f"\n--- {fault.describe()}")
            told = time.monotonic()
            notify_tools_changed(schema_name=schema_name, user_ids=None)
            try:
                stream.next_event(timeout=30)
                waited = time.monotonic() - told
                print(f"  the stream held across the restart got the notification {waited:.2f} s later")
            except Exception:
                print("  the stream held across the restart got NO notification within 30 s")
            stream.close()
            watcher.close()
            print(f"  {_worker_takes_a_task(cluster)}")
        if "postgres" in faults:
            fault = fault_under_load(
                load,
                "postgresql restart",
                lambda: restart_postgres(postgres, args.postgres_down),
                before=5,
                after=args.after,
            )
            results.append(fault)
            print(f"\n--- {fault.describe()}")
    finally:
        outcomes = load.stop()
        sampler.stop()
    print(f"\nthe door's own count ({METRIC}, door mcp, summed over every process): {_tool_calls(cluster)}")
    for fault in results:
        for outcome in fault.unclean[:5]:
            print(f"  unclean: {outcome.op} {outcome.kind} {outcome.status} {outcome.detail[:150]}")
    missing, phantom = half_written(outcomes, database_url, schema_name)
    ok, failed, unknown = ledger(outcomes)
    print(
        f"\ncreateContact ledger: {len(ok)} answered success, {len(failed)} answered failure, "
        f"{len(unknown)} without answer; success but missing: {len(missing)}; failure but stored: "
        f"{len(phantom)}"
    )
    print(f"whole run: {describe(outcomes, outcomes[-1].ended - outcomes[0].at)}")
    print(f"load average after: {_loadavg()}")


def _scrape(cluster: Any) -> list[Any]:
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(
        f"{cluster.webs[0].url()}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10
    ).text
    return [sample for family in text_string_to_metric_families(text) for sample in family.samples]


def _tool_calls(cluster: Any) -> dict[str, float]:
    counts: Counter = Counter()
    for sample in _scrape(cluster):
        if sample.name == METRIC and sample.labels.get("door") == "mcp":
            counts[sample.labels["outcome"]] += sample.value
    return dict(sorted(counts.items()))


def _worker_takes_a_task(cluster: Any) -> str:
    """Sends a real task through the restarted broker; the workers' metrics say when it ran."""
    from config.celery import app

    def done() -> float:
        return sum(
            sample.value
            for sample in _scrape(cluster)
            if sample.name == "atrium_celery_tasks_total" and sample.labels.get("task") == PURGE_TASK
        )

    before, sent = done(), time.monotonic()
    app.send_task(PURGE_TASK)
    while time.monotonic() - sent < 60:
        if done() > before:
            return f"a task sent after the restart ran {time.monotonic() - sent:.2f} s later"
        time.sleep(0.2)
    return "a task sent after the restart did NOT run within 60 s"


def _loadavg() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())
