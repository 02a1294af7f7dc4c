"""`make up` / `make down` for real: bootstrap.py starts the web server, a Celery worker and beat
in the background, answers on both demo hosts, and stops everything it started.

It runs on a database of its own and on the PostgreSQL and Redis the suite already uses (the
embedded servers are what `make test` itself proves by running at all).
"""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
import pytest
from django.conf import settings

from apps.catalogue import registry
from apps.core.testing import ROOT, database_url, free_port, mcp_session

pytestmark = pytest.mark.live


@pytest.fixture
def scratch_database(django_db_setup, committed):
    parts = urlsplit(database_url())
    admin = urlunsplit(parts._replace(path="/postgres"))
    name = "atrium_up_check"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    yield urlunsplit(parts._replace(path=f"/{name}"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def wait_for_log(path: Path, *needles: str, seconds: float = 90) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = path.read_text()
        if all(needle in text for needle in needles):
            return True
        time.sleep(0.5)
    return False


def access_token(env: dict[str, str], email: str) -> str:
    """A personal access token from the operator's command, as a script's author gets one."""
    issued = subprocess.run(
        [sys.executable, "manage.py", "create_access_token", "--workspace=acme", f"--email={email}"],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings.local"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert issued.returncode == 0, issued.stderr
    return issued.stdout.strip()


# One tool of each built area that needs no argument: what an agent's first look calls.
FIRST_LOOKS = [
    "listContacts",
    "listTasks",
    "getCalendarSummary",
    "listDocuments",
    "listFiles",
    "listNotifications",
    "listDepartments",
    "listGroupAccounts",
]


def agent_over_mcp(port: int, env: dict[str, str]) -> None:
    """What a script does with the demo: a personal access token from the command line, an API key
    from the API, then the official MCP client lists the tools and calls one of each area, and
    creates a task that the settings pages show."""
    origin = f"http://127.0.0.1:{port}"
    token = access_token(env, "owner@acme.example")
    key = httpx.post(
        f"{origin}/api/api-keys",
        json={"label": "make up check"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert key.status_code == 201, key.text
    headers = {"Authorization": f"Bearer {token}", "X-Api-Key": key.json()["key"]}

    async def work(client):  # type: ignore[no-untyped-def]
        looks = {name: await client.call_tool(name, {}) for name in FIRST_LOOKS}
        created = await client.call_tool(
            "createTask", {"title": "Call the printer", "steps": [{"title": "Find the number"}]}
        )
        return looks, created

    info, tools, (looks, created) = mcp_session(f"{origin}/api/mcp", headers, work)

    assert info.name == "Acme Workspace"
    built = {spec.name for spec in registry.all_tools() if not spec.fixture}
    assert built <= set(tools) and len(built) >= 127 + 2
    assert {name: result.is_error for name, result in looks.items()} == dict.fromkeys(FIRST_LOOKS, False)
    assert created.is_error is False, created.content
    with httpx.Client(base_url=origin, timeout=10) as browser:
        browser.get("/accounts/sign-in/")
        signed_in = browser.post(
            "/accounts/sign-in/",
            data={
                "username": "owner@acme.example",
                "password": settings.ATRIUM_DEMO_PASSWORD,
                "csrfmiddlewaretoken": browser.cookies.get("atrium_csrf", ""),
            },
        )
        assert signed_in.status_code == 302, signed_in.text[:500]
        assert "Call the printer" in browser.get("/settings/tasks/").text


def gateway_script_gets_its_reply_webhook_and_spend(env: dict[str, str], port: int, tmp_path: Path) -> None:
    """The gateway's done-when on the fresh `make up`: with a token (the operator's command) and a
    key (`/api/api-keys`), docs/examples/gateway_client.py gets 202 and polls to `resolved` with the
    built-in agent (no model configured), docs/examples/webhook_receiver.py receives a webhook whose
    two signatures it verified, and the key's record shows what was spent."""
    base = f"http://127.0.0.1:{port}"
    token = access_token(env, "member@acme.example")
    bearer = {"Authorization": f"Bearer {token}"}
    hook_port = free_port()
    created = httpx.post(
        f"{base}/api/api-keys",
        json={
            "label": "gateway script",
            "response_url": f"http://127.0.0.1:{hook_port}/hooks",
            "budget_usd_cents": 500,
            "budget_period": "monthly",
        },
        headers=bearer,
        timeout=30,
    )
    assert created.status_code == 201, created.text
    key = created.json()
    received = tmp_path / "webhooks.out"
    with open(received, "w") as output:
        receiver = subprocess.Popen(
            [sys.executable, str(ROOT / "docs" / "examples" / "webhook_receiver.py"), str(hook_port)],
            env={**env, "ATRIUM_SIGNING_SECRET": key["signing_secret"], "PYTHONUNBUFFERED": "1"},
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while not port_open(hook_port) and time.monotonic() < deadline:
            time.sleep(0.1)
        email = "script@example.org"
        script = subprocess.run(
            [
                sys.executable,
                str(ROOT / "docs" / "examples" / "gateway_client.py"),
                base,
                f"Create a contact Sam Script, email: {email}",
            ],
            env={**env, "ATRIUM_TOKEN": token, "ATRIUM_API_KEY": key["key"]},
            capture_output=True,
            text=True,
            timeout=360,
        )
        assert script.returncode == 0, script.stdout + script.stderr
        accepted, final = (json.loads(line) for line in script.stdout.splitlines())
        assert accepted["accepted"]["status"] == "accepted" and accepted["request_id"]
        assert final["status"] == "resolved" and "Sam Script" in final["reply"]
        assert final["cost"]["micro_usd"] == 0
        conversation_uuid = final["conversation_uuid"]
        assert wait_for_log(received, f"{conversation_uuid}: ", seconds=60), received.read_text()
    finally:
        receiver.terminate()
        receiver.wait(timeout=10)
    headers = {**bearer, "X-Api-Key": key["key"]}
    polled = httpx.get(f"{base}/api/agent/{conversation_uuid}", headers=headers, timeout=30).json()
    assert polled["webhook"]["status"] == "delivered" and polled["webhook"]["delivered_at"]
    usage = httpx.get(f"{base}/api/api-keys/{key['id']}", headers=bearer, timeout=30).json()["usage"]
    assert usage["conversations_today"] == 1 and usage["spent_today_micro_usd"] == 0
    # The request id of the POST is in the worker's log lines about this conversation.
    assert wait_for_log(
        tmp_path / "logs" / "atrium.log",
        f"{accepted['request_id']}] conversation {conversation_uuid} resolved",
    )


def test_up_serves_both_workspaces_and_down_stops_everything(scratch_database, tmp_path: Path):
    port = free_port()
    redis = urlsplit(settings.REDIS_URL)
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    env.update(
        {
            "ATRIUM_DATA_DIR": str(tmp_path),
            "ATRIUM_PORT": str(port),
            "DATABASE_URL": scratch_database,
            "REDIS_URL": urlunsplit(redis._replace(path="/9")),  # its own Redis database
        }
    )
    bootstrap = [sys.executable, str(ROOT / "bootstrap.py")]

    up = subprocess.run([*bootstrap, "up"], env=env, capture_output=True, text=True, timeout=300)
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        assert f"http://127.0.0.2:{port}/" in up.stdout and "owner@acme.example" in up.stdout
        acme = httpx.get(f"http://127.0.0.1:{port}/", timeout=10)
        globex = httpx.get(f"http://127.0.0.2:{port}/", timeout=10)
        assert "<h1>Acme Workspace</h1>" in acme.text
        assert "<h1>Globex Hub</h1>" in globex.text
        pid = int((tmp_path / "run" / "atrium.pid").read_text())
        # `up` returns once the web server is ready; the worker and beat finish starting a little
        # later (longer on a loaded machine).
        assert wait_for_log(tmp_path / "logs" / "atrium.log", "celery@", "beat: Starting")
        agent_over_mcp(port, env)
        gateway_script_gets_its_reply_webhook_and_spend(env, port, tmp_path)
        again = subprocess.run([*bootstrap, "up"], env=env, capture_output=True, text=True, timeout=60)
        assert again.returncode == 0 and "already running" in again.stderr
        assert "takes effect after `make down` and `make up`" in again.stderr
    finally:
        # `stop` stops the embedded services whoever started them: the background service first,
        # as `down` does.
        down = subprocess.run([*bootstrap, "stop"], env=env, capture_output=True, text=True, timeout=120)

    assert down.returncode == 0, down.stdout + down.stderr
    assert "stopping it first" in down.stderr
    assert not port_open(port)
    assert not (tmp_path / "run" / "atrium.pid").exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout
    assert leftovers == "", f"processes left running: {leftovers}"
