"""Live servers for the transport's tests: Daphne on loopback, on the test database and Redis,
with the transport's stand-ins (`support`): a credential scheme and a dispatcher of their own."""

import os
from collections.abc import Iterator

import httpx
import pytest

from apps.core.testing import LiveServer, database_url, start_daphne
from apps.mcp.testing import StreamReader

SUPPORT_SETTINGS = "apps.mcp.tests.support.settings"
ACCEPT_BOTH = "application/json, text/event-stream"


def support_env(**extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": SUPPORT_SETTINGS,
        "ATRIUM_MCP_KEEPALIVE_SECONDS": "1",
        **extra,
    }


@pytest.fixture(scope="session")
def mcp_env(django_db_setup, django_db_blocker) -> dict[str, str]:  # type: ignore[no-untyped-def]
    with django_db_blocker.unblock():
        return support_env(DATABASE_URL=database_url())


@pytest.fixture(scope="session")
def mcp_server(mcp_env) -> Iterator[LiveServer]:  # type: ignore[no-untyped-def]
    server = start_daphne(mcp_env)
    yield server
    server.stop()


class Mcp:
    """Raw HTTP against /api/mcp, for the cases the official clients never produce."""

    def __init__(
        self, server: LiveServer, host: str = "127.0.0.1", email: str = "member@acme.example"
    ) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.url(host), timeout=15)
        self.auth = {"Authorization": f"Bearer test:{email}"}
        self.session_id: str | None = None
        self.next_id = 1

    def headers(self, **extra: str) -> dict[str, str]:
        headers = {"Accept": ACCEPT_BOTH, "Content-Type": "application/json", **self.auth}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
            headers["MCP-Protocol-Version"] = "2025-06-18"
        headers.update(extra)
        return headers

    def post(self, message: object, **headers: str) -> httpx.Response:
        return self.http.post("/api/mcp", json=message, headers=self.headers(**headers))

    def request(self, method: str, params: dict | None = None, **headers: str) -> httpx.Response:
        message: dict = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        self.next_id += 1
        if params is not None:
            message["params"] = params
        return self.post(message, **headers)

    def initialize(self, version: str = "2025-06-18", capabilities: dict | None = None) -> httpx.Response:
        response = self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": capabilities or {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
        assert response.status_code == 200, response.text
        self.session_id = response.headers["mcp-session-id"]
        assert self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
        return response

    def stream(self, *, last_event_id: str | None = None) -> StreamReader:
        """Opens the session's GET stream; returns once the server has sent its opening comment."""
        return StreamReader(str(self.http.base_url), self.headers(), last_event_id=last_event_id)


@pytest.fixture
def mcp(mcp_server) -> Iterator[Mcp]:  # type: ignore[no-untyped-def]
    client = Mcp(mcp_server)
    yield client
    client.http.close()
