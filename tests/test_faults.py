"""Load and faults, the small version of `make bench ARGS="load"` (bench/load.py, same code):
two Daphne processes behind nginx and a Celery worker, on a PostgreSQL and a Redis of their own
(a copy of the test database: restarting them disturbs nothing else), under a few seconds of
mixed MCP calls (list, read, write) from several clients:

- Redis restarted: the service recovers by itself within seconds, a stream held across the
  restart still gets what is raised after it, the worker takes tasks again;
- PostgreSQL restarted: while it is down requests fail cleanly (503 in SPEC 7.1's format, or a
  tool error saying nothing was changed for a call already running), never another 5xx or a
  hang; they succeed once it is back; nothing is half-written.

The tests share the cluster and run in order.
"""

import os
import secrets
import time

import httpx
import pytest
from celery import Celery
from django.db import connection
from django_tenants.utils import schema_context

from apps.core.testing import PrivatePostgres, PrivateRedis, database_url, start_cluster
from apps.mcp.testing import McpHttp, pat_and_key
from bench.load import (
    CLEAN_FAILURES,
    Load,
    fault_under_load,
    half_written,
    ledger,
    restart_postgres,
    restart_redis,
)

pytestmark = pytest.mark.live

CLIENTS = 4
# Bounds on a shared 2-core machine (the benchmark records the real figures).
REDIS_RECOVERY_BOUND = 10.0
POSTGRES_RECOVERY_BOUND = 10.0
POSTGRES_DOWN = 3.0
REDIS_DOWN = 2.0


class Setup:
    def __init__(self, cluster, postgres, redis, url, credentials, person_id, contact_ids):  # type: ignore[no-untyped-def]
        self.cluster = cluster
        self.postgres = postgres
        self.redis = redis
        self.database_url = url
        self.credentials = credentials
        self.person_id = person_id
        self.contact_ids = contact_ids
        self.outcomes: list = []

    def load(self) -> Load:
        return Load(self.cluster.url(), self.credentials, self.contact_ids, clients=CLIENTS, timeout=15)


@pytest.fixture(scope="module")
def setup(django_db_setup, django_db_blocker, tmp_path_factory):  # type: ignore[no-untyped-def]
    from apps.accounts.models import Role, User
    from apps.contacts import services as contact_services

    with django_db_blocker.unblock():
        with schema_context("acme"):
            person = User.objects.create_user(
                email=f"faults-{secrets.token_hex(4)}@acme.example", role=Role.objects.get(key="member")
            )
            contact_ids = [
                contact_services.contact_create(
                    actor=person, fields={"first_name": f"Seed {n}", "email": f"faults-seed-{n}@example.com"}
                )[0].pk
                for n in range(5)
            ]
        credentials = pat_and_key(person.email)
        connection.set_schema_to_public()
        source = database_url()
    workdir = tmp_path_factory.mktemp("faults")
    postgres = PrivatePostgres(workdir / "postgres").start()
    redis = PrivateRedis(workdir / "redis").start()
    cluster = None
    try:
        url = postgres.create_database("faults", copy_of=source)
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "REDIS_URL": redis.url(),
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
        }
        cluster = start_cluster(
            env, workdir / "cluster", web=2, workers=1, beat=False, celery_app="tests.cluster_app"
        )
        yield Setup(cluster, postgres, redis, url, credentials, person.pk, contact_ids)
    finally:
        if cluster is not None:
            cluster.stop()
        redis.stop()
        postgres.stop("immediate")
        with django_db_blocker.unblock(), schema_context("acme"):
            person.delete()


@pytest.fixture(scope="module")
def sender(setup):  # type: ignore[no-untyped-def]
    app = Celery("faults-client", broker=setup.redis.url(), set_as_current=False)
    yield app
    app.close()


def test_under_steady_load_every_request_succeeds_on_every_process(setup):
    load = setup.load().start()
    time.sleep(3)
    outcomes = load.stop()
    setup.outcomes += outcomes

    assert len(outcomes) > CLIENTS * 3
    assert [o for o in outcomes if o.kind != "ok"] == []
    assert {o.op for o in outcomes} == {
        "tools/list",
        "getContact",
        "listContacts",
        "createContact",
        "updateContact",
    }
    assert {o.upstream for o in outcomes} == {f"127.0.0.1:{web.port}" for web in setup.cluster.webs}


def answer_of(method: str, url: str, **kwargs) -> tuple[int, dict | None, dict]:  # type: ignore[no-untyped-def]
    """(status, JSON body or None, headers) without waiting for the end of a stream."""
    with httpx.Client(timeout=10) as http, http.stream(method, url, **kwargs) as response:
        if response.status_code == 200 and response.headers.get("content-type") == "text/event-stream":
            return 200, None, dict(response.headers)
        response.read()
        try:
            return response.status_code, response.json(), dict(response.headers)
        except ValueError:
            return response.status_code, None, dict(response.headers)


UNAVAILABLE = {
    "error": {"code": "UNAVAILABLE", "message": "The service is temporarily unavailable; try again shortly."}
}


def test_after_a_redis_restart_the_service_recovers_by_itself(setup, sender):
    watcher = McpHttp(setup.cluster.url(), setup.credentials)
    watcher.initialize()
    stream = watcher.stream()
    probes: dict = {}

    def while_down() -> None:
        # A new stream needs Redis (the Channels layer): refused cleanly, not a 500.
        probes["stream"] = answer_of(
            "GET", f"{setup.cluster.url()}/api/mcp", headers=watcher.headers(Accept="text/event-stream")
        )

    load = setup.load().start()
    try:
        fault = fault_under_load(
            load, "redis", lambda: restart_redis(setup.redis, REDIS_DOWN, while_down), before=1.5, after=4
        )
    finally:
        setup.outcomes += load.stop()
    try:
        # Raised in the worker once Redis is back: the worker took the task from the restarted
        # broker, and the stream held across the restart still gets what is published.
        sender.send_task("cluster.notify", args=["acme", [setup.person_id]])
        _event_id, message = stream.next_event(timeout=20)
    finally:
        stream.close()
        watcher.close()

    status, body, headers = probes["stream"]
    assert (status, body, headers["retry-after"]) == (503, UNAVAILABLE, "5")
    # Calls do not need Redis: they went on while it was down.
    assert fault.unclean == [], [(o.op, o.kind, o.status, o.detail) for o in fault.unclean]
    assert fault.failures == [], fault.describe()
    assert fault.recovery_seconds < REDIS_RECOVERY_BOUND, fault.describe()
    assert [o for o in fault.outcomes if o.at > fault.up_at + REDIS_RECOVERY_BOUND and o.kind != "ok"] == []
    assert message == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


def test_while_postgresql_restarts_requests_fail_cleanly_and_nothing_is_half_written(setup):
    base = setup.cluster.url()
    watcher = McpHttp(base, setup.credentials)
    watcher.initialize()
    watcher.close()
    probes: dict = {}

    def while_down() -> None:
        probes["mcp stream"] = answer_of(
            "GET", f"{base}/api/mcp", headers=watcher.headers(Accept="text/event-stream")
        )
        probes["json api"] = answer_of("GET", f"{base}/api/me", headers=setup.credentials)
        probes["oauth token"] = answer_of(
            "POST", f"{base}/oauth/token", data={"grant_type": "client_credentials", "client_id": "x"}
        )

    load = setup.load().start()
    try:
        fault = fault_under_load(
            load,
            "postgres",
            lambda: restart_postgres(setup.postgres, POSTGRES_DOWN, while_down),
            before=1.5,
            after=5,
        )
    finally:
        outcomes = load.stop()
        setup.outcomes += outcomes

    # While it was down, clients were told so: a 503 in SPEC 7.1's format (or, for a call already
    # running when it went, a tool error saying nothing was changed). No other 5xx, no hang.
    assert fault.unclean == [], [(o.op, o.kind, o.status, o.detail) for o in fault.unclean]
    during = [o for o in fault.outcomes if fault.down_at + 0.5 <= o.at < fault.up_at - 0.2]
    assert during and {o.kind for o in during} <= CLEAN_FAILURES | {"ok"}
    assert "unavailable" in {o.kind for o in during}
    assert all(o.seconds < 5 for o in during)
    tool_errors = [o for o in fault.failures if o.kind == "tool_error"]
    assert all("nothing was changed" in o.detail for o in tool_errors), tool_errors
    # The other doors too: SPEC 7.1's body, and when to try again.
    for name, (status, body, headers) in probes.items():
        assert (status, body, headers.get("retry-after")) == (503, UNAVAILABLE, "5"), name
    # Once it was back, every request succeeded again within the bound.
    assert fault.recovery_seconds < POSTGRES_RECOVERY_BOUND, fault.describe()
    assert [o for o in outcomes if o.at > fault.up_at + POSTGRES_RECOVERY_BOUND and o.kind != "ok"] == []
    # Nothing half-written, over everything these tests sent: each contact whose creation
    # answered success is there, none whose creation failed is.
    ok, failed, unknown = ledger(setup.outcomes)
    missing, phantom = half_written(setup.outcomes, setup.database_url, "acme")
    assert ok and failed and not unknown
    assert missing == set() and phantom == set()
