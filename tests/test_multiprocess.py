"""Several processes behind a real load balancer on one machine: three web processes behind
nginx (round-robin, no stickiness), two Celery workers (one pool process each) and a beat, on the
test database and a Redis database of their own.

- Requests, metrics and request ids across the web processes; probe tasks across the workers.
- An MCP session and its stream move freely between the web processes.
- The message gateway: conversations posted through the load balancer are run by both workers
  (the service's agent calling a slow model API, a real HTTP server on loopback) and all resolve,
  each webhook signed and delivered once. A whole worker killed (SIGKILL, pool included) while
  conversations are in flight: the sweeper takes its conversation back once its lease runs out,
  the other worker runs it again, none is left `open` or `processing`, no webhook is lost and
  none is sent under two delivery ids. A worker killed while it waits for a webhook receiver's
  answer: once the attempt's lease runs out, the other worker sends it again, under the same id.
- Processes killed: a pool process mid-task, a web process, a whole worker.

The tests share one cluster and run in order: the last ones kill processes (the gateway's kill
scenario starts a fresh worker in place of the one it killed).
"""

import base64
import hashlib
import hmac
import json
import os
import secrets
import signal
import threading
import time
from collections import Counter, defaultdict
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
import redis
from celery import Celery
from django.conf import settings
from django.db import connection
from django_tenants.utils import schema_context
from prometheus_client.parser import text_string_to_metric_families

from apps.apikeys.testing import credentials_for
from apps.core.observability import request_context
from apps.core.testing import Cluster, database_url, start_cluster, wait_for
from apps.gateway.tests.servers import ModelServer, Receiver, openai_text
from apps.mcp.testing import McpHttp, pat_and_key

pytestmark = pytest.mark.live

METRICS_TOKEN = "cluster-metrics-token"
MODEL = "cluster-test-model"


@pytest.fixture(scope="module")
def cluster_redis() -> str:
    return urlunsplit(urlsplit(settings.REDIS_URL)._replace(path="/11"))


@pytest.fixture(scope="module")
def store(cluster_redis):
    client = redis.Redis.from_url(cluster_redis, decode_responses=True)
    client.flushdb()
    yield client
    client.flushdb()


class SlowModel:
    """The model API's answers (OpenAI-compatible chat completions, through ModelServer): after
    `delay` seconds, a plain reply naming the message it answers, so a reply can be matched to its
    conversation. While `flowing` is cleared, answers wait for it (at most a minute): a test sees
    every worker held in a model call (`in_flight`) and kills one of them there."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.in_flight = 0
        self.flowing = threading.Event()
        self.flowing.set()
        self._lock = threading.Lock()

    def __call__(self, body: dict, index: int) -> dict:
        with self._lock:
            self.in_flight += 1
        try:
            time.sleep(self.delay)
            self.flowing.wait(timeout=60)
            message = next(item["content"] for item in body["messages"] if item["role"] == "user")
            return openai_text(reply_to(message), usage=(40, 20))
        finally:
            with self._lock:
                self.in_flight -= 1


def reply_to(message: str) -> str:
    return f"Noted: {message}"


@pytest.fixture(scope="module")
def model():
    """The model API the workers' agent calls (the gateway scenarios), started before them."""
    slow = SlowModel(delay=1.0)
    with ModelServer("openai", slow) as server:
        server.slow = slow
        yield server
    assert server.problems == []


@pytest.fixture(scope="module")
def cluster(django_db_setup, django_db_blocker, tmp_path_factory, cluster_redis, store, model):
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
        # The gateway's agent on the loopback model API. Output costs 10 µUSD a token: a call of
        # max_tokens 1,000 reserves 1 cent, and the 20 tokens each answer uses cost 200 µUSD.
        "ATRIUM_GATEWAY_MODEL_BACKEND": "openai",
        "ATRIUM_GATEWAY_MODEL_URL": model.url,
        "ATRIUM_GATEWAY_MODEL_NAME": MODEL,
        "ATRIUM_GATEWAY_MODEL_API_KEY": model.api_key,
        "ATRIUM_GATEWAY_MODEL_PRICES": json.dumps({MODEL: {"input": "0", "output": "10"}}),
        "ATRIUM_GATEWAY_MODEL_MAX_TOKENS": "1000",
        # Short leases and frequent sweeps, so that a dead worker's conversation is taken back in
        # seconds rather than minutes: a model call's lease is 8 s + 2 s, sweeps every 2 s.
        "ATRIUM_GATEWAY_MODEL_TIMEOUT_SECONDS": "8",
        "ATRIUM_GATEWAY_MODEL_RETRIES": "0",
        "ATRIUM_GATEWAY_LEASE_MARGIN_SECONDS": "2",
        "ATRIUM_GATEWAY_STUCK_SWEEP_SECONDS": "2",
        "ATRIUM_GATEWAY_WEBHOOK_SWEEP_SECONDS": "2",
        "ATRIUM_GATEWAY_REQUEUE_AFTER_SECONDS": "20",
        # A webhook attempt's lease: these limits + 30 s (apps.gateway.deliveries).
        "ATRIUM_GATEWAY_WEBHOOK_TIMEOUT_SECONDS": "5",
        "ATRIUM_GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS": "2",
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
        # Every page of the list, each page's request through whichever process nginx picks.
        listed: list[str] = []
        cursor: dict[str, Any] = {}
        while True:
            page = client.request("tools/list", cursor).json()["result"]
            served.append(client.upstream)  # type: ignore[arg-type]
            listed.extend(tool["name"] for tool in page["tools"])
            if not page.get("nextCursor"):
                break
            cursor = {"cursor": page["nextCursor"]}
    finally:
        client.close()

    assert set(listed) >= {"createContact", "getContact"}
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


# --- the message gateway across the processes ---------------------------------------------------


@pytest.fixture(scope="module")
def hook():
    """The webhook receiver (real HTTP on loopback): records every delivery, answers 200."""
    with Receiver([200]) as receiver:
        yield receiver


@pytest.fixture(scope="module")
def gateway_keys(django_db_setup, django_db_blocker, hook):
    """A member of Acme with SPEC 5.2's credentials on two keys with a budget: replies of the
    first go to the webhook receiver, those of the second are only polled."""
    from apps.accounts.models import Role, User

    with django_db_blocker.unblock(), schema_context("acme"):
        person = User.objects.create_user(
            email=f"cluster-gateway-{secrets.token_hex(4)}@acme.example", role=Role.objects.get(key="member")
        )
        budget = {"budget_usd_cents": 100, "budget_period": "total"}
        webhook = credentials_for(person, label="cluster webhook", response_url=hook.url, **budget)
        polled = credentials_for(person, label="cluster polled", **budget)
    yield webhook, polled
    with django_db_blocker.unblock(), schema_context("acme"):
        person.delete()


class Sent:
    """One message sent to POST /api/agent through the load balancer."""

    def __init__(self, credentials, message: str, answer: httpx.Response, request_id: str) -> None:  # type: ignore[no-untyped-def]
        self.credentials = credentials
        self.message = message
        self.request_id = request_id
        self.status_code = answer.status_code
        self.upstream = answer.headers.get("X-Upstream")
        self.uuid = answer.json().get("conversation_uuid") if answer.status_code == 202 else None
        self.final: dict = {}


def send_all(cluster: Cluster, batch: list[tuple[object, str]]) -> list[Sent]:
    sent = []
    with cluster.client() as client:
        for credentials, message in batch:
            request_id = f"cluster-gw-{secrets.token_hex(8)}"
            answer = client.post(
                "/api/agent",
                json={"message": message},
                headers={**credentials.http_headers(), "X-Request-ID": request_id},  # type: ignore[attr-defined]
            )
            sent.append(Sent(credentials, message, answer, request_id))
    assert [item.status_code for item in sent] == [202] * len(batch)
    return sent


def wait_until_ended(cluster: Cluster, sent: list[Sent], timeout: float) -> None:
    """Polls (GET /api/agent/{uuid}, through the load balancer) until every conversation has ended
    and its webhook is settled: delivered, or `none` for a key without a webhook URL. A
    conversation left `processing` or `open`, or a webhook that never arrives, times out here."""
    with cluster.client() as client:

        def settled() -> bool:
            for item in sent:
                if item.final:
                    continue
                polled = client.get(f"/api/agent/{item.uuid}", headers=item.credentials.http_headers())
                assert polled.status_code == 200, polled.text
                body = polled.json()
                if body["status"] in ("resolved", "failed") and body["webhook"]["status"] in (
                    "delivered",
                    "none",
                ):
                    item.final = body
            return all(item.final for item in sent)

        pending = lambda: {item.uuid: item.final.get("status") for item in sent if not item.final}  # noqa: E731
        try:
            wait_for(settled, timeout=timeout, every=0.5)
        except AssertionError as error:
            raise AssertionError(f"not ended, or webhook not delivered: {pending()}") from error


def conversations_logged(worker, outcome: str = "resolved") -> set[str]:  # type: ignore[no-untyped-def]
    """The conversations a worker's log says it ended with `outcome` (one JSON object a line)."""
    found = set()
    for line in worker.log_text().splitlines():
        if not line.startswith("{"):
            continue
        words = json.loads(line).get("message", "").split()
        if len(words) == 3 and words[0] == "conversation" and words[2] == outcome:
            found.add(words[1])
    return found


def check_webhooks(hook: Receiver, sent: list[Sent]) -> None:
    """Every conversation of a key with a webhook URL got its reply at the receiver, signed as
    SPEC 5.3 says (X-Signature) and as Standard Webhooks says (webhook-signature), with one
    delivery id: a redelivery repeats the same `webhook-id`, two ids for one reply would be two
    webhooks. Conversations of a key without a URL got none."""
    arrived = defaultdict(list)
    for delivery in list(hook.received):
        arrived[delivery.headers["x-conversation-uuid"]].append(delivery)
    for item in sent:
        if not item.credentials.key.response_url:
            assert item.uuid not in arrived and item.final["webhook"]["status"] == "none"
            continue
        deliveries = arrived.get(item.uuid, [])
        assert deliveries, f"the webhook of {item.uuid} was lost"
        assert len({delivery.headers["webhook-id"] for delivery in deliveries}) == 1, (
            f"{item.uuid}: sent as several webhooks {[d.headers['webhook-id'] for d in deliveries]}"
        )
        secret = item.credentials.secret.encode()
        for delivery in deliveries:
            assert (
                delivery.headers["x-signature"] == hmac.new(secret, delivery.body, hashlib.sha256).hexdigest()
            )
            signed = f"{delivery.headers['webhook-id']}.{delivery.headers['webhook-timestamp']}.".encode()
            expected = base64.b64encode(hmac.new(secret, signed + delivery.body, hashlib.sha256).digest())
            assert f"v1,{expected.decode()}" in delivery.headers["webhook-signature"].split()
            assert delivery.headers["x-request-id"] == item.request_id
            body = json.loads(delivery.body)
            if item.final["status"] == "resolved":
                assert body == {
                    "conversation_uuid": item.uuid,
                    "status": "resolved",
                    "response": item.final["turns"][-1]["payload"]["content"],
                }
            else:
                assert body == {
                    "conversation_uuid": item.uuid,
                    "status": "failed",
                    "error": item.final["error"]["message"],
                }
        assert item.final["webhook"]["status"] == "delivered"


def test_gateway_conversations_spread_over_both_workers_and_all_resolve(
    cluster: Cluster, gateway_keys, hook, model
):
    webhook, _polled = gateway_keys
    tag = secrets.token_hex(3)
    sent = send_all(cluster, [(webhook, f"Note spread item {n} ({tag})") for n in range(8)])

    wait_until_ended(cluster, sent, timeout=60)

    # Accepted by every web process (round-robin), run by both workers, each reply its own message's.
    assert {item.upstream for item in sent} == {address(web) for web in cluster.webs}
    assert [item.final["status"] for item in sent] == ["resolved"] * len(sent)
    assert [item.final["turns"][-1]["payload"]["content"] for item in sent] == [
        reply_to(item.message) for item in sent
    ]
    assert {item.final["agent"] for item in sent} == {f"openai:{MODEL}"}
    uuids = {item.uuid for item in sent}
    ran = {worker.name: conversations_logged(worker) & uuids for worker in cluster.workers}
    assert all(ran.values()), f"a worker ran none of the conversations: {ran}"
    assert set.union(*ran.values()) == uuids and sum(len(done) for done in ran.values()) == len(uuids)
    check_webhooks(hook, sent)


def test_a_worker_killed_with_conversations_in_flight_leaves_none_unfinished_no_webhook_lost_or_doubled(
    cluster: Cluster, gateway_keys, hook, model, django_db_blocker
):
    from apps.apikeys.models import ApiKey
    from apps.gateway.models import Conversation, WebhookDelivery

    webhook, polled = gateway_keys
    victim, survivor = cluster.workers[1], cluster.workers[0]
    calls_before = len(model.requests)
    tag = secrets.token_hex(3)
    batch = [(webhook if n % 2 == 0 else polled, f"Note kill item {n} ({tag})") for n in range(10)]
    model.slow.flowing.clear()
    try:
        sent = send_all(cluster, batch)
        uuids = [item.uuid for item in sent]
        # Both workers (one pool process each) wait in a model call: each holds a conversation.
        wait_for(
            lambda: model.slow.in_flight == 2, timeout=30, every=0.05, what="both workers in a model call"
        )
        with django_db_blocker.unblock(), schema_context("acme"):
            in_flight = set(
                Conversation.objects.filter(uuid__in=uuids, status="processing").values_list(
                    "uuid", flat=True
                )
            )
        victim.kill()  # SIGKILL to the worker's main process and its pool: nothing is handed back
    finally:
        model.slow.flowing.set()
    try:
        wait_until_ended(cluster, sent, timeout=120)
    finally:
        cluster.replace_worker(1)  # the tests below need both workers

    # None stuck: each ended, and (a dead worker's run being run again, within its attempts) resolved.
    assert [item.final["status"] for item in sent] == ["resolved"] * len(sent)
    assert [item.final["turns"][-1]["payload"]["content"] for item in sent] == [
        reply_to(item.message) for item in sent
    ]
    with django_db_blocker.unblock(), schema_context("acme"):
        conversations = {str(c.uuid): c for c in Conversation.objects.filter(uuid__in=uuids)}
        deliveries = Counter(
            str(value)
            for value in WebhookDelivery.objects.filter(conversation_uuid__in=uuids).values_list(
                "conversation_uuid", flat=True
            )
        )
        keys = {key.pk: key for key in ApiKey.objects.filter(pk__in=[webhook.key.pk, polled.key.pk])}
        spent_by_key = {
            key_id: sum(Conversation.objects.filter(key_id=key_id).values_list("cost_micro_usd", flat=True))
            for key_id in keys
        }
    assert len(in_flight) == 2
    # The victim's conversation: its lease ran out, the sweeper (on the survivor) queued it again,
    # and the survivor ran it from the start (the killed model call had recorded nothing).
    rerun = [value for value, conversation in conversations.items() if conversation.attempts == 2]
    assert len(rerun) == 1 and {str(value) for value in in_flight} >= set(rerun), {
        value: c.attempts for value, c in conversations.items()
    }
    assert all(c.attempts == 1 for value, c in conversations.items() if value not in rerun)
    assert f"conversation {rerun[0]}: its worker stopped mid-turn; queued again" in survivor.log_text()
    assert rerun[0] in conversations_logged(survivor)
    assert len(model.requests) - calls_before == len(sent) + 1  # the killed call, and its rerun
    # The killed call's reservation was released, never settled: each conversation paid one call.
    assert {c.cost_micro_usd for c in conversations.values()} == {20 * 10}
    for key in keys.values():
        assert key.reserved_micro_usd == 0 and key.spent_micro_usd == spent_by_key[key.pk]
    # One delivery per conversation with a webhook, none for the others; none lost, none doubled.
    assert deliveries == Counter(item.uuid for item in sent if item.credentials is webhook)
    check_webhooks(hook, sent)


def test_a_worker_killed_while_it_sends_a_webhook_leaves_it_to_the_other_under_the_same_id(
    cluster: Cluster, gateway_keys, django_db_blocker
):
    from apps.gateway.models import WebhookDelivery

    webhook, _polled = gateway_keys
    # A receiver that takes 3 s to answer: the worker that ended the conversation is still
    # waiting for it when it is killed, so whether the receiver got the webhook is unknown to it.
    with Receiver([200], delay=3) as slow:
        with django_db_blocker.unblock(), schema_context("acme"):
            created = credentials_for(
                webhook.user, label="cluster slow webhook", response_url=slow.url, budget_usd_cents=100
            )
        (item,) = send_all(cluster, [(created, f"Note slow webhook ({secrets.token_hex(3)})")])
        slow.wait_for(1, timeout=30)
        sender_index = next(
            index for index, worker in enumerate(cluster.workers) if item.uuid in conversations_logged(worker)
        )
        other = cluster.workers[1 - sender_index]
        cluster.workers[sender_index].kill()
        try:
            # The attempt's lease (5 s + 2 s + 30 s) runs out, then the sweeper sends it again.
            wait_until_ended(cluster, [item], timeout=90)
        finally:
            cluster.replace_worker(sender_index)

        assert item.final["status"] == "resolved"
        assert item.final["webhook"]["attempts"] == 2
        # Received twice (the receiver did answer the first, to a dead worker), under one id.
        assert len(slow.received) == 2
        check_webhooks(slow, [item])
        with django_db_blocker.unblock(), schema_context("acme"):
            delivery = WebhookDelivery.objects.get(conversation_uuid=item.uuid)
            logged = list(delivery.attempt_log.values_list("number", "outcome"))
        # The killed sender never logged its attempt; the other worker's is the second.
        assert logged == [(2, "delivered")]
        assert f"webhook delivery {delivery.pk} attempt 2: delivered (200)" in other.log_text()


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
