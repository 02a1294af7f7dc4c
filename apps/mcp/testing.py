"""Raw Streamable HTTP against a running `/api/mcp`, for the tests and benchmarks that drive
several processes (tests/test_multiprocess.py, tests/test_faults.py, bench/load.py): a session
with the real credential scheme (a personal access token + X-Api-Key, SPEC 5.2), and a GET
stream held open in a thread (`StreamReader`). The transport's own tests build their raw client
on `McpHttp` too, with their stand-in credentials (apps/mcp/tests/conftest.py). Every response
is kept as `last` so a caller behind the test load balancer can read which web process answered
(`X-Upstream`). `Door` serves the same requests in-process, without HTTP."""

import json
import queue
import secrets
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from apps.mcp.handlers import Reply

ACCEPT_BOTH = "application/json, text/event-stream"
# What these raw clients offer unless told otherwise: the revision whose behaviour most tests pin.
PROTOCOL_VERSION = "2025-06-18"


def pat_and_key(email: str, schema_name: str = "acme") -> dict[str, str]:
    """SPEC 5.2's headers for `email`: a new personal access token and a new API key of theirs
    (committed: call it where the database is reachable and writes are kept)."""
    from django_tenants.utils import schema_context

    from apps.accounts.models import User
    from apps.accounts.services import access_token_create
    from apps.apikeys.services import api_key_create

    with schema_context(schema_name):
        user = User.objects.get(email=email)
        _token, raw = access_token_create(user=user, name=f"mcp {secrets.token_hex(3)}")
        key = api_key_create(user=user, label=f"mcp {secrets.token_hex(3)}")
    return {"Authorization": f"Bearer {raw}", "X-Api-Key": key.raw_key}


class Door:
    """Requests served in this process (`apps.mcp.handlers.serve`), with the real credentials."""

    def __init__(self, credentials: dict[str, str], host: str = "127.0.0.1") -> None:
        self.host = host
        self.headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
        self.headers.update({name.lower(): value for name, value in credentials.items()})

    def send(self, method: str, message: dict[str, Any] | None = None) -> "Reply":
        from apps.mcp.handlers import Request, serve

        body = json.dumps(message).encode() if message is not None else b""
        return serve(Request(method, "http", self.host, dict(self.headers), {}, body))

    def initialize(self) -> str:
        """Opens a session; later requests carry it. Returns its id."""
        reply = self.send(
            "POST",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "t"},
                },
            },
        )
        session_id = reply.headers["Mcp-Session-Id"]
        self.headers.update({"mcp-session-id": session_id, "mcp-protocol-version": PROTOCOL_VERSION})
        return session_id

    def call(self, name: str, arguments: dict) -> dict:
        message = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        return self.send("POST", message).body


class McpHttp:
    """One session's requests; `credentials` are the headers that authenticate each of them."""

    # What `initialize` says the client is.
    client_info = {"name": "atrium-tests", "version": "1"}

    def __init__(self, base_url: str, credentials: dict[str, str], *, timeout: float = 15) -> None:
        self.base_url = base_url
        self.credentials = dict(credentials)
        self.http = httpx.Client(base_url=base_url, timeout=timeout)
        self.session_id: str | None = None
        # The version `initialize` negotiated (sent in MCP-Protocol-Version afterwards).
        self.protocol_version = PROTOCOL_VERSION
        self.next_id = 1
        self.last: httpx.Response | None = None

    def headers(self, **extra: str) -> dict[str, str]:
        headers = {"Accept": ACCEPT_BOTH, "Content-Type": "application/json", **self.credentials}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
            headers["MCP-Protocol-Version"] = self.protocol_version
        headers.update(extra)
        return headers

    @property
    def upstream(self) -> str | None:
        """The web process that answered the last request (the test load balancer's header)."""
        return self.last.headers.get("x-upstream") if self.last is not None else None

    def post(self, message: object, **headers: str) -> httpx.Response:
        self.last = self.http.post("/api/mcp", json=message, headers=self.headers(**headers))
        return self.last

    def request(self, method: str, params: dict[str, Any] | None = None, **headers: str) -> httpx.Response:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        self.next_id += 1
        if params is not None:
            message["params"] = params
        return self.post(message, **headers)

    def initialize(
        self,
        version: str = PROTOCOL_VERSION,
        capabilities: dict[str, Any] | None = None,
        *,
        notify: bool = True,
    ) -> httpx.Response:
        """Opens a session (offering `version`); later requests carry it. The answer must be a 200.
        Then `notifications/initialized`, unless `notify` is false: the session is then in no web
        process's memory yet (apps.mcp.sessions keeps a session once a request has used it)."""
        answer = self.request(
            "initialize",
            {"protocolVersion": version, "capabilities": capabilities or {}, "clientInfo": self.client_info},
        )
        assert answer.status_code == 200, answer.text
        self.session_id = answer.headers["mcp-session-id"]
        self.protocol_version = answer.json()["result"]["protocolVersion"]
        if notify:
            initialized = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
            assert initialized.status_code == 202, initialized.text
        return answer

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> httpx.Response:
        return self.request("tools/call", {"name": name, "arguments": arguments or {}})

    def result(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """The CallToolResult of a call that must succeed at the HTTP and JSON-RPC levels."""
        answer = self.call(name, arguments)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert "result" in body, body
        return body["result"]

    def stream(self, *, last_event_id: str | None = None, base_url: str | None = None) -> "StreamReader":
        """Opens the session's GET stream (on `base_url`, default this client's) and returns once
        the server has sent its opening comment."""
        return StreamReader(base_url or self.base_url, self.headers(), last_event_id=last_event_id)

    def close(self) -> None:
        self.http.close()


class StreamReader:
    """A GET /api/mcp stream held open in a thread; collects its events (and comments).

    `headers` are the session's (credentials, Mcp-Session-Id); the stream's Accept, and
    Last-Event-ID when `last_event_id` is given, are put in here."""

    def __init__(
        self,
        base_url: str,
        headers: dict[str, str],
        *,
        last_event_id: str | None = None,
        timeout: float = 10,
    ) -> None:
        headers = {**headers, "Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        self.items: queue.Queue = queue.Queue()
        self.status: int | None = None
        self.response_headers: httpx.Headers = httpx.Headers()
        self.opened = threading.Event()
        self.closed = threading.Event()
        self.http = httpx.Client(base_url=base_url, timeout=httpx.Timeout(10, read=60))
        self.thread = threading.Thread(target=self._run, args=(headers,), daemon=True)
        self.thread.start()
        if not self.opened.wait(timeout):
            self.close()
            raise AssertionError("the stream did not open")

    @property
    def upstream(self) -> str | None:
        return self.response_headers.get("x-upstream")

    def _run(self, headers: dict[str, str]) -> None:
        try:
            with self.http.stream("GET", "/api/mcp", headers=headers) as response:
                self.status = response.status_code
                self.response_headers = response.headers
                block: list[str] = []
                for line in response.iter_lines():
                    if line.startswith(": stream open"):
                        self.opened.set()
                    if line == "":
                        if block:
                            self.items.put(block)
                        block = []
                    else:
                        block.append(line)
        except httpx.HTTPError:
            pass
        finally:
            self.opened.set()
            self.closed.set()

    def next_event(self, timeout: float = 10) -> tuple[str | None, dict[str, Any]]:
        """(event id, message) of the next event; queue.Empty if none comes in time."""
        deadline = time.monotonic() + timeout
        while True:
            block = self.items.get(timeout=max(0.05, deadline - time.monotonic()))
            data = [line[6:] for line in block if line.startswith("data: ")]
            if data:
                ids = [line[4:] for line in block if line.startswith("id: ")]
                return (ids[0] if ids else None), json.loads("\n".join(data))

    def comments(self, timeout: float) -> list[str]:
        """The comment lines (keep-alives, ...) that arrive within `timeout` seconds."""
        found: list[str] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                found += [line for line in self.items.get(timeout=0.2) if line.startswith(":")]
            except queue.Empty:
                continue
        return found

    def close(self) -> None:
        """Disconnects (the client side of a dropped connection)."""
        self.http.close()
        self.closed.wait(5)


def streamed_call(
    base_url: str,
    headers: dict[str, str],
    message: dict[str, Any],
    on_event: Callable[[dict[str, Any]], None],
) -> None:
    """POSTs `message` (a tools/call that may answer with an event stream) and hands each event's
    JSON-RPC message to `on_event` as it arrives, so a test can answer what the server asks."""
    with (
        httpx.Client(base_url=base_url, timeout=30) as http,
        http.stream("POST", "/api/mcp", json=message, headers={**headers, "Accept": ACCEPT_BOTH}) as response,
    ):
        for line in response.iter_lines():
            if line.startswith("data: "):
                on_event(json.loads(line[6:]))
