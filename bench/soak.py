"""A soak with faults, and nothing lost: `--minutes` (default 60) of steady mixed load over many
workspaces on the multi-process topology of deploy/ on one machine, with faults injected on a
schedule, then a check of every promise the service makes about what it was told.

Topology (`apps.core.testing.start_cluster`, loopback only): nginx in front of `--web` web
processes (round-robin), `--workers` Celery workers and a beat, on a PostgreSQL and a Redis of
their own (`PrivatePostgres`, `PrivateRedis`: restarting them disturbs nothing else). The
service's agent calls a model API on loopback (bench.load.model_server), and every workspace's
gateway key sends its webhooks to a receiver on loopback (`FlakyReceiver`).

Load (bench.load.Load, the `load` benchmark's clients): `--clients` closed-loop clients spread over
`--workspaces` workspaces (each client holds a seat in several; every workspace has a seat), each
seat speaking one of the three MCP revisions (2025-06-18 and 2025-11-25 with a session, 2026-07-28
stateless), sending tools/list, getContact, listContacts (reads), createContact, updateContact
(writes), file uploads and downloads (createFileEntity, downloadFileEntity: random bytes, checked
on the way back), OAuth refreshes (each workspace's public client, its refresh token rotated at
each) and gateway posts and polls. The first `--tight` workspaces' keys have a budget of
`--tight-cents` (spent within minutes: the budget is enforced under the faults), the others a large one.
Scheduled work: every workspace has a scheduled task (apps.tasks.schedules) due every 15 minutes
from a moment of its own in the run's first minutes, which the beat's sweeper runs.

Faults, at fixed fractions of the run (windows proportional to `--minutes`; `schedule`):
a web process killed (SIGKILL) and started again on its port; a Celery worker killed with its
pool, mid-task, and replaced; Redis restarted; PostgreSQL restarted (fast shutdown); the webhook
receiver answering 500 for 10 minutes of 60 (a sixth of the run); a slow database (an exclusive
lock on a few workspaces' contacts table held 30 s, at least 10 s in shorter runs).

Checked and reported (`Soak.check`, bench/promises.py: a list of problems per promise, empty when kept):
- conversations: every accepted one ended (resolved or failed), none left open, once the backlog
  the load left had drained (the settling waits while conversations keep ending, up to
  SETTLE_LIMIT; one that stopped moving is what this names); webhooks: each
  conversation's webhook went out under one delivery id and was delivered once its receiver was
  back (or is in the delivery log with its attempts);
- writes: every createContact, file upload and gateway post a client was told succeeded is
  stored, none it was told failed is (per workspace, read from PostgreSQL directly), and every
  file downloaded had the bytes uploaded;
- OAuth: no refresh token a client was told was good (or that a refused refresh left as it was)
  is ever refused, and each still works once the run is over (a refresh whose answer was lost
  leaves its client signing in again: counted, not a failure);
- scheduled work: each occurrence of a workspace's schedule that came due while the cluster ran
  was run once: never skipped, never twice;
- budgets: no key spent more than its budget, none still holds a reservation, and each key's
  spend is the sum of its conversations' costs (no usage lost);
- 5xx: none outside the fault windows (counts inside each), latency p50/p99 outside them;
- processes: resident memory and database connections of every process, first quarter against
  last (since its last start); a process that ran 20 minutes or more and grew by more than 15 % and
  48 MiB from the second quarter to the last (the first is warm-up) is a leak (`promises.leaked`;
  a shorter run is reported, not judged); and the most connections held at once against PostgreSQL's
  `max_connections`; each web process within its ceiling (ATRIUM_DATABASE_MAX_CONNECTIONS 16 and
  the event loop's 4: the cluster runs with the documented settings), and docs/deploy.md's
  deployment within its max_connections 300, at its worst case (`worst_case`) and as measured.

    make bench ARGS="soak"                     # 60 minutes
    make bench ARGS="soak --minutes 5"         # the same schedule, shrunk
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from bench.faults import (
    Fault,
    hold_locks,
    kill_worker,
    restart_postgres,
    restart_redis,
    restart_web,
)
from bench.load import (
    DEFAULT_MIX,
    REVISIONS,
    Load,
    OAuthGrant,
    Outcome,
    Tenant,
    describe,
    describe_conversations,
    model_env,
    model_server,
    percentile,
)
from bench.promises import RECOVERY, Promises, Window
from bench.sampler import (
    MemorySampler,
    cluster_processes,
)

# The gateway, fast (production: sweeps every 30 s, an open conversation queued again after
# 120 s, webhook retries after 5 s, 5 min, 30 min...): what a fault leaves behind ends within a
# run. The retry schedule is made long enough to outlast the receiver's failing window (`retries`).
GATEWAY = {
    "ATRIUM_GATEWAY_STUCK_SWEEP_SECONDS": "1",
    "ATRIUM_GATEWAY_REQUEUE_AFTER_SECONDS": "3",
    "ATRIUM_GATEWAY_LEASE_MARGIN_SECONDS": "2",
    "ATRIUM_GATEWAY_MODEL_TIMEOUT_SECONDS": "5",
    "ATRIUM_GATEWAY_MODEL_RETRIES": "1",
    "ATRIUM_GATEWAY_MODEL_MAX_TOKENS": "1000",
    "ATRIUM_GATEWAY_WEBHOOK_SWEEP_SECONDS": "2",
    "ATRIUM_GATEWAY_WEBHOOK_TIMEOUT_SECONDS": "5",
    "ATRIUM_GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS": "2",
    "ATRIUM_WEBHOOKS_ALLOW_LOOPBACK": "1",
}
RETRY_EVERY = 15  # seconds between webhook retries once the first few are spent
# The cluster runs with the documented ceiling, so the soak checks what the arithmetic assumes.
DATABASE = {"ATRIUM_DATABASE_MAX_CONNECTIONS": "16", "ATRIUM_SERVE_ON_LOOP_CONNECTIONS": "4"}
# However long the backlog of conversations takes to drain once the load stops, as long as it
# keeps moving (Load.settle): at most this long.
SETTLE_LIMIT = 1800.0
# The load's mix, with files stored and read back.
SOAK_MIX = {**DEFAULT_MIX, "files/upload": 1, "files/download": 1, "oauth/refresh": 1}
# Each workspace's scheduled task: first due this long after the workspace was made, then every
# 15 minutes (the shortest rule apps.tasks.schedules takes); the workspaces made one after another
# spread the first occurrences over the run's first minutes.
SCHEDULE_FIRST = 120.0
SCHEDULE_TITLE = "Soak schedule"
HOST_DOMAIN = "soak.test"
LOCKED_TABLE = "contacts_contact"


def schedule_rule(minute: int) -> str:
    """Every 15 minutes from `minute` past the hour (at the first occurrence's second): the most
    often apps.tasks.schedules runs a task (it takes no MINUTELY rule)."""
    minutes = ",".join(str(m) for m in sorted((minute + 15 * k) % 60 for k in range(4)))
    return f"FREQ=HOURLY;BYMINUTE={minutes}"


def retries(window: float) -> str:
    """ATRIUM_GATEWAY_WEBHOOK_RETRY_SCHEDULE outlasting a receiver that fails for `window` s."""
    return ",".join(str(step) for step in [2, 4, 8] + [RETRY_EVERY] * (math.ceil(window / RETRY_EVERY) + 3))


# --- the schedule -------------------------------------------------------------------------------


@dataclass
class Planned:
    name: str
    at: float  # seconds after the load's start
    length: float = 0.0  # for a window: how long it lasts


def schedule(minutes: float) -> list[Planned]:
    """The faults of a run of `minutes`, at fixed fractions of it: each dependency fault alone,
    with time to recover before the next one; the receiver's failing window is 10 minutes of 60,
    the slow database's lock 30 s (at least 10 s)."""
    seconds = minutes * 60
    return [
        Planned("web process killed", 0.10 * seconds),
        Planned("worker killed", 0.20 * seconds),
        Planned("redis restart", 0.30 * seconds),
        Planned("postgresql restart", 0.40 * seconds),
        Planned("webhook receiver 500", 0.48 * seconds, seconds / 6),
        Planned("slow database", 0.70 * seconds, max(10.0, 30.0 * minutes / 60)),
    ]


# --- the webhook receiver -----------------------------------------------------------------------


@dataclass
class Delivery:
    conversation: str
    webhook_id: str
    status: int  # what the receiver answered
    at: float  # time.monotonic()


class FlakyReceiver:
    """A webhook receiver on loopback (real HTTP) answering 200, or 500 while `failing` is set;
    records every delivery with the status it got."""

    def __init__(self) -> None:
        from apps.gateway.tests.servers import Receiver

        receiver = self

        class Server(Receiver):
            def _handler(self) -> type[BaseHTTPRequestHandler]:
                class Handler(BaseHTTPRequestHandler):
                    def log_message(self, *args: Any) -> None:
                        pass

                    def do_POST(self) -> None:
                        self.rfile.read(int(self.headers.get("Content-Length") or 0))
                        status = 500 if receiver.failing.is_set() else 200
                        with receiver.lock:
                            receiver.deliveries.append(
                                Delivery(
                                    self.headers.get("X-Conversation-UUID", ""),
                                    self.headers.get("webhook-id", ""),
                                    status,
                                    time.monotonic(),
                                )
                            )
                        try:
                            self.send_response(status)
                            self.send_header("Content-Type", "application/json")
                            self.send_header("Content-Length", "2")
                            self.end_headers()
                            self.wfile.write(b"{}")
                        except OSError:
                            pass

                return Handler

        self.failing = threading.Event()
        self.lock = threading.Lock()
        self.deliveries: list[Delivery] = []
        self.server = Server().start()

    @property
    def url(self) -> str:
        return self.server.url

    def stop(self) -> None:
        self.server.stop()


# --- the workspaces -----------------------------------------------------------------------------


def seed(
    count: int, receiver_url: str, budget_cents: int, tight: int, tight_cents: int
) -> list[dict[str, Any]]:
    """`count` workspaces (copies of the template), each with an owner, 5 contacts, a personal
    access token, an API key, and a gateway key whose webhooks go to `receiver_url` (budget:
    `tight_cents` for the first `tight`, `budget_cents` for the others). Runs in the process whose
    database is the cluster's (`seed_in`)."""
    import secrets
    import uuid
    from datetime import timedelta

    from django.db import connection, transaction
    from django.utils import timezone
    from django_tenants.utils import schema_context
    from oauth2_provider.models import (
        get_access_token_model,
        get_application_model,
        get_refresh_token_model,
        set_token_value,
    )

    from apps.accounts.models import User
    from apps.accounts.services import access_token_create
    from apps.apikeys.services import api_key_create
    from apps.contacts import services as contact_services
    from apps.oauth import resource
    from apps.oauth.models import Connection
    from apps.tasks import schedules
    from apps.tasks import services as task_services
    from apps.tenancy.services import workspace_create

    seeded = []
    for index in range(count):
        host = f"w{index:03d}.{HOST_DOMAIN}"
        email = f"owner@{host}"
        workspace = workspace_create(name=f"Soak {index}", domains=[host], owner_email=email)
        with schema_context(workspace.schema_name):
            owner = User.objects.get(email=email)
            contact_ids = [
                contact_services.contact_create(
                    actor=owner,
                    fields={"first_name": f"Seed {n}", "email": f"seed-{n}@{host}", "city": "Oslo"},
                )[0].pk
                for n in range(5)
            ]
            _token, raw = access_token_create(user=owner, name="soak")
            key = api_key_create(user=owner, label="soak mcp")
            budget = tight_cents if index < tight else budget_cents
            gateway = api_key_create(
                user=owner,
                label="soak gateway",
                response_url=receiver_url,
                budget_usd_cents=budget,
                budget_period="total",
            )
            with transaction.atomic():
                task = task_services.task_create(
                    actor=owner, fields={"title": SCHEDULE_TITLE}, steps=[{"title": "Look at the inbox"}]
                )
                first = (timezone.now() + timedelta(seconds=SCHEDULE_FIRST)).replace(microsecond=0)
                schedule = schedules.schedule_set(
                    actor=owner, task=task, rule=schedule_rule(first.minute), starts_at=first, time_zone="UTC"
                )
            # An OAuth client the owner allowed, as after the consent: a short-lived access token
            # bound to the workspace's MCP endpoint, and a refresh token to rotate.
            application = get_application_model().objects.create(
                name="Soak client",
                client_type="public",
                authorization_grant_type="authorization-code",
                redirect_uris="http://127.0.0.1:9/cb",
                registration_source="dcr",
            )
            bound_to = [resource.resource_for(f"http://{host}")]
            access = get_access_token_model()(
                user=owner,
                application=application,
                scope="mcp offline_access",
                resource=bound_to,
                expires=timezone.now() + timedelta(hours=1),
            )
            set_token_value(access, secrets.token_urlsafe(24))
            access.save()
            refresh_raw = secrets.token_urlsafe(24)
            refresh = get_refresh_token_model()(
                user=owner,
                application=application,
                access_token=access,
                token_family=uuid.uuid4(),
                resource=bound_to,
            )
            set_token_value(refresh, refresh_raw)
            refresh.save()
            Connection.objects.create(user=owner, application=application, scope="mcp offline_access")
        bearer = {"Authorization": f"Bearer {raw}", "Host": host}
        seeded.append(
            {
                "schema_name": workspace.schema_name,
                "credentials": {**bearer, "X-Api-Key": key.raw_key},
                "gateway": {**bearer, "X-Api-Key": gateway.raw_key},
                "contact_ids": contact_ids,
                "key_id": gateway.key.pk,
                "schedule_id": schedule.pk,
                "oauth": {"client_id": application.client_id, "refresh_token": refresh_raw},
            }
        )
    connection.close()
    return seeded


def seed_in(
    env: dict[str, str], count: int, receiver_url: str, budget: tuple[int, int, int]
) -> list[dict[str, Any]]:
    """`seed` in a process of its own on `env`'s database (the copy the cluster runs on)."""
    budget_cents, tight, tight_cents = budget
    call = f"seed({count}, {receiver_url!r}, {budget_cents}, {tight}, {tight_cents})"
    code = "import json, django; django.setup(); from bench.soak import seed; "
    code += f"print('SEEDED', json.dumps({call}))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        check=False,
    )
    for line in done.stdout.splitlines():
        if line.startswith("SEEDED "):
            return json.loads(line[len("SEEDED ") :])  # type: ignore[no-any-return]
    raise RuntimeError(f"seeding the workspaces failed: {done.stdout[-2000:]}\n{done.stderr[-4000:]}")


# --- the soak -----------------------------------------------------------------------------------


@dataclass
class Soak(Promises):
    """Everything a soak runs on; `run` drives the load and the faults, `check` reads the promises."""

    cluster: Any
    postgres: Any
    redis: Any
    model: Any
    receiver: FlakyReceiver
    database_url: str
    seeded: list[dict[str, Any]]
    clients: int = 8
    mix: dict[str, int] = field(default_factory=lambda: dict(SOAK_MIX))
    timeout: float = 45.0
    sample_every: float = 5.0
    locked_workspaces: int = 3
    windows: list[Window] = field(default_factory=list)
    started: dict[str, float] = field(default_factory=dict)  # process -> when it last started
    outcomes: list[Outcome] = field(default_factory=list)
    load: Load | None = None
    sampler: MemorySampler | None = None
    span: tuple[float, float] = (0.0, 0.0)
    settled_after: float = 0.0
    final_refreshes: dict[str, str] = field(default_factory=dict)  # schema -> kind of its last refresh
    log: Callable[[str], None] = print

    def tenants(self) -> list[Tenant]:
        return [
            Tenant(
                item["schema_name"],
                item["credentials"],
                item["contact_ids"],
                item["gateway"],
                OAuthGrant(**item["oauth"]) if item.get("oauth") else None,
            )
            for item in self.seeded
        ]

    def run(self, minutes: float, grace: float) -> None:
        plan = schedule(minutes)
        processes = cluster_processes(self.cluster, self.redis)
        self.sampler = MemorySampler(processes, self.sample_every, database_port=self.postgres.port).start()
        self.load = Load(
            self.cluster.url(),
            {},
            [],
            clients=self.clients,
            mix=self.mix,
            timeout=self.timeout,
            tenants=self.tenants(),
            revisions=REVISIONS,
        ).start()
        start = time.monotonic()
        self.started = dict.fromkeys(processes, start)
        self.log(f"load: {self.clients} clients over {len(self.seeded)} workspaces, {minutes:g} minutes")
        try:
            for planned in plan:
                time.sleep(max(0.0, start + planned.at - time.monotonic()))
                window = self._inject(planned)
                self.windows.append(window)
                took, at = window.end - window.start, window.start - start
                self.log(f"  {window.name}: {took:.1f} s (at {at:.0f} s)")
            time.sleep(max(0.0, start + minutes * 60 - time.monotonic()))
        finally:
            end = time.monotonic()
            self.outcomes = self.load.stop()
            self.sampler.stop()
            self.span = (start, end)
        for window in self.windows:
            if window.fault is not None:
                window.fault.outcomes = self.load.between(window.start - 1.0, window.end + RECOVERY)
        self.settled_after = self.load.settle(grace, webhooks=True, limit=SETTLE_LIMIT)
        self._await_schedules()
        self._refresh_once_more()

    def _inject(self, planned: Planned) -> Window:
        cluster, sampler = self.cluster, self.sampler
        assert sampler is not None
        if planned.name == "web process killed":
            down, up = restart_web(cluster, 0)
            self._restarted("web1", cluster.webs[0].process.pid)
        elif planned.name == "worker killed":
            down, up = kill_worker(cluster, 0)
            self._restarted(cluster.workers[0].name, cluster.workers[0].pid)
        elif planned.name == "redis restart":
            down, up = restart_redis(self.redis, 2.0)
            self._restarted("redis", self.redis.process.pid)
        elif planned.name == "postgresql restart":
            down, up = restart_postgres(self.postgres, 5.0)
        elif planned.name == "webhook receiver 500":
            down = time.monotonic()
            self.receiver.failing.set()
            time.sleep(planned.length)
            self.receiver.failing.clear()
            up = time.monotonic()
        elif planned.name == "slow database":
            tables = [(item["schema_name"], LOCKED_TABLE) for item in self.seeded[: self.locked_workspaces]]
            down, up = hold_locks(self.database_url, tables, planned.length)
        else:
            raise ValueError(planned.name)
        return Window(planned.name, down, up, Fault(planned.name, down, up))

    def _restarted(self, name: str, pid: int) -> None:
        assert self.sampler is not None
        self.sampler.processes[name] = pid
        self.started[name] = time.monotonic()

    # --- the promises ---------------------------------------------------------------------------

    def report(self) -> str:
        assert self.load is not None
        start, end = self.span
        conversations = list(self.load.conversations.values())
        lines = [f"whole run: {describe(self.outcomes, end - start)}"]
        outside = self.outside()
        answered = [o.seconds for o in outside if o.kind not in {"timeout", "connection"}]
        lines.append(
            f"outside the fault windows: {len(outside)} requests, latency p50 "
            f"{percentile(answered, 0.5) * 1000:.0f} ms, p99 {percentile(answered, 0.99) * 1000:.0f} ms; "
            "HTTP 5xx "
            f"{sum(1 for o in outside if o.status is not None and o.status >= 500)}"
        )
        revisions = Counter((o.revision, o.kind) for o in self.outcomes if o.revision)
        lines.append(f"MCP requests by revision and kind: {dict(sorted(revisions.items()))}")
        lines.append("faults (each window: its start to 15 s after its end):")
        for window in self.windows:
            inside = [o for o in self.outcomes if window.holds(o)]
            five = Counter(o.status for o in inside if o.status is not None and o.status >= 500)
            kinds = Counter(o.kind for o in inside if o.kind != "ok")
            took = [o.seconds for o in inside if o.kind not in {"timeout", "connection"}]
            text = (
                f"  {window.name}: {window.end - window.start:.1f} s; {len(inside)} requests, HTTP 5xx "
                f"{sum(five.values())} {dict(sorted(five.items()))}, failures {dict(sorted(kinds.items()))}, "
                f"p99 {percentile(took, 0.99) * 1000:.0f} ms"
            )
            if window.fault is not None and window.fault.failures:
                text += f"; all answered again {window.fault.recovery_seconds:.1f} s after it ended"
            lines.append(text)
        answered = Counter(d.status for d in self.receiver.deliveries)
        lines.append(
            f"conversations (after {self.settled_after:.0f} s of settling): "
            f"{describe_conversations(conversations)}"
        )
        webhook = Counter(item.webhook.get("status") for item in conversations)
        lines.append(
            f"webhooks: {dict(sorted(webhook.items(), key=str))}; the receiver got "
            f"{len(self.receiver.deliveries)} deliveries, answered {dict(sorted(answered.items()))}"
        )
        rows = self.budgets()
        spent = sum(row[1] for row in rows)
        exhausted = sum(1 for row in rows if row[3] - row[1] < 10_000)
        lines.append(
            f"budgets: {spent} µUSD spent over {len(rows)} keys, {exhausted} with less than a cent left; the "
            f"model server answered {len(self.model.requests)} calls"
        )
        refreshes = Counter(o.kind for o in self.outcomes if o.op == "oauth/refresh")
        broken = sum(1 for seat in self.load.seats.values() if seat.oauth is not None and seat.oauth.broken)
        lines.append(
            f"oauth: refreshes {dict(sorted(refreshes.items()))}; {broken} clients to sign in again (an "
            f"answer lost to a fault), {sum(kind == 'ok' for kind in self.final_refreshes.values())} "
            "refreshed again after the run"
        )
        uploads = Counter(o.kind for o in self.outcomes if o.op == "files/upload")
        downloads = Counter(o.kind for o in self.outcomes if o.op == "files/download")
        lines.append(
            f"files: uploads {dict(sorted(uploads.items()))}, downloads {dict(sorted(downloads.items()))}"
        )
        runs = [run for _schema, _first, found in self.schedule_runs() for run in found]
        statuses = Counter(status for _due, status in runs)
        lines.append(
            f"scheduled work: {len(runs)} runs of {len(self.seeded)} schedules, "
            f"{dict(sorted(statuses.items()))}"
        )
        lines.append("memory, since each process's last start (first quarter -> last quarter):")
        lines += self.flat()
        lines.append("database connections per process (most held, first quarter -> last quarter):")
        lines += self._connections()[0]
        for promise, problems in self.check().items():
            verdict = "kept" if not problems else f"BROKEN ({len(problems)}): " + "; ".join(problems[:5])
            lines.append(f"promise, {promise}: {verdict}")
        return "\n".join(lines)


def cluster_env(
    database_url: str, redis_url: str, model: Any, minutes: float, settings_module: str
) -> dict[str, str]:
    window = schedule(minutes)[4].length
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "DJANGO_SETTINGS_MODULE": settings_module,
        **model_env(model),
        **GATEWAY,
        **DATABASE,
        "ATRIUM_GATEWAY_WEBHOOK_RETRY_SCHEDULE": retries(window),
    }


def settle_grace() -> float:
    """How long conversations and webhooks get to end once the load stops: a lease a killed
    worker held runs out (a tool's, 60 s, + 2 s margin), the sweeper queues it again; a webhook
    retry is at most RETRY_EVERY away."""
    from apps.gateway.agent.context import TOOL_LEASE_SECONDS

    return TOOL_LEASE_SECONDS + 2 + 2 * RETRY_EVERY + 30


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench soak")
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--workspaces", type=int, default=50)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--web", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--model-delay", type=float, default=0.1)
    parser.add_argument("--tight", type=int, default=5, help="workspaces whose key has a small budget")
    parser.add_argument("--tight-cents", type=int, default=1, help="that small budget (cents)")
    args, _ = parser.parse_known_args(argv)

    from apps.core.testing import PrivatePostgres, PrivateRedis, start_cluster
    from bench.common import freeze_setup_heap, use_fresh_database

    workdir = Path(tempfile.mkdtemp(prefix="atrium-soak-"))
    postgres = PrivatePostgres(workdir / "postgres").start()
    redis = PrivateRedis(workdir / "redis").start()
    model = model_server(args.model_delay)
    receiver = FlakyReceiver()
    cluster = None
    try:
        os.environ["DATABASE_URL"] = postgres.url("postgres")
        os.environ["REDIS_URL"] = redis.url()
        print("(migrating a fresh database: about a minute)", flush=True)
        database_url = use_fresh_database("atrium_soak")
        env = cluster_env(database_url, redis.url(), model, args.minutes, "config.settings.bench")
        began = time.monotonic()
        seeded = seed_in(env, args.workspaces, receiver.url, (100_000, args.tight, args.tight_cents))
        print(f"({args.workspaces} workspaces made in {time.monotonic() - began:.0f} s)", flush=True)
        cluster = start_cluster(env, workdir / "cluster", web=args.web, workers=args.workers, beat=True)
        freeze_setup_heap()
        soak = Soak(cluster, postgres, redis, model, receiver, database_url, seeded, clients=args.clients)
        soak.run(args.minutes, settle_grace())
        print(f"\n--- soak, {args.minutes:g} minutes, load average after {os.getloadavg()}")
        print(soak.report())
    finally:
        if cluster is not None:
            cluster.stop()
        receiver.stop()
        model.stop()
        redis.stop()
        postgres.stop("immediate")
        shutil.rmtree(postgres.data, ignore_errors=True)
        print(f"(the processes' logs are under {workdir})")
