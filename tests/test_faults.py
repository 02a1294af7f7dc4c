"""Load and faults, the small version of `make bench ARGS="load"` (bench/load.py, same code):
two web processes behind nginx, a Celery worker and a beat, on a PostgreSQL and a Redis of
their own (a copy of the test database: restarting them disturbs nothing else), under a few
seconds of mixed MCP calls (list, read, write) and gateway posts and polls from several clients;
the service's agent calls a model API on loopback (bench.load.model_server) and pays from a key
with a budget:

- steady: every request succeeds, on every web process; every conversation is resolved, with
  its reply, its tool run once;
- Redis restarted: the service recovers by itself within seconds, a stream held across the
  restart still gets what is raised after it, the worker takes tasks again; a message posted
  while Redis was down is accepted, and no conversation is lost (each ends resolved);
- PostgreSQL restarted: while it is down requests fail cleanly (503 in SPEC 7.1's format, or a
  tool error saying nothing was changed for a call already running), never another 5xx or a
  hang; they succeed once it is back; nothing is half-written (contacts, and conversations with
  their message); the conversations a worker was running when the database went end too, once
  their lease runs out.

The gateway's sweeper runs every second here and queues an open conversation again after 3 s,
and leases have a 2 s margin (production: 30 s, 120 s, 30 s), so that what a restart leaves
behind ends within the bounds below. The tests share the cluster and run in order.
"""

import os
import secrets
import shutil
import tempfile
import time
from pathlib import Path

import httpx
import pytest
from celery import Celery
from django.db import connection
from django_tenants.utils import schema_context

from apps.core.testing import PrivatePostgres, PrivateRedis, database_url, start_cluster
from apps.gateway.agent.context import TOOL_LEASE_SECONDS
from apps.mcp.testing import McpHttp, pat_and_key
from bench.faults import (
    CLEAN_FAILURES,
    fault_under_load,
    restart_postgres,
    restart_redis,
)
from bench.ledger import (
    half_written,
    half_written_posts,
    ledger,
    stored_posts,
)
from bench.load import (
    DEFAULT_MIX,
    FINISHED,
    Conversation,
    Load,
    describe_conversations,
    gateway_credentials,
    lost,
    model_env,
    model_server,
)

pytestmark = pytest.mark.live

CLIENTS = 4
# Bounds on a shared 2-core machine (the benchmark records the real figures).
REDIS_RECOVERY_BOUND = 10.0
POSTGRES_RECOVERY_BOUND = 10.0
POSTGRES_DOWN = 3.0
REDIS_DOWN = 2.0
# The gateway's sweeper and leases, fast (the docstring).
GATEWAY = {
    "ATRIUM_GATEWAY_STUCK_SWEEP_SECONDS": "1",
    "ATRIUM_GATEWAY_REQUEUE_AFTER_SECONDS": "3",
    "ATRIUM_GATEWAY_LEASE_MARGIN_SECONDS": "2",
    "ATRIUM_GATEWAY_MODEL_TIMEOUT_SECONDS": "5",
    "ATRIUM_GATEWAY_MODEL_RETRIES": "1",
}
# How long conversations get to end once the load stops: a queue that drains; after a Redis
# restart, an open conversation queued again (3 s + a sweep); after a PostgreSQL restart, the
# lease of a worker that lost the database mid-run runs out (a tool's: 60 s + 2 s) and a sweep
# queues it again.
SETTLE = 30.0
POSTGRES_SETTLE = TOOL_LEASE_SECONDS + 2 + 30.0
BUDGET_CENTS = 10_000


class Setup:
    def __init__(self, cluster, postgres, redis, url, credentials, gateway, person_id, contact_ids, model):  # type: ignore[no-untyped-def]
        self.cluster = cluster
        self.postgres = postgres
        self.redis = redis
        self.database_url = url
        self.credentials = credentials
        self.gateway = gateway
        self.person_id = person_id
        self.contact_ids = contact_ids
        self.model = model
        self.outcomes: list = []

    def load(self) -> Load:
        return Load(
            self.cluster.url(),
            self.credentials,
            self.contact_ids,
            clients=CLIENTS,
            timeout=15,
            gateway=self.gateway,
        )


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
        gateway, _key_id = gateway_credentials(person.email, "acme", BUDGET_CENTS)
        connection.set_schema_to_public()
        source = database_url()
    workdir = tmp_path_factory.mktemp("faults")
    # Not under pytest's temporary folder: run as root, PostgreSQL runs as its own account, which
    # must reach its data through every parent, and each pytest session started on the machine
    # meanwhile (another checkout's) makes pytest's root folder private again.
    postgres_dir = Path(tempfile.mkdtemp(prefix="atrium-faults-"))
    postgres = PrivatePostgres(postgres_dir / "postgres").start()
    redis = PrivateRedis(workdir / "redis").start()
    model = model_server(delay=0.05)
    cluster = None
    try:
        url = postgres.create_database("faults", copy_of=source)
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "REDIS_URL": redis.url(),
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            **model_env(model),
            **GATEWAY,
        }
        cluster = start_cluster(
            env, workdir / "cluster", web=2, workers=1, beat=True, celery_app="tests.cluster_app"
        )
        yield Setup(cluster, postgres, redis, url, credentials, gateway, person.pk, contact_ids, model)
    finally:
        if cluster is not None:
            cluster.stop()
        model.stop()
        redis.stop()
        postgres.stop("immediate")
        shutil.rmtree(postgres_dir, ignore_errors=True)
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
    # At least 3 s, and until every operation ran and a poll saw a conversation end (at most 30 s).
    deadline = time.monotonic() + 27
    while time.monotonic() < deadline and not (
        {o.op for o in load.between(0, time.monotonic())} == set(DEFAULT_MIX)
        and any(item.status in FINISHED for item in list(load.conversations.values()))
    ):
        time.sleep(0.5)
    outcomes = load.stop()
    load.settle(SETTLE)
    setup.outcomes += outcomes
    conversations = list(load.conversations.values())

    assert len(outcomes) > CLIENTS * 3
    assert [o for o in outcomes if o.kind != "ok"] == []
    assert (
        {o.op for o in outcomes}
        == set(DEFAULT_MIX)
        == {
            "tools/list",
            "getContact",
            "listContacts",
            "createContact",
            "updateContact",
            "agent/post",
            "agent/poll",
        }
    )
    assert {o.upstream for o in outcomes} == {f"127.0.0.1:{web.port}" for web in setup.cluster.webs}
    # Every conversation resolved, with the model's reply, its one tool run once.
    assert conversations and lost(conversations) == [], describe_conversations(conversations)
    assert {(c.status, c.reply, c.tool_calls, c.model_calls) for c in conversations} == {
        ("resolved", "These are your contacts in Oslo.", 1, 2)
    }
    assert setup.model.problems == []


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
        # A message is accepted without a broker: the sweeper queues it once the broker is back.
        probes["agent"] = answer_of(
            "POST",
            f"{setup.cluster.url()}/api/agent",
            json={
                "message": "List my contacts in Oslo",
                "metadata": {"load": f"load-{secrets.token_hex(8)}"},
            },
            headers=setup.gateway,
        )

    load = setup.load().start()
    try:
        fault = fault_under_load(
            load, "redis", lambda: restart_redis(setup.redis, REDIS_DOWN, while_down), before=1.5, after=4
        )
    finally:
        setup.outcomes += load.stop()
    status, body, _headers = probes["agent"]
    assert status == 202, body
    accepted_while_down = body["conversation_uuid"]
    load.conversations[accepted_while_down] = Conversation(accepted_while_down, "", fault.down_at)
    load.settle(SETTLE)
    fault.conversations = load.conversations_posted(fault.down_at - 1.0, fault.up_at + 4)
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
    # No conversation lost: each accepted, the one posted without a broker too, ended resolved.
    conversations = list(load.conversations.values())
    assert lost(conversations) == [], describe_conversations(conversations)
    assert {c.status for c in conversations} == {"resolved"}, describe_conversations(conversations)
    assert load.conversations[accepted_while_down].reply == "These are your contacts in Oslo."
    assert len(fault.conversations) >= 1


def test_while_postgresql_restarts_requests_fail_cleanly_and_nothing_is_half_written(setup):
    base = setup.cluster.url()
    watcher = McpHttp(base, setup.credentials)
    # A session no web process has used yet, so the stream below must read it from the database.
    # (One a process used in the last MCP_SESSION_CACHE_SECONDS, with a credential it checked in
    # the last MCP_CREDENTIAL_CACHE_SECONDS, is served from memory: a working stream, no 503.)
    watcher.initialize(notify=False)
    watcher.close()
    probes: dict = {}
    refused_tag = f"load-{secrets.token_hex(8)}"
    polled = httpx.post(
        f"{base}/api/agent", json={"message": "List my contacts"}, headers=setup.gateway, timeout=10
    ).json()["conversation_uuid"]

    def while_down() -> None:
        probes["mcp stream"] = answer_of(
            "GET", f"{base}/api/mcp", headers=watcher.headers(Accept="text/event-stream")
        )
        probes["json api"] = answer_of("GET", f"{base}/api/me", headers=setup.credentials)
        probes["agent post"] = answer_of(
            "POST",
            f"{base}/api/agent",
            json={"message": "List my contacts", "metadata": {"load": refused_tag}},
            headers=setup.gateway,
        )
        probes["agent poll"] = answer_of("GET", f"{base}/api/agent/{polled}", headers=setup.gateway)
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
    waited = load.settle(POSTGRES_SETTLE)
    conversations = list(load.conversations.values())

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
    # The same for the gateway's posts: each 202 is stored with its message, no refused one is.
    ok, failed, unknown = ledger(setup.outcomes, "tag")
    missing, phantom, partial = half_written_posts(setup.outcomes, setup.database_url, "acme")
    assert ok and not unknown
    assert missing == phantom == partial == set()
    assert refused_tag not in stored_posts(setup.database_url, "acme")  # the probe's 503
    # No conversation lost: those a worker was running when the database went ended too (once
    # their lease ran out, the sweeper queued them again), with their tool run once.
    assert lost(conversations) == [], (waited, describe_conversations(conversations))
    assert {c.status for c in conversations} == {"resolved"}, describe_conversations(conversations)
    assert {c.tool_calls for c in conversations} == {1}, describe_conversations(conversations)
    assert setup.model.problems == []
