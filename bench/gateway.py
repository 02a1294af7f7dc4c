"""The message gateway: how fast `POST /api/agent` accepts, against a minimal authenticated DRF
endpoint of the same server in the same run (goal: at least 0.5 of its requests per second), and
how long a webhook takes to arrive once its conversation is resolved (goal: p50 under 100 ms).

1. Acceptance. One web process (`config.settings.bench`), no worker: what is measured is the
   202, not the agent. wrk (C, so the load generator takes little of the 2 cores) with N
   connections, 10 s per round, rounds alternating `GET /api/me` (DRF, personal access token:
   the smallest authenticated endpoint of the server) and `POST /api/agent` (personal access token
   + API key with a monthly budget, so the budget is looked at, validation, the conversation and
   its first turn written, the agent's task sent to Redis); medians of the rounds.
2. Webhook latency. The same server, one Celery worker (prefork, one process), a receiver on
   loopback; conversations sent one at a time, each answered by the built-in agent (`Find
   contacts named Ada`, one tool call). For each: the time from the conversation's `resolved_at`
   (written by the worker) to the webhook's arrival at the receiver, and from the POST to the
   webhook's arrival.
"""

import argparse
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
import uuid
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

from bench import common


def wrk_run(
    wrk: str,
    url: str,
    *,
    method: str,
    headers: dict[str, str],
    body: dict | None,
    connections: int,
    seconds: int,
) -> dict:
    script = common.wrk_script(method=method, headers=headers, body=body)
    figures = common.wrk_run(wrk, url, script, threads=2, connections=connections, seconds=seconds)
    return {
        "rate": figures.rate,
        "p50": common.milliseconds(figures.p50),
        "p99": common.milliseconds(figures.p99),
    }


class Arrivals:
    """What the receiver got: conversation uuid -> (arrival time, body)."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[float, dict]] = {}
        self.changed = threading.Condition()

    def wait_for(self, conversation_uuid: str, timeout: float = 60) -> tuple[float, dict]:
        deadline = time.monotonic() + timeout
        with self.changed:
            while conversation_uuid not in self.seen:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"no webhook for {conversation_uuid} within {timeout} s")
                self.changed.wait(left)
            return self.seen[conversation_uuid]


def start_receiver(arrivals: Arrivals) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            arrived = time.time()
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            event = json.loads(body)
            with arrivals.changed:
                arrivals.seen[event["conversation_uuid"]] = (arrived, event)
                arrivals.changed.notify_all()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def load() -> str:
    return "(" + ", ".join(f"{value:.1f}" for value in os.getloadavg()) + ")"


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench gateway")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--conversations", type=int, default=100, help="for the webhook latency")
    args, _ = parser.parse_known_args(argv)
    from bench.common import ensure_wrk

    wrk = ensure_wrk()

    # The bench's own Redis database (the acceptance phase leaves thousands of tasks there), and
    # webhooks to a receiver on loopback.
    redis_parts = urlsplit(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    os.environ["REDIS_URL"] = urlunsplit(redis_parts._replace(path="/14"))
    os.environ["ATRIUM_WEBHOOKS_ALLOW_LOOPBACK"] = "1"
    os.environ["ATRIUM_GATEWAY_MODEL_BACKEND"] = ""

    from bench.common import summary, use_fresh_database

    database_url = use_fresh_database()
    import logging

    import redis
    from django.conf import settings
    from django.db import connection
    from django_tenants.utils import schema_context

    from apps.accounts.services import access_token_create
    from apps.apikeys.services import api_key_create
    from apps.contacts import services as contact_services
    from apps.core import permissions
    from apps.core.testing import start_celery_worker, start_web
    from apps.tenancy.services import workspace_create

    logging.disable(logging.INFO)
    broker = redis.Redis.from_url(settings.REDIS_URL)
    broker.flushdb()
    workspace = workspace_create(
        name="Bench",
        domains=["127.0.0.1"],
        owner_email="owner@bench.test",
        installed_areas=permissions.optional_area_keys(),
    )
    arrivals = Arrivals()
    receiver = start_receiver(arrivals)
    with schema_context(workspace.schema_name):
        from apps.accounts.models import User

        owner = User.objects.get(email="owner@bench.test")
        contact_services.contact_create(
            actor=owner, fields={"first_name": "Ada", "last_name": "Lovelace", "email": "ada@bench.test"}
        )
        _token, raw_token = access_token_create(user=owner, name="bench")
        accepting = api_key_create(
            user=owner, label="bench acceptance", budget_usd_cents=1_000_000, budget_period="monthly"
        )
        hooked = api_key_create(
            user=owner,
            label="bench webhooks",
            budget_usd_cents=1_000_000,
            budget_period="monthly",
            response_url=f"http://127.0.0.1:{receiver.server_address[1]}/hooks",
        )
    connection.close()

    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings.bench",
    }
    bearer = {"Authorization": f"Bearer {raw_token}"}
    agent_headers = {**bearer, "X-Api-Key": accepting.raw_key, "Content-Type": "application/json"}
    message = {
        "message": "Find contacts named Ada",
        "context": {"entity_type": "contact", "action": "search"},
    }
    workdir = Path(tempfile.mkdtemp(prefix="bench-gateway-"))
    server = start_web(env, log=workdir / "web.log")
    worker = None
    try:
        base = server.url()
        doors = {
            "GET /api/me": dict(url=f"{base}/api/me", method="GET", headers=bearer, body=None),
            "POST /api/agent": dict(
                url=f"{base}/api/agent", method="POST", headers=agent_headers, body=message
            ),
        }
        with httpx.Client(timeout=30) as http:
            me = http.get(f"{base}/api/me", headers=bearer)
            assert me.status_code == 200, me.text
            accepted = http.post(f"{base}/api/agent", headers=agent_headers, json=message)
            assert accepted.status_code == 202, accepted.text
        print(
            f"acceptance: wrk, {args.connections} connections, {args.seconds} s rounds; "
            f"load (1, 5, 15 min) {load()}"
        )
        for door in doors.values():  # warm up: imports, caches, connections
            wrk_run(
                wrk,
                door["url"],
                method=door["method"],
                headers=door["headers"],
                body=door["body"],
                connections=args.connections,
                seconds=2,
            )
        results: dict[str, list[dict]] = {name: [] for name in doors}
        for _round in range(args.rounds):
            for name, door in doors.items():
                outcome = wrk_run(
                    wrk,
                    door["url"],
                    method=door["method"],
                    headers=door["headers"],
                    body=door["body"],
                    connections=args.connections,
                    seconds=args.seconds,
                )
                results[name].append(outcome)
                print(
                    f"  {name:16} {outcome['rate']:7.0f} req/s  p50 {outcome['p50']:7.1f} ms  "
                    f"p99 {outcome['p99']:7.1f} ms   load {load()}",
                    flush=True,
                )
        medians = {
            name: {field: statistics.median(r[field] for r in rows) for field in ("rate", "p50", "p99")}
            for name, rows in results.items()
        }
        for name, figures in medians.items():
            print(
                f"  median {name:16} {figures['rate']:7.0f} req/s  "
                f"p50 {figures['p50']:.1f} ms  p99 {figures['p99']:.1f} ms"
            )
        ratio = medians["POST /api/agent"]["rate"] / medians["GET /api/me"]["rate"]
        print(f"  ratio POST /api/agent / GET /api/me: {ratio:.2f} (goal >= 0.5)", flush=True)

        # The conversations accepted above are not wanted by the worker: their tasks go, and they too.
        broker.flushdb()
        with schema_context(workspace.schema_name):
            from apps.gateway.models import Conversation

            accepted_count = Conversation.objects.count()
            Conversation.objects.all().delete()
        connection.close()
        print(f"  ({accepted_count} conversations were accepted; removed before the webhook phase)")

        worker = start_celery_worker({**env, "ATRIUM_LOG_LEVEL": "INFO"}, workdir, "bench")
        hook_headers = {**bearer, "X-Api-Key": hooked.raw_key}
        posted: dict[str, float] = {}
        warm_up = 5
        print(
            f"webhooks: {args.conversations} conversations one at a time (+{warm_up} warm-up); load {load()}"
        )
        with httpx.Client(timeout=30) as http:
            for index in range(args.conversations + warm_up):
                sent = time.time()
                answer = http.post(f"{base}/api/agent", headers=hook_headers, json=message)
                assert answer.status_code == 202, answer.text
                conversation_uuid = answer.json()["conversation_uuid"]
                _arrived, event = arrivals.wait_for(conversation_uuid)
                assert event["status"] == "resolved", event
                if index >= warm_up:
                    posted[conversation_uuid] = sent
        with schema_context(workspace.schema_name):
            resolved = dict(
                Conversation.objects.filter(uuid__in=list(posted)).values_list("uuid", "resolved_at")
            )
        connection.close()
        after_resolving, end_to_end = [], []
        for conversation_uuid, sent in posted.items():
            arrived = arrivals.seen[conversation_uuid][0]
            resolved_at: datetime = resolved[uuid.UUID(conversation_uuid)]
            after_resolving.append(arrived - resolved_at.timestamp())
            end_to_end.append(arrived - sent)
        print(f"  resolved -> webhook arrived: {summary(after_resolving)}  (goal p50 < 100 ms)")
        print(f"  POST -> webhook arrived:     {summary(end_to_end)}")
        print(f"  load (1, 5, 15 min) after: {load()}")
    finally:
        if worker is not None:
            worker.stop()
        server.stop()
        receiver.shutdown()
        broker.flushdb()
        shutil.rmtree(workdir, ignore_errors=True)
