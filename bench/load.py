"""Sustained load of mixed MCP calls on the multi-process topology, then a Redis restart and a
PostgreSQL restart under that load.

The topology is the multi-process proof's (`apps.core.testing.start_cluster`): three web
processes behind nginx (round-robin, no stickiness), two Celery workers and a beat, on a
PostgreSQL and a Redis of their own (`PrivatePostgres`, `PrivateRedis`: the same binaries as
`make run`), so that restarting them disturbs nothing else on the machine.

Load: `--clients` closed-loop clients, each with its own MCP session (personal access token +
X-Api-Key), calling a weighted mix of `tools/list`, `getContact`, `listContacts` (reads) and
`createContact`, `updateContact` (writes) through the load balancer, and of the message gateway:
`agent/post` (POST /api/agent, with an API key whose budget covers the run) and `agent/poll`
(GET /api/agent/{uuid} of one of the client's conversations, the unfinished ones first). The
service's agent runs on the Celery workers with a model backend: a real HTTP server in this
process on loopback speaking the OpenAI-compatible chat-completions protocol
(apps.gateway.tests.servers.ModelServer), answering each conversation with one tool call
(`listContacts`) and then a reply, after `--model-delay` seconds each. Each answer is classified:
ok, tool_error (`isError`), unavailable (503 with SPEC 7.1's UNAVAILABLE body), 5xx (any other),
rpc_error, http_error, bad_body, timeout (no answer within `--timeout`: a hang), connection.
A client that got a failure waits 0.2 s and goes on (it does not honour Retry-After: recovery is
measured to a fraction of a second).

Reported: per phase, requests and their kinds, latency percentiles of the answered requests;
the resident memory of every process sampled every `--sample-every` seconds (flat memory: the
mean of the first minute against the last; a shorter run compares its first and last quarter);
for each fault, what clients saw while the dependency was down and how long after it came back
the service answered every request again. After the PostgreSQL restart, every createContact
that answered success must exist and none that failed may (nothing half-written); the same for
the gateway's posts (each carries a unique tag in its metadata): every 202 is stored with its
first turn, no refused post is.

Conversations: once the load stops, the unfinished ones are polled for up to `--grace` seconds
(long enough for the gateway's sweeper to queue again what a restart left behind: a conversation
whose task was lost with the broker, or whose worker lost PostgreSQL mid-run and left its lease
to run out). Reported: posted (202), resolved, failed, still open after the grace; for each
fault, the same for the conversations posted around it. "No conversation lost": every accepted
conversation ends resolved or failed.

Its parts used by other benchmarks and tests live beside it: the faults and what clients saw
around each (bench/faults.py), what clients were told against what PostgreSQL has
(bench/ledger.py), the processes' memory and connections (bench/sampler.py).

    make bench ARGS="load"                       # 5 minutes of load, then both faults
    make bench ARGS="load --seconds 60"          # a shorter run on a busy machine
    make bench ARGS="load --faults none"         # load only
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import secrets
import shutil
import tempfile
import threading
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from bench.faults import Fault, fault_under_load, restart_postgres, restart_redis
from bench.ledger import EMAIL_DOMAIN, TAG, half_written, half_written_posts, ledger, told_unknown
from bench.sampler import MemorySampler, cluster_processes

PAUSE_AFTER_FAILURE = 0.2
# The gateway: conversation statuses of a poll (SPEC 3.1), the finished ones, the metadata key
# carrying each post's tag, and the model the loopback server plays.
STATUSES = frozenset({"open", "processing", "resolved", "failed"})
FINISHED = frozenset({"resolved", "failed"})
# A conversation's webhook once nothing more will happen to it (SPEC 2.1; "none": no webhook URL).
WEBHOOK_SETTLED = frozenset({"delivered", "failed", "none"})
MODEL = "load-model"
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
    tag: str | None = None  # agent/post: the unique tag of its metadata
    name: str | None = None  # files/upload: the unique name of the file it tried to store
    workspace: str = ""  # the schema of the workspace it went to
    revision: str = ""  # the MCP revision it spoke (an MCP request's)

    @property
    def ended(self) -> float:
        return self.at + self.seconds


def _unavailable(status: int, body: Any) -> bool:
    """A 503 in SPEC 7.1's format: the service says it cannot serve for now, and nothing else."""
    error = body.get("error") if isinstance(body, dict) else None
    return (
        status == 503
        and isinstance(error, dict)
        and error.get("code") == "UNAVAILABLE"
        and bool(error.get("message"))
    )


def classify(response: httpx.Response) -> tuple[str, str]:
    """(kind, detail) of one answer of /api/mcp, of /api/agent (`classify_gateway`) or of the
    OAuth token endpoint (`classify_token`)."""
    if response.request.url.path.startswith("/api/agent"):
        return classify_gateway(response)
    if response.request.url.path.startswith("/oauth/"):
        return classify_token(response)
    status, body, failed = _answered(response)
    if failed is not None:
        return failed
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


def _answered(response: httpx.Response) -> tuple[int, Any, tuple[str, str] | None]:
    """The status, the JSON body (None if not JSON) and, for a 5xx, its (kind, detail)."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = None
    if status == 503:
        return status, body, (("unavailable" if _unavailable(status, body) else "5xx"), response.text[:200])
    if status >= 500:
        return status, body, ("5xx", response.text[:200])
    return status, body, None


def classify_gateway(response: httpx.Response) -> tuple[str, str]:
    """A post is ok with its 202 (SPEC 4.4), a poll with a 200 whose status is one of SPEC 3.1's
    (a conversation that ended `failed` is a good answer: the ledger counts it)."""
    status, body, failed = _answered(response)
    if failed is not None:
        return failed
    posted = response.request.method == "POST"
    if status != (202 if posted else 200):
        return "http_error", f"{status} {response.text[:200]}"
    if not isinstance(body, dict):
        return "bad_body", response.text[:200]
    if posted and not (body.get("status") == "accepted" and body.get("conversation_uuid")):
        return "bad_body", response.text[:200]
    if not posted and body.get("status") not in STATUSES:
        return "bad_body", response.text[:200]
    return "ok", ""


def classify_token(response: httpx.Response) -> tuple[str, str]:
    """A refresh is ok with a new access and refresh token (RFC 6749 5.1); a refusal (400
    `invalid_grant`: the refresh token is not, or no longer, good) is `refused`."""
    status, body, failed = _answered(response)
    if failed is not None:
        return failed
    if status == 400 and isinstance(body, dict) and body.get("error"):
        return "refused", f"{body.get('error')}: {body.get('error_description', '')}"[:200]
    if status != 200:
        return "http_error", f"{status} {response.text[:200]}"
    if not (isinstance(body, dict) and body.get("access_token") and body.get("refresh_token")):
        return "bad_body", response.text[:200]
    return "ok", ""


@dataclass
class OAuthGrant:
    """A workspace's OAuth client and the refresh token its seat holds (rotated at each refresh:
    `broken` once a refresh's answer was lost, when the client would sign in again)."""

    client_id: str
    refresh_token: str
    broken: bool = False


@dataclass
class Tenant:
    """One workspace as the load sees it: its schema, the headers of its MCP calls (a personal
    access token and X-Api-Key; with `Host` when the workspace is not the load balancer's own
    address), its seed contacts and the gateway's headers (a key with a budget)."""

    schema_name: str
    credentials: dict[str, str]
    contact_ids: list[int]
    gateway: dict[str, str] = field(default_factory=dict)
    oauth: OAuthGrant | None = None


# The MCP revisions a client may speak; 2026-07-28 is stateless (no session: `_meta` on each request).
REVISIONS = ("2025-06-18", "2025-11-25", "2026-07-28")
STATELESS = "2026-07-28"


def mcp_client(url: str, credentials: dict[str, str], revision: str, timeout: float) -> Any:
    """A client of /api/mcp speaking `revision` (McpHttp, or its stateless form for 2026-07-28)."""
    from apps.mcp.testing import McpHttp

    if revision != STATELESS:
        client = McpHttp(url, credentials, timeout=timeout)
        client.revision = revision  # type: ignore[attr-defined]
        return client

    class Stateless(McpHttp):
        """Each request stands alone, with its `_meta` and the headers that mirror its body."""

        def initialize(self, version: str = STATELESS, *args: Any, **kwargs: Any) -> httpx.Response | None:  # type: ignore[override]
            return None

        def request(
            self, method: str, params: dict[str, Any] | None = None, **headers: str
        ) -> httpx.Response:
            params = dict(params or {})
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": STATELESS,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": self.client_info,
            }
            extra = {"MCP-Protocol-Version": STATELESS, "Mcp-Method": method}
            if method == "tools/call":
                extra["Mcp-Name"] = params["name"]
            return super().request(method, params, **extra, **headers)

    client = Stateless(url, credentials, timeout=timeout)
    client.revision = STATELESS  # type: ignore[attr-defined]
    return client


class Seat:
    """A client's place in one workspace: its MCP client (of one revision), the contacts it
    created there, its conversations to poll (the unfinished ones, the last finished ones)."""

    def __init__(self, load: Load, tenant: Tenant, revision: str) -> None:
        self.tenant = tenant
        self.mcp = mcp_client(load.url, tenant.credentials, revision, load.timeout)
        self.mine: list[int] = []
        self.files: list[tuple[int, str]] = []  # the files it stored: (id, SHA-256 of the bytes)
        self.pending: deque[str] = deque()
        self.finished: deque[str] = deque(maxlen=20)
        # Only one seat refreshes a workspace's grant (a refresh token is used by one client).
        self.oauth = tenant.oauth if load.seats.setdefault(tenant.schema_name, self) is self else None


class Client:
    """One closed-loop client: a seat in each of its workspaces (its own MCP session there, its
    own contacts to update, its own conversations to poll); each operation picks one. An
    operation sends one request and returns its response; before sending, it notes in `attempt`
    what a failure would leave unknown (the address a creation tried, the tag of a post, and `op`
    when it did another operation than the one drawn)."""

    def __init__(self, load: Load, number: int) -> None:
        self.load = load
        self.rng = random.Random(number)  # a load mix, not a secret
        tenants = load.tenants[number :: load.clients] or [load.tenants[number % len(load.tenants)]]
        revisions = load.revisions
        self.seats = [
            Seat(load, tenant, revisions[(number + index) % len(revisions)])
            for index, tenant in enumerate(tenants)
        ]
        self.seat = self.seats[0]
        self.attempt: dict[str, Any] = {}

    @property
    def mcp(self) -> Any:
        return self.seat.mcp

    @property
    def mine(self) -> list[int]:
        return self.seat.mine

    @property
    def pending(self) -> deque[str]:
        return self.seat.pending

    @property
    def finished(self) -> deque[str]:
        return self.seat.finished

    def initialize(self) -> None:
        for seat in self.seats:
            seat.mcp.initialize(seat.mcp.revision)

    def close(self) -> None:
        for seat in self.seats:
            seat.mcp.close()

    def tools_list(self) -> httpx.Response:
        return self.mcp.request("tools/list", {})

    def get_contact(self) -> httpx.Response:
        return self.mcp.call("getContact", {"contactId": self.rng.choice(self.seat.tenant.contact_ids)})

    def list_contacts(self) -> httpx.Response:
        return self.mcp.call("listContacts", {})

    def create_contact(self) -> httpx.Response:
        unique = secrets.token_hex(8)
        email = f"load-{unique}@{EMAIL_DOMAIN}"
        self.attempt.update(op="createContact", email=email)
        # A name of its own: look-alikes would make every creation a duplicate check's worst case.
        return self.mcp.call(
            "createContact", {"contact": {"firstName": "Load", "lastName": f"Test {unique}", "email": email}}
        )

    def update_contact(self) -> httpx.Response:
        if not self.mine:
            return self.create_contact()
        contact_id = self.rng.choice(self.mine)
        city = self.rng.choice(["London", "Paris", "Lagos", "Lima", "Osaka"])
        return self.mcp.call("updateContact", {"contactId": contact_id, "changes": {"city": city}})

    def upload_file(self) -> httpx.Response:
        unique = secrets.token_hex(8)
        name = f"load-{unique}.bin"
        content = self.rng.randbytes(self.rng.randint(1_024, 16_384))
        self.attempt.update(op="files/upload", name=name, sha=hashlib.sha256(content).hexdigest())
        return self.mcp.call(
            "createFileEntity",
            {"name": name, "contentBase64": base64.b64encode(content).decode(), "ifExists": "error"},
        )

    def download_file(self) -> httpx.Response:
        if not self.seat.files:
            return self.upload_file()
        file_id, sha = self.rng.choice(self.seat.files)
        self.attempt.update(op="files/download", sha=sha)
        return self.mcp.call("downloadFileEntity", {"fileId": file_id, "mode": "inline"})

    def oauth_refresh(self) -> httpx.Response:
        grant = self.seat.oauth
        if grant is None or grant.broken:
            return self.tools_list()
        self.attempt.update(op="oauth/refresh")
        return refresh_grant(
            self.load.url, grant, self.seat.tenant.credentials.get("Host"), self.load.timeout
        )

    def agent_post(self) -> httpx.Response:
        tag = f"{TAG}-{secrets.token_hex(8)}"
        self.attempt.update(op="agent/post", tag=tag)
        return self.mcp.http.post(
            "/api/agent",
            json={
                "message": "List my contacts in Oslo",
                "context": {"entity_type": "contact", "action": "search"},
                "metadata": {TAG: tag},
            },
            headers=self.seat.tenant.gateway,
        )

    def agent_poll(self) -> httpx.Response:
        if self.pending:
            conversation = self.pending[0]
            self.pending.rotate(-1)
        elif self.finished:
            conversation = self.rng.choice(self.finished)
        else:
            return self.agent_post()
        return self.mcp.http.get(f"/api/agent/{conversation}", headers=self.seat.tenant.gateway)


def refresh_grant(url: str, grant: OAuthGrant, host: str | None, timeout: float) -> httpx.Response:
    """One refresh of `grant` at the token endpoint of the workspace at `host` behind `url`: a
    public client (its id, no secret), with none of the MCP calls' credentials."""
    return httpx.post(
        f"{url}/oauth/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": grant.refresh_token,
            "client_id": grant.client_id,
        },
        headers={"Host": host} if host else {},
        timeout=timeout,
    )


# Name -> what a client does.
OPERATIONS: dict[str, Callable[[Client], httpx.Response]] = {
    "tools/list": Client.tools_list,
    "getContact": Client.get_contact,
    "listContacts": Client.list_contacts,
    "createContact": Client.create_contact,
    "updateContact": Client.update_contact,
    "agent/post": Client.agent_post,
    "agent/poll": Client.agent_poll,
    "files/upload": Client.upload_file,
    "files/download": Client.download_file,
    "oauth/refresh": Client.oauth_refresh,
}
DEFAULT_MIX = {
    "tools/list": 2,
    "getContact": 3,
    "listContacts": 2,
    "createContact": 2,
    "updateContact": 1,
    "agent/post": 1,
    "agent/poll": 2,
}


def parse_mix(text: str) -> dict[str, int]:
    mix = {}
    for part in text.split(","):
        name, _, weight = part.strip().partition("=")
        if name not in OPERATIONS:
            raise SystemExit(f"unknown operation {name!r}; known: {', '.join(OPERATIONS)}")
        mix[name] = int(weight or 1)
    return mix


# --- the load itself ----------------------------------------------------------------------------


@dataclass
class Conversation:
    """One conversation the gateway accepted (202), as the polls last saw it."""

    uuid: str
    tag: str
    posted_at: float  # time.monotonic() when its post was sent
    status: str = "accepted"
    error_code: str = ""
    seconds: float | None = None  # created_at -> resolved_at / failed_at, as the service wrote them
    reply: str = ""  # the last turn's content, once resolved
    model_calls: int | None = None
    tool_calls: int | None = None
    workspace: str = ""
    webhook: dict[str, Any] = field(default_factory=dict)  # SPEC 2.1's webhook object, last seen
    cost_micro_usd: int | None = None

    def observe(self, body: dict[str, Any]) -> None:
        self.status = body["status"]
        self.webhook = body.get("webhook") or {}
        if self.status not in FINISHED:
            return
        self.error_code = (body.get("error") or {}).get("code", "")
        ended = body.get("resolved_at") or body.get("failed_at")
        if ended and body.get("created_at"):
            self.seconds = (
                datetime.fromisoformat(ended) - datetime.fromisoformat(body["created_at"])
            ).total_seconds()
        turns = body.get("turns") or []
        last = turns[-1] if turns else {}
        self.reply = (
            str((last.get("payload") or {}).get("content", "")) if last.get("role") == "agent" else ""
        )
        cost = body.get("cost") or {}
        self.model_calls, self.tool_calls = cost.get("model_calls"), cost.get("tool_calls")
        self.cost_micro_usd = cost.get("micro_usd")


class Load:
    """`clients` threads sending the mix through `url` until `stop()`; `outcomes` grows as they go,
    and `conversations` (uuid -> Conversation) with each 202 of the gateway. `gateway`: the
    personal access token and API key (with a budget) the gateway's operations use. With `tenants`,
    the load is spread over several workspaces instead (each client holds a seat in some of them:
    `Client`), and `revisions` are the MCP revisions its clients speak, in turn."""

    def __init__(
        self,
        url: str,
        credentials: dict[str, str],
        contact_ids: list[int],
        *,
        clients: int = 8,
        mix: dict[str, int] | None = None,
        timeout: float = 15.0,
        gateway: dict[str, str] | None = None,
        tenants: list[Tenant] | None = None,
        revisions: tuple[str, ...] = ("2025-06-18",),
    ) -> None:
        self.url = url
        self.clients = clients
        self.mix = mix or DEFAULT_MIX
        self.tenants = tenants or [Tenant("", credentials, contact_ids, gateway or {})]
        self.revisions = revisions
        if any(not tenant.gateway for tenant in self.tenants) and any(
            name.startswith("agent/") for name in self.mix
        ):
            raise ValueError("the gateway's operations need `gateway` credentials (a key with a budget)")
        self._gateway = {tenant.schema_name: tenant.gateway for tenant in self.tenants}
        self.seats: dict[str, Seat] = {}  # the seat that refreshes each workspace's OAuth grant
        self.timeout = timeout
        self.outcomes: list[Outcome] = []
        self.conversations: dict[str, Conversation] = {}
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

    def conversations_posted(self, start: float, end: float) -> list[Conversation]:
        with self._lock:
            return [item for item in self.conversations.values() if start <= item.posted_at < end]

    def _run(self, number: int) -> None:
        client = Client(self, number)
        try:
            client.initialize()
        finally:
            self._ready.wait(timeout=120)
        names, weights = list(self.mix), list(self.mix.values())
        try:
            while not self._stop.is_set():
                op = client.rng.choices(names, weights)[0]
                client.seat = client.rng.choice(client.seats)
                outcome = self._one(client, op)
                with self._lock:
                    self.outcomes.append(outcome)
                if outcome.kind != "ok":
                    time.sleep(PAUSE_AFTER_FAILURE)
        finally:
            client.close()

    def _one(self, client: Client, op: str) -> Outcome:
        started = time.monotonic()
        client.attempt = attempt = {}
        workspace = client.seat.tenant.schema_name
        revision = "" if op.startswith("agent/") else client.seat.mcp.revision
        try:
            response = OPERATIONS[op](client)
        except httpx.HTTPError as error:
            kind = "timeout" if isinstance(error, httpx.TimeoutException) else "connection"
            outcome = Outcome(attempt.get("op", op), started, time.monotonic() - started, kind)
            outcome.detail, outcome.email, outcome.tag, outcome.name = (
                repr(error)[:200],
                attempt.get("email"),
                attempt.get("tag"),
                attempt.get("name"),
            )
            outcome.workspace, outcome.revision = workspace, revision
            if outcome.op == "oauth/refresh" and client.seat.oauth is not None:
                client.seat.oauth.broken = True
            return outcome
        seconds = time.monotonic() - started
        kind, detail = classify(response)
        op = attempt.get("op", op)  # what it did (an update or a poll with nothing to work on creates)
        outcome = Outcome(
            op, started, seconds, kind, response.status_code, response.headers.get("x-upstream"), detail
        )
        outcome.email, outcome.tag, outcome.name = (
            attempt.get("email"),
            attempt.get("tag"),
            attempt.get("name"),
        )
        outcome.workspace = workspace
        outcome.revision = "" if op.startswith("agent/") else revision
        if kind == "ok" and op == "createContact":
            client.mine.append(response.json()["result"]["structuredContent"]["contact"]["id"])
        elif kind == "ok" and op == "files/upload":
            client.seat.files.append((response.json()["result"]["structuredContent"]["id"], attempt["sha"]))
        elif kind == "ok" and op == "files/download":
            # The bytes stored are the bytes uploaded, whatever happened in between.
            content = response.json()["result"]["structuredContent"].get("contentBase64") or ""
            if hashlib.sha256(base64.b64decode(content)).hexdigest() != attempt["sha"]:
                outcome.kind, outcome.detail = "bad_body", "the bytes differ from those uploaded"
        elif op == "oauth/refresh" and client.seat.oauth is not None:
            if kind == "ok":
                # A new refresh token replaces the old one; none given, the old one stays
                # (RFC 6749, section 6).
                given = response.json().get("refresh_token")
                client.seat.oauth.refresh_token = given or client.seat.oauth.refresh_token
            elif told_unknown(outcome):
                client.seat.oauth.broken = True
        elif kind == "ok" and op == "agent/post":
            uuid = response.json()["conversation_uuid"]
            with self._lock:
                self.conversations[uuid] = Conversation(uuid, outcome.tag or "", started, workspace=workspace)
            client.pending.append(uuid)
        elif kind == "ok" and op == "agent/poll":
            body = response.json()
            self.observe(body)
            if body["status"] in FINISHED and body["conversation_uuid"] in client.pending:
                client.pending.remove(body["conversation_uuid"])
                client.finished.append(body["conversation_uuid"])
        return outcome

    def observe(self, body: dict[str, Any]) -> None:
        with self._lock:
            known = self.conversations.get(body["conversation_uuid"])
            if known is not None:
                known.observe(body)

    def settle(
        self, grace: float, every: float = 1.0, *, webhooks: bool = False, limit: float | None = None
    ) -> float:
        """Once the load has stopped: polls the unfinished conversations (with `webhooks`, also
        those whose webhook is not settled yet: delivered or failed) until none is left or
        `grace` seconds have passed. With `limit`, `grace` counts from the last progress instead
        (a conversation or webhook settled): a backlog the workers are still working through is
        waited for, up to `limit` seconds in all; one that stopped moving is not. Returns how long
        it took."""
        started = moved = time.monotonic()
        fewest: int | None = None
        with httpx.Client(base_url=self.url, timeout=self.timeout) as http:
            while True:
                with self._lock:
                    waiting = [
                        (item.uuid, item.workspace)
                        for item in self.conversations.values()
                        if item.status not in FINISHED
                        or (webhooks and item.webhook.get("status") not in WEBHOOK_SETTLED)
                    ]
                now = time.monotonic()
                if fewest is None or len(waiting) < fewest:
                    fewest = len(waiting)
                    if limit is not None:
                        moved = now
                if not waiting or now - moved >= grace or (limit is not None and now - started >= limit):
                    return time.monotonic() - started
                for uuid, workspace in waiting:
                    try:
                        response = http.get(f"/api/agent/{uuid}", headers=self._gateway[workspace])
                    except httpx.HTTPError:
                        continue
                    if classify_gateway(response)[0] == "ok":
                        self.observe(response.json())
                time.sleep(every)


# --- reading the outcomes -----------------------------------------------------------------------


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


def describe_conversations(conversations: list[Conversation]) -> str:
    """Accepted, resolved, failed (by code), still open; and, of those that ended, how long they
    took as the service wrote it (created_at to resolved_at / failed_at)."""
    statuses = Counter(item.status for item in conversations)
    failed = Counter(item.error_code for item in conversations if item.status == "failed")
    still_open = len(lost(conversations))
    no_reply = sum(1 for item in conversations if item.status == "resolved" and not item.reply)
    tools = Counter(item.tool_calls for item in conversations if item.status == "resolved")
    seconds = [item.seconds for item in conversations if item.seconds is not None]
    unfinished = {status: n for status, n in sorted(statuses.items()) if status not in FINISHED}
    text = (
        f"{len(conversations)} accepted: {statuses['resolved']} resolved, {statuses['failed']} failed"
        f"{' ' + str(dict(sorted(failed.items()))) if failed else ''}, {still_open} still open"
        f"{' ' + str(unfinished) if still_open else ''}; resolved without a reply {no_reply}; tool "
        f"calls per resolved conversation {dict(sorted(tools.items(), key=lambda pair: str(pair[0])))}"
    )
    if seconds:
        p50, p99 = percentile(seconds, 0.5), percentile(seconds, 0.99)
        text += f"; accepted -> ended p50 {p50:.2f} s, p99 {p99:.2f} s, max {max(seconds):.2f} s"
    return text


def lost(conversations: list[Conversation]) -> list[Conversation]:
    """Accepted conversations that did not end (resolved or failed)."""
    return [item for item in conversations if item.status not in FINISHED]


# --- the gateway's side: the model API, a key with a budget, how long to wait ------------------


def model_server(delay: float = 0.0) -> Any:
    """The model API the service's agent calls (OpenAI-compatible chat completions, on loopback,
    started): each conversation's first call gets a `listContacts` tool call, the next the reply;
    each answer after `delay` seconds (a real model takes seconds; this one stands for its
    protocol, not its speed). Its `problems` list what the real API would have refused."""
    from apps.gateway.tests.servers import ModelServer, openai_text, openai_tool_calls, tool_results

    def respond(body: dict[str, Any], _index: int) -> dict[str, Any]:
        if delay:
            time.sleep(delay)
        if not tool_results(body):
            return openai_tool_calls(("listContacts", {}), usage=(800, 20))
        return openai_text("These are your contacts in Oslo.", usage=(1200, 30))

    return ModelServer("openai", respond).start()


def model_env(model: Any) -> dict[str, str]:
    """The settings that point the service's agent at `model` (prices in USD per million tokens:
    every call is metered against the key's budget)."""
    return {
        "ATRIUM_GATEWAY_MODEL_BACKEND": "openai",
        "ATRIUM_GATEWAY_MODEL_URL": model.url,
        "ATRIUM_GATEWAY_MODEL_NAME": MODEL,
        "ATRIUM_GATEWAY_MODEL_API_KEY": model.api_key,
        "ATRIUM_GATEWAY_MODEL_PRICES": json.dumps({MODEL: {"input": "1", "output": "5"}}),
    }


def gateway_credentials(email: str, schema_name: str, budget_cents: int) -> tuple[dict[str, str], int]:
    """SPEC 4.4's headers for `email`: a new personal access token and a new API key of theirs with
    a budget of `budget_cents` that never resets (committed). Returns them and the key's id."""
    from django_tenants.utils import schema_context

    from apps.accounts.models import User
    from apps.accounts.services import access_token_create
    from apps.apikeys.services import api_key_create

    with schema_context(schema_name):
        user = User.objects.get(email=email)
        _token, raw = access_token_create(user=user, name=f"load {secrets.token_hex(3)}")
        created = api_key_create(
            user=user,
            label=f"load {secrets.token_hex(3)}",
            budget_usd_cents=budget_cents,
            budget_period="total",
        )
    return {"Authorization": f"Bearer {raw}", "X-Api-Key": created.raw_key}, created.key.pk


def key_spend(database_url: str, schema_name: str, key_id: int) -> tuple[int, int, int | None]:
    """(spent, reserved, budget) of an API key, in micro-dollars, read directly."""
    import psycopg
    from psycopg import sql

    query = sql.SQL(
        "SELECT spent_micro_usd, reserved_micro_usd, budget_usd_cents FROM {} WHERE id = %s"
    ).format(sql.Identifier(schema_name, "apikeys_apikey"))
    with psycopg.connect(database_url, connect_timeout=10) as connection:
        spent, reserved, cents = connection.execute(query, [key_id]).fetchone()
    return spent, reserved, None if cents is None else cents * 10_000


def recovery_grace() -> tuple[float, str]:
    """How long a conversation a restart left behind may take to end, from the gateway's
    settings (this process's, the same environment as the cluster's): an open one whose task was
    lost is queued again GATEWAY_REQUEUE_AFTER_SECONDS after it was; a processing one whose worker
    lost PostgreSQL waits for its lease to run out (a tool's, or a model call's with its
    retries); the sweeper looks every GATEWAY_STUCK_SWEEP_SECONDS. Returns (seconds, why)."""
    from django.conf import settings

    from apps.gateway.agent.context import TOOL_LEASE_SECONDS
    from apps.gateway.agent.model import model_call_allowance

    lease = max(TOOL_LEASE_SECONDS, model_call_allowance()) + settings.GATEWAY_LEASE_MARGIN_SECONDS
    sweep = settings.GATEWAY_STUCK_SWEEP_SECONDS
    requeue = settings.GATEWAY_REQUEUE_AFTER_SECONDS
    grace = max(requeue, lease) + 2 * sweep + 10
    return grace, f"queued again after {requeue:.0f} s, leases up to {lease:.0f} s, swept every {sweep:.0f} s"


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
    parser.add_argument("--model-delay", type=float, default=0.1, help="seconds the model takes per call")
    parser.add_argument("--budget-cents", type=int, default=100_000, help="the gateway key's budget (total)")
    parser.add_argument(
        "--grace",
        type=float,
        default=None,
        help="seconds for unfinished conversations to end after the load (default: from the sweeper's "
        "settings)",
    )
    args, _ = parser.parse_known_args(argv)
    mix = parse_mix(args.mix)
    faults = [] if args.faults == "none" else [name.strip() for name in args.faults.split(",")]

    from apps.core.testing import PrivatePostgres, PrivateRedis, start_cluster

    workdir = Path(tempfile.mkdtemp(prefix="atrium-load-"))
    postgres = PrivatePostgres(workdir / "postgres").start()
    redis = PrivateRedis(workdir / "redis").start()
    model = model_server(args.model_delay)
    cluster = None
    try:
        os.environ["DATABASE_URL"] = postgres.url("postgres")
        os.environ["REDIS_URL"] = redis.url()
        # The model backend's settings in this process too, so that the grace is computed from the
        # settings the cluster runs with. A model call times out after 10 s (loopback answers in
        # --model-delay), unless the environment says otherwise.
        os.environ.setdefault("ATRIUM_GATEWAY_MODEL_TIMEOUT_SECONDS", "10")
        os.environ.update(model_env(model))
        print("(migrating a fresh database: about a minute)", flush=True)
        from bench.common import use_fresh_database

        database_url = use_fresh_database("atrium_load")
        seeded = _seed(args.budget_cents)
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis.url(),
            "DJANGO_SETTINGS_MODULE": "config.settings.bench",
            "ATRIUM_METRICS_TOKEN": METRICS_TOKEN,
            "ATRIUM_LOG_FORMAT": "json",
        }
        cluster = start_cluster(env, workdir / "cluster", web=args.web, workers=args.workers, beat=True)
        _measure(args, mix, faults, cluster, postgres, redis, model, database_url, seeded)
    finally:
        if cluster is not None:
            cluster.stop()
        model.stop()
        redis.stop()
        postgres.stop("immediate")
        shutil.rmtree(postgres.data, ignore_errors=True)
        print(f"(the processes' logs are under {workdir})")


@dataclass
class Seeded:
    schema_name: str
    credentials: dict[str, str]
    contact_ids: list[int]
    gateway: dict[str, str]
    gateway_key_id: int


def _seed(budget_cents: int) -> Seeded:
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
    gateway, key_id = gateway_credentials("owner@load.test", workspace.schema_name, budget_cents)
    connection.close()
    return Seeded(workspace.schema_name, credentials, contact_ids, gateway, key_id)


def _measure(args, mix, faults, cluster, postgres, redis, model, database_url, seeded: Seeded):  # type: ignore[no-untyped-def]
    from apps.mcp.signals import notify_tools_changed

    schema_name, credentials = seeded.schema_name, seeded.credentials
    grace, why = recovery_grace()
    grace = args.grace if args.grace is not None else grace
    from bench.common import freeze_setup_heap

    freeze_setup_heap()
    sampler = MemorySampler(cluster_processes(cluster, redis), every=args.sample_every).start()
    load = Load(
        cluster.url(),
        credentials,
        seeded.contact_ids,
        clients=args.clients,
        mix=mix,
        timeout=args.timeout,
        gateway=seeded.gateway,
    )
    print(
        f"load average before: {_loadavg()}; {args.clients} clients, mix {mix}; the model answers in "
        f"{args.model_delay:.2f} s; conversations get {grace:.0f} s to end after the load ({why})",
        flush=True,
    )
    load.start()
    results: list[Fault] = []
    try:
        time.sleep(10)  # warm-up: imports, caches, connections
        start = time.monotonic()
        time.sleep(args.seconds)
        end = time.monotonic()
        print(f"\n--- sustained load, {args.seconds:.0f} s (load average now {_loadavg()})")
        print(describe(load.between(start, end), end - start))
        print("resident memory (first minute -> last minute):")
        print("\n".join(sampler.report(start, end)))

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
    waited = load.settle(grace)
    print(f"\nthe door's own count ({METRIC}, door mcp, summed over every process): {_tool_calls(cluster)}")
    events = _conversation_events(cluster)
    print(f"the gateway's own count (atrium_gateway_conversations_total, by event): {events}")
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
    missing, phantom, partial = half_written_posts(outcomes, database_url, schema_name)
    ok, failed, unknown = ledger(outcomes, "tag")
    print(
        f"agent/post ledger: {len(ok)} answered 202, {len(failed)} answered failure, {len(unknown)} without "
        f"answer; 202 but missing: {len(missing)}; failure but stored: {len(phantom)}; stored without its "
        f"message: {len(partial)}"
    )
    conversations = list(load.conversations.values())
    print(f"\nconversations, after waiting {waited:.0f} s (at most {grace:.0f}) for the unfinished to end:")
    print(f"  all: {describe_conversations(conversations)}")
    for fault in results:
        fault.conversations = load.conversations_posted(fault.down_at - 1.0, fault.up_at + args.after)
        print(f"  posted around the {fault.name}: {describe_conversations(fault.conversations)}")
    left = lost(conversations)
    print(f"  lost (accepted, never ended): {len(left)}{' e.g. ' + left[0].uuid if left else ''}")
    spent, reserved, budget = key_spend(database_url, schema_name, seeded.gateway_key_id)
    print(
        f"  the key's budget: {spent} µUSD spent, {reserved} µUSD still reserved, of {budget} µUSD; "
        f"the model server got {len(model.requests)} calls, refused {len(model.problems)} as malformed"
    )
    print(f"whole run: {describe(outcomes, outcomes[-1].ended - outcomes[0].at)}")
    print(f"load average after: {_loadavg()}")


def _scrape(cluster: Any) -> list[Any]:
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(
        f"{cluster.webs[0].url()}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10
    ).text
    return [sample for family in text_string_to_metric_families(text) for sample in family.samples]


def _conversation_events(cluster: Any) -> dict[str, float]:
    counts: Counter = Counter()
    for sample in _scrape(cluster):
        if sample.name == "atrium_gateway_conversations_total":
            counts[sample.labels["event"]] += sample.value
    return dict(sorted(counts.items()))


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
