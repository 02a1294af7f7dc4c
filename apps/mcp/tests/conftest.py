"""Live servers for the transport's tests: a web process on loopback, on the test database and Redis,
with the transport's stand-ins (`support`): a credential scheme and a dispatcher of their own."""

import asyncio
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from apps.core.testing import LiveServer, database_url, start_web
from apps.mcp.testing import McpHttp

SUPPORT_SETTINGS = "apps.mcp.tests.support.settings"


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
    server = start_web(mcp_env)
    yield server
    server.stop()


class Mcp(McpHttp):
    """Raw HTTP against /api/mcp, for the cases the official clients never produce; it
    authenticates with the stand-in scheme (`Bearer test:<email>`), which tests may change
    through `credentials`."""

    client_info = {"name": "raw", "version": "1"}

    def __init__(
        self, server: LiveServer, host: str = "127.0.0.1", email: str = "member@acme.example"
    ) -> None:
        super().__init__(server.url(host), {"Authorization": f"Bearer test:{email}"})
        self.server = server


def caller_state(email: str = "member@acme.example") -> Any:
    """The catalogue's state of a 2026-07-28 caller of Acme with the stand-in credential (a Redis
    hash, apps.mcp.callers): what its tools noted, such as waitForCancel's `cancelled`. Needs the
    database (`committed`)."""
    from django_tenants.utils import schema_context

    from apps.accounts.models import User
    from apps.core.credentials import Principal
    from apps.mcp import callers

    with schema_context("acme"):
        user = User.objects.get(email=email)
        # The stand-in credential's label (support/credentials.py).
        principal = Principal(
            user=user, scheme="test", scopes=frozenset({"mcp"}), credential=f"test:{user.pk}"
        )
        return callers.CallerState(callers.caller_digest(principal))


def noted(state: Any, key: str, timeout: float = 5.0) -> Any:
    """`key` of a caller's state once it is set (None if it is not within `timeout` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        value = state.get(key)
        if value is not None or time.monotonic() >= deadline:
            return value
        time.sleep(0.05)


@pytest.fixture
def mcp(mcp_server) -> Iterator[Mcp]:  # type: ignore[no-untyped-def]
    client = Mcp(mcp_server)
    yield client
    client.close()


@pytest.fixture
def told():  # type: ignore[no-untyped-def]
    """This process listening for ended sessions and revoked credentials (apps.mcp.endings), as a
    web process's event loop does."""
    from apps.mcp import sessions

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    assert asyncio.run_coroutine_threadsafe(sessions.watch.started(), loop).result(10)
    yield sessions.watch
    asyncio.run_coroutine_threadsafe(sessions.watch.stop(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    loop.close()
