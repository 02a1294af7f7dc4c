"""Several processes behind a real load balancer on one machine: three Daphne processes behind
nginx (round-robin, no stickiness), two Celery workers and a beat, on the test database and a
Redis database of their own. An MCP session and its stream move freely between the web
processes. What the gateway scenarios build on.

The tests share one cluster and run in order: the last ones kill processes.
"""

import json
import os
import secrets
import signal
import time
from collections import Counter
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
import redis
from celery import Celery
from django.conf import settings
from django.db import connection
from django_tenants.utils import schema_context
from prometheus_client.parser import text_string_to_metric_families

from apps.core.observability import request_context
from apps.core.testing import Cluster, database_url, start_cluster, wait_for
from apps.mcp.testing import McpHttp, pat_and_key

pytestmark = pytest.mark.live

METRICS_TOKEN = "cluster-metrics-token"


@pytest.fixture(scope="module")
def cluster_redis() -> str:
    return urlunsplit(urlsplit(settings.REDIS_URL)._replace(path="/11"))


@pytest.fixture(scope="module")
def store(cluster_redis):
    client = redis.Redis.from_url(cluster_redis, decode_responses=True)
    client.flushdb()
    yield client
    client.flushdb()


@pytest.fixture(scope="module")
def cluster(django_db_setup, django_db_blocker, tmp_path_factory, cluster_redis, store):
    with django_db_blocker.unblock():
        url = database_url()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": cluster_redis,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "ATRIUM_METRICS_TOKEN": METRICS_TOKEN,
        "ATRIUM_LOG_FORMAT": "json",
        "ATRIUM_LOG_LEVEL": "INFO",
    }
    running = start_cluster(env, tmp_path_factory.mktemp("cluster"), celery_app="tests.cluster_app")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def sender(cluster_redis):
    """A Celery client of the cluster's broker (Atrium's signals add the request id header)."""
    app = Celery("cluster-client", broker=cluster_redis, set_as_current=False)
    yield app
    app.close()


def entries(store, kind: str, label: str) -> list[dict]:
    return [json.loads(item) for item in store.lrange(f"cluster:{kind}:{label}", 0, -1)]


def finished(store, label: str, count: int, *, at_least: bool = False) -> list[dict]:
    """Waits until `count` (or, with at_least, that many or more) probes labelled `label` finished."""

    def enough() -> list[dict]:
        done = entries(store, "finished", label)
        return done if (len(done) >= count if at_least else len(done) == count) else []

    return wait_for(enough, timeout=60)


def requests_counted(server_url: str, route: str) -> float:
    text = httpx.get(
        f"{server_url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10
    ).text
    total = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "atrium_http_requests_total" and sample.labels["route"] == route:
                total += sample.value
    return total


def test_requests_spread_round_robin_over_every_web_process(cluster: Cluster):
    with cluster.client("127.0.0.2") as client:
        answers = [client.get("/") for _ in range(30)]

    assert all(answer.status_code == 200 and "Globex Hub" in answer.text for answer in answers)
    served = Counter(answer.headers["X-Upstream"] for answer in answers)
    assert set(served) == {f"127.0.0.1:{web.port}" for web in cluster.webs}
    # One keep-alive connection from the client, yet every process took its turn: no stickiness.
    assert max(served.values()) - min(served.values()) <= 1


def test_one_scrape_reports_the_requests_of_every_web_process(cluster: Cluster):
    first, last = cluster.webs[0], cluster.webs[-1]
    before = requests_counted(first.url(), "healthz")

    with cluster.client() as client:
        answers = [client.get("/healthz") for _ in range(24)]

    assert {answer.headers["X-Upstream"] for answer in answers} == {
        f"127.0.0.1:{web.port}" for web in cluster.webs
    }
    assert requests_counted(last.url(), "healthz") - before == 24


def test_a_request_id_comes_back_from_whichever_process_answers(cluster: Cluster):
    with cluster.client() as client:
        answers = [client.get("/healthz", headers={"X-Request-ID": f"lb-check-{n:04d}"}) for n in range(6)]

    assert [answer.headers["X-Request-ID"] for answer in answers] == [f"lb-check-{n:04d}" for n in range(6)]
    assert len({answer.headers["X-Upstream"] for answer in answers}) == len(cluster.webs)


def test_tasks_spread_over_both_workers_and_carry_the_request_id(cluster: Cluster, sender, store):
    with request_context("spread-request-0001"):
        for _ in range(12):
            sender.send_task("cluster.record", args=["spread"], kwargs={"sleep": 0.2, "schema_name": "acme"})

    done = finished(store, "spread", 12)

    assert {entry["hostname"].split("@")[0] for entry in done} == {"worker1", "worker2"}
    assert {entry["request_id"] for entry in done} == {"spread-request-0001"}
    assert {entry["workspace"] for entry in done} == {"acme"}
    for worker in cluster.workers:
        lines = [json.loads(line) for line in worker.log_text().splitlines() if line.startswith("{")]
        probes = [line for line in lines if line.get("message") == "probe spread running"]
        assert probes, f"{worker.name} logged no probe line"
        assert all(line["request_id"] == "spread-request-0001" for line in probes)
        assert all(line["workspace"] == "acme" for line in probes)


def test_each_worker_answers_its_probes_and_one_scrape_counts_every_pool(cluster: Cluster, sender, store):
    for _ in range(4):
        sender.send_task("cluster.record", args=["counted"])
    finished(store, "counted", 4)
    auth = {"Authorization": f"Bearer {METRICS_TOKEN}"}

    for worker in cluster.workers:
        base = f"http://127.0.0.1:{worker.http_port}"
        assert httpx.get(f"{base}/healthz").json() == {"status": "ok"}
        assert httpx.get(f"{base}/readyz").json()["checks"] == {"database": "ok", "redis": "ok"}
        assert httpx.get(f"{base}/metrics").status_code == 401
    scrape = httpx.get(f"http://127.0.0.1:{cluster.workers[0].http_port}/metrics", headers=auth).text
    tasks = {
        sample.labels["outcome"]: sample.value
        for family in text_string_to_metric_families(scrape)
        for sample in family.samples
        if sample.name == "atrium_celery_tasks_total" and sample.labels["task"] == "cluster.record"
    }
    # Both workers' pools wrote to the machine's metrics directory; one scrape sums them.
    assert tasks["succeeded"] >= 12 + 4
    assert "atrium_http_requests_total" in scrape  # the web processes' figures too, same machine


def test_beat_sends_its_schedule_to_the_workers(cluster: Cluster, store):
    runs = finished(store, "beat", 2, at_least=True)

    # Work started by beat has no request to inherit: each run gets an id of its own.
    assert len({run["request_id"] for run in runs}) == len(runs)


# --- MCP across the web processes ---------------------------------------------------------------


@pytest.fixture(scope="module")
def mcp_person(django_db_setup, django_db_blocker):
    """A member of Acme made for these tests (their role changes), with SPEC 5.2's credential: a
    personal access token and an API key."""
    from apps.accounts.models import Role, User

    with django_db_blocker.unblock():
        with schema_context("acme"):
            person = User.objects.create_user(
                email=f"cluster-{secrets.token_hex(4)}@acme.example", role=Role.objects.get(key="member")
            )
        credentials = pat_and_key(person.email)
        connection.set_schema_to_public()
    yield person, credentials
    with django_db_blocker.unblock(), schema_context("acme"):
        person.delete()


class Admin:
    """admin@acme.example on the settings pages of one web process, reached directly (not
    through the load balancer): a change made there is raised in that process."""

    def __init__(self, web) -> None:  # type: ignore[no-untyped-def]
        self.url = web.url()
        self.browser = httpx.Client(base_url=self.url, timeout=15, follow_redirects=False)
        self.browser.get("/accounts/sign-in/")
        signed_in = self.browser.post(
            "/accounts/sign-in/",
            data={
                "username": "admin@acme.example",
                "password": "atrium-demo",
                "csrfmiddlewaretoken": self.browser.cookies["atrium_csrf"],
            },
            headers={"Referer": f"{self.url}/accounts/sign-in/"},
        )
        assert signed_in.status_code == 302, signed_in.text

    def set_role(self, person, key: str, django_db_blocker) -> None:  # type: ignore[no-untyped-def]
        from apps.accounts.models import Role

        with django_db_blocker.unblock(), schema_context("acme"):
            role = Role.objects.get(key=key).pk
        changed = self.browser.post(
            f"/settings/people/{person.pk}/",
            data={"action": "role", "role": role, "csrfmiddlewaretoken": self.browser.cookies["atrium_csrf"]},
            headers={"Referer": f"{self.url}/settings/people/"},
        )
        assert changed.status_code == 302, changed.text

    def close(self) -> None:
        self.browser.close()


def address(web) -> str:  # type: ignore[no-untyped-def]
    return f"127.0.0.1:{web.port}"


def tool_calls_counted(cluster: Cluster, tool: str, outcome: str = "ok") -> float:
    text = httpx.get(
        f"{cluster.webs[0].url()}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10
    ).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "atrium_tool_calls_total"
        and sample.labels == {"door": "mcp", "tool": tool, "outcome": outcome}
    )


def test_an_mcp_session_initialised_through_one_process_is_used_through_the_others(
    cluster: Cluster, mcp_person
):
    _person, credentials = mcp_person
    client = McpHttp(cluster.url(), credentials)
    before = tool_calls_counted(cluster, "getContact")
    try:
        opened_on = client.initialize().headers["X-Upstream"]
        email = f"cluster-{secrets.token_hex(4)}@example.com"
        created = client.result("createContact", {"contact": {"firstName": "Ada", "email": email}})
        contact_id = created["structuredContent"]["contact"]["id"]
        served: list[str] = [client.upstream]  # type: ignore[list-item]
        for _ in range(6):
            fetched = client.result("getContact", {"contactId": contact_id})
            assert fetched["structuredContent"]["email"] == email
            served.append(client.upstream)  # type: ignore[arg-type]
        listed = client.request("tools/list", {})
        served.append(client.upstream)  # type: ignore[arg-type]
    finally:
        client.close()

    assert {tool["name"] for tool in listed.json()["result"]["tools"]} >= {"createContact", "getContact"}
    # The session opened on one process was served by every process, the opener and the others.
    assert set(served) == {address(web) for web in cluster.webs}
    assert len([upstream for upstream in served if upstream != opened_on]) >= 4
    # Each process counted its calls; one scrape sums them (the tool-call metric of the MCP door).
    assert tool_calls_counted(cluster, "getContact") - before == 6


def test_a_stream_held_by_one_process_gets_the_notification_raised_on_another(
    cluster: Cluster, mcp_person, django_db_blocker
):
    person, credentials = mcp_person
    client = McpHttp(cluster.url(), credentials)
    client.initialize()
    stream = client.stream()
    holder = stream.upstream
    other = next(web for web in cluster.webs if address(web) != holder)
    admin = Admin(other)
    try:
        admin.set_role(person, "viewer", django_db_blocker)
        event_id, message = stream.next_event(timeout=15)
    finally:
        stream.close()
        admin.set_role(person, "member", django_db_blocker)
        admin.close()
        client.close()

    assert stream.status == 200 and holder in {address(web) for web in cluster.webs}
    assert message == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    assert event_id is not None


def test_last_event_id_resumes_through_another_process_after_a_disconnect(
    cluster: Cluster, mcp_person, django_db_blocker
):
    person, credentials = mcp_person
    client = McpHttp(cluster.url(), credentials)
    client.initialize()
    first = client.stream()
    holder = first.upstream
    admin = Admin(next(web for web in cluster.webs if address(web) != holder))
    resumed = None
    try:
        admin.set_role(person, "viewer", django_db_blocker)
        seen, _message = first.next_event(timeout=15)
        first.close()  # the connection drops; two more changes happen meanwhile
        admin.set_role(person, "member", django_db_blocker)
        admin.set_role(person, "viewer", django_db_blocker)
        # Back through the load balancer, until another process than the first holder answers.
        for _ in range(len(cluster.webs)):
            resumed = client.stream(last_event_id=seen)
            if resumed.upstream != holder:
                break
            resumed.close()
        assert resumed is not None and resumed.upstream != holder
        replayed = [resumed.next_event(timeout=10) for _ in range(2)]
    finally:
        if resumed is not None:
            resumed.close()
        admin.set_role(person, "member", django_db_blocker)
        admin.close()
        client.close()

    assert [event_id for event_id, _message in replayed] == [str(int(seen) + 1), str(int(seen) + 2)]
    assert {message["method"] for _id, message in replayed} == {"notifications/tools/list_changed"}


def test_a_task_whose_pool_process_is_killed_runs_again_and_finishes(cluster: Cluster, sender, store):
    sender.send_task("cluster.record", args=["crash"], kwargs={"sleep": 3.0})
    first = wait_for(lambda: entries(store, "started", "crash"))[0]

    os.kill(first["pid"], signal.SIGKILL)

    done = finished(store, "crash", 1)
    started = entries(store, "started", "crash")
    assert len(done) == 1 and len(started) == 2
    assert done[0]["task_id"] == first["task_id"] and done[0]["pid"] != first["pid"]
    assert all(worker.alive() for worker in cluster.workers)


def test_killing_a_web_process_loses_no_request(cluster: Cluster):
    victim = cluster.webs[1]
    victim.process.send_signal(signal.SIGKILL)
    victim.process.wait(timeout=10)
    survivors = {f"127.0.0.1:{web.port}" for web in cluster.webs if web is not victim}

    with cluster.client() as client:
        reads = [client.get("/readyz") for _ in range(20)]
        writes = [client.post("/api/me", json={}) for _ in range(6)]

    assert all(answer.status_code == 200 for answer in reads)
    # POSTs are not retried once sent; a refused connection sends nothing, so they move on too.
    assert all(answer.status_code in {401, 405} for answer in writes), [a.status_code for a in writes]
    finals = Counter(answer.headers["X-Upstream"].split(", ")[-1] for answer in reads + writes)
    assert set(finals) == survivors


def test_killing_a_whole_worker_leaves_the_work_to_the_other(cluster: Cluster, sender, store):
    victim, survivor = cluster.workers
    victim.kill()
    # Let Redis see the dead worker's connections close: a message popped for a blocked client
    # that is already gone would be lost (the Redis transport's known window, not ours to test).
    time.sleep(1)

    for _ in range(6):
        sender.send_task("cluster.record", args=["after-kill"])

    done = finished(store, "after-kill", 6)
    assert {entry["hostname"].split("@")[0] for entry in done} == {survivor.name}
    assert survivor.alive()
