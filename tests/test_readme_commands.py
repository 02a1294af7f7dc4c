"""`make up` as someone who cloned the project types it, and README.md's operator commands run as
written, on the one service it started.

`make up` on an empty data directory is the slowest thing the suite does (the embedded PostgreSQL
and Redis initialised, then every migration of an empty database): it runs once, for the module,
whose tests then use that service in their order. It answers on both demo hosts with a Celery
worker and beat; an agent with a token from the operators' command and a key from the API lists
and calls the tools over MCP; the gateway's example scripts (docs/examples) get their reply, a
verified webhook and the spend; README's blocks run as written (one restarts the service); and
`bootstrap.py stop` stops the service and the servers it started, leaving no process behind.

The shell blocks of README's *Operators* and *Data-rights requests* sections are read from the
README itself (a changed command is the command tested) and run one by one by bash, in one shell
session (an `export` holds for the commands after it), with the system's `python3` first on PATH
and neither DATABASE_URL nor REDIS_URL set: the environment of a shell where `make up` was typed.
`make up` runs the service on embedded PostgreSQL and Redis of its own (ATRIUM_DATA_DIR, a free
ATRIUM_PORT). The commands run from a directory holding links to the checkout's manage.py,
bootstrap.py and Makefile (which use the checkout they link to), so that the files they write
(`someone.json`) stay out of the checkout.
"""

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from django.conf import settings

from apps.catalogue import registry
from apps.core.testing import ROOT, database_url, free_port, mcp_session

# pyproject.toml's `early_modules` names it: pytest-xdist hands it out before any other module.
pytestmark = pytest.mark.live

VENV_BIN = (ROOT / ".venv" / "bin").resolve()
PERSON = "someone@example.org"
# The first test of the service starts it: minutes on an empty database, more on a busy machine.
WITH_THE_SERVICE = pytest.mark.timeout(1800)


def readme_commands(heading: str) -> list[str]:
    """The commands of the `sh` blocks under README's `## {heading}`, continuation lines joined."""
    text = (ROOT / "README.md").read_text()
    section = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## )", text, re.MULTILINE | re.DOTALL)
    assert section, f"README.md has no section '## {heading}'"
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", section.group(1), re.MULTILINE | re.DOTALL):
        commands += [line.strip() for line in block.replace("\\\n", " ").splitlines() if line.strip()]
    assert commands, f"no shell block under '## {heading}'"
    return commands


def one(commands: list[str], needle: str) -> str:
    found = [command for command in commands if needle in command]
    assert len(found) == 1, f"README should have one command with {needle!r}: {found}"
    return found[0]


def users_environment(data_dir: Path, port: int) -> dict[str, str]:
    """This process's environment as a user's shell has it: no .venv on PATH, no servers named."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "VIRTUAL_ENV", "PYTHONPATH"}
        and not name.startswith(("PYTEST_", "DATA_REQUEST_"))
    }
    env["PATH"] = os.pathsep.join(
        folder
        for folder in os.environ.get("PATH", "").split(os.pathsep)
        if folder and Path(folder).resolve() != VENV_BIN
    )
    # A first `make up` migrates an empty database: minutes when the machine runs other tests too.
    env.update(
        {"ATRIUM_DATA_DIR": str(data_dir), "ATRIUM_PORT": str(port), "ATRIUM_UP_TIMEOUT_SECONDS": "1200"}
    )
    python3 = shutil.which("python3", path=env["PATH"])
    assert python3 and not Path(python3).resolve().is_relative_to(VENV_BIN.parent), python3
    return env


class Shell:
    """One bash session, command by command: what a command exports holds for the next ones."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.env, self.cwd = env, cwd
        self.saved = cwd.parent / "shell.env"

    def run(self, command: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        script = f"{command}\nstatus=$?\nenv -0 > {shlex.quote(str(self.saved))}\nexit $status\n"
        done = subprocess.run(
            ["bash", "-c", script],
            env=self.env,
            cwd=self.cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if self.saved.exists():
            pairs = (item.split("=", 1) for item in self.saved.read_text().split("\0") if "=" in item)
            self.env = {name: value for name, value in pairs if not name.startswith("BASH_FUNC_")}
        return done


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with links to what the commands use of the checkout."""
    folder = tmp_path_factory.mktemp("checkout")
    for name in ("manage.py", "bootstrap.py", "Makefile"):
        (folder / name).symlink_to(ROOT / name)
    return folder


@dataclass
class Service:
    shell: Shell
    origin: str  # Acme's
    port: int
    data_dir: Path
    up: subprocess.CompletedProcess[str]

    @property
    def log(self) -> Path:
        return self.data_dir / "logs" / "atrium.log"


@pytest.fixture(scope="module")
def service(checkout: Path) -> Iterator[Service]:
    """`make up` on embedded servers of its own, typed in a user's shell; stopped afterwards (the
    last test stops it itself). Its data directory is outside pytest's temporary directories: as
    root, PostgreSQL runs as another user, and pytest makes its base directory private again
    whenever a run starts."""
    folder = Path(tempfile.mkdtemp(prefix="atrium-readme-"))
    data_dir, port = folder / "data", free_port()
    shell = Shell(users_environment(data_dir, port), checkout)
    up = shell.run("make up", timeout=1300)
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        # On embedded servers of its own, as no URL was given.
        assert "starting PostgreSQL" in (data_dir / "logs" / "atrium.log").read_text()
        yield Service(shell, f"http://127.0.0.1:{port}", port, data_dir, up)
    finally:
        stop = subprocess.run(
            [sys.executable, str(ROOT / "bootstrap.py"), "stop"],
            env=shell.env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        shutil.rmtree(folder, ignore_errors=True)
        assert stop.returncode == 0, stop.stdout + stop.stderr


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


def access_token(service: Service, email: str) -> str:
    """A personal access token from README's operator command, as a script's author gets one."""
    command = one(readme_commands("Operators"), "create_access_token").replace("owner@acme.example", email)
    issued = service.shell.run(command, timeout=120)
    assert issued.returncode == 0, issued.stdout + issued.stderr
    return issued.stdout.strip()


def fail_to_sign_in(origin: str, email: str) -> None:
    """A wrong password for `email` at Acme's sign-in page: the workspace then keeps the failed
    attempt under that address (personal data the export finds)."""
    with httpx.Client(base_url=origin, timeout=30) as browser:
        browser.get("/accounts/sign-in/")
        answer = browser.post(
            "/accounts/sign-in/",
            data={
                "username": email,
                "password": "not-the-password",
                "csrfmiddlewaretoken": browser.cookies.get("atrium_csrf", ""),
            },
        )
    assert answer.status_code == 200 and "sign-in" in answer.url.path, answer.status_code


def assert_says_start_the_service(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("manage.py: the service is not running") and "`make up`" in lines[0]
    assert done.stdout == ""


# One tool of each area an agent's first look calls, none needing an argument.
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


@WITH_THE_SERVICE
def test_make_up_serves_both_workspaces_with_a_worker_and_beat(service: Service):
    acme = httpx.get(f"http://127.0.0.1:{service.port}/", timeout=30)
    globex = httpx.get(f"http://127.0.0.2:{service.port}/", timeout=30)

    assert f"http://127.0.0.2:{service.port}/" in service.up.stdout
    assert "owner@acme.example" in service.up.stdout
    assert "<h1>Acme Workspace</h1>" in acme.text
    assert "<h1>Globex Hub</h1>" in globex.text
    # `up` returns once the web server is ready; the worker and beat finish starting a little
    # later (longer on a loaded machine).
    assert wait_for_log(service.log, "celery@", "beat: Starting")
    # Typed again, it starts nothing and says how a changed setting would take effect.
    again = service.shell.run("make up", timeout=120)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "already running, with the environment it was started with" in again.stderr
    assert "takes effect after `make down` and `make up`" in again.stderr


@WITH_THE_SERVICE
def test_an_agent_lists_and_calls_the_tools_over_mcp_and_the_pages_show_its_work(service: Service):
    """What a script does with the demo: a personal access token from the command line, an API key
    from the API, then the official MCP client lists the tools and calls one of each area, and
    creates a task that the settings pages show."""
    origin = service.origin
    token = access_token(service, "owner@acme.example")
    key = httpx.post(
        f"{origin}/api/api-keys",
        json={"label": "make up check"},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
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
    with httpx.Client(base_url=origin, timeout=30) as browser:
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


@WITH_THE_SERVICE
def test_the_gateway_example_scripts_get_their_reply_a_verified_webhook_and_the_spend(
    service: Service, tmp_path: Path
):
    """The gateway's done-when on the fresh `make up`: with a token (the operator's command) and a
    key (`/api/api-keys`), docs/examples/gateway_client.py gets 202 and polls to `resolved` with the
    built-in agent (no model configured), docs/examples/webhook_receiver.py receives a webhook whose
    two signatures it verified, and the key's record shows what was spent."""
    base = service.origin
    token = access_token(service, "member@acme.example")
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
            env={
                **service.shell.env,
                "ATRIUM_SIGNING_SECRET": key["signing_secret"],
                "PYTHONUNBUFFERED": "1",
            },
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
            env={**service.shell.env, "ATRIUM_TOKEN": token, "ATRIUM_API_KEY": key["key"]},
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
    assert wait_for_log(service.log, f"{accepted['request_id']}] conversation {conversation_uuid} resolved")


@WITH_THE_SERVICE
def test_the_operators_commands_of_the_readme_work_as_written(service: Service, checkout: Path):
    shell, origin, port = service.shell, service.origin, service.port
    operators = readme_commands("Operators")
    data_rights = readme_commands("Data-rights requests and personal data")

    created = shell.run(one(operators, "create_workspace"))
    assert created.returncode == 0, created.stdout + created.stderr
    assert "Created workspace Initech (schema initech)." in created.stdout
    assert f"Open http://initech.localhost:{port}/ (on this machine)." in created.stdout
    initech = httpx.get(f"{origin}/", headers={"Host": f"initech.localhost:{port}"}, timeout=30)
    assert initech.status_code == 200 and "Initech" in initech.text

    issued = shell.run(one(operators, "create_access_token"))
    assert issued.returncode == 0, issued.stdout + issued.stderr
    token = issued.stdout.strip()
    assert token and "\n" not in token  # the token alone
    me = httpx.get(f"{origin}/api/me", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert me.status_code == 200 and me.json()["email"] == "owner@acme.example", me.text
    wrong = httpx.get(f"{origin}/api/me", headers={"Authorization": "Bearer atp_wrong"}, timeout=30)
    assert wrong.status_code == 401

    migrated = shell.run(one(operators, "migrate_workspaces"), timeout=600)
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr

    # `make up` on the running service with a new secret: it says the secret is not in effect.
    again = shell.run("DATA_REQUEST_SHARED_SECRET=a-secret-set-too-late make up")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "DATA_REQUEST_SHARED_SECRET changed since and is NOT in effect" in again.stderr
    assert "`make down` and `make up`" in again.stderr

    # The data-rights block, as written: a secret, shown, in effect after the restart.
    for command in data_rights[: data_rights.index(one(data_rights, "make up")) + 1]:
        done = shell.run(command, timeout=1300)
        assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"
        if command.startswith("echo"):
            secret = shell.env["DATA_REQUEST_SHARED_SECRET"]
            assert len(secret) >= 32 and done.stdout.strip() == secret
    request = {
        "kind": "data_rights_request",
        "type": "access",
        "email": PERSON,
        "locale": "en-GB",
        "country": "GB",
        "received_at": datetime.now(UTC).isoformat(),
    }
    refused = httpx.post(f"{origin}/api/data-request", json=request, headers={"Authorization": "Bearer x"})
    assert refused.status_code == 401, refused.text
    accepted = httpx.post(
        f"{origin}/api/data-request", json=request, headers={"Authorization": f"Bearer {secret}"}, timeout=30
    )
    assert accepted.status_code == 202, accepted.text

    export, erase = one(data_rights, "export_personal_data"), one(data_rights, "erase_personal_data")
    fail_to_sign_in(origin, PERSON)
    exported = shell.run(export)
    assert exported.returncode == 0, exported.stdout + exported.stderr
    output = checkout / shlex.split(export)[shlex.split(export).index("--output") + 1]
    document = json.loads(output.read_text())
    assert document["person"]["email"] == PERSON
    assert any(document["records"].values()), document["records"]  # the failed sign-in, at least
    assert "Wrote json to" in exported.stderr

    erased = shell.run(erase)
    assert erased.returncode == 0, erased.stdout + erased.stderr
    assert re.search(r"Erased [1-9]\d* records in workspace acme\.", erased.stdout), erased.stdout

    # Now that Acme holds nothing about the address, the same export fails, in one line.
    output.unlink()
    nothing = shell.run(export)
    assert nothing.returncode == 1 and not output.exists() and "Traceback" not in nothing.stderr
    # (after the log line of the operation, which names no person)
    assert nothing.stderr.strip().splitlines()[-1] == (
        f"CommandError: Nothing in workspace acme is about {PERSON}: no person, no record; nothing written."
    )


@WITH_THE_SERVICE
def test_stop_stops_the_service_and_the_servers_it_started_leaving_no_process(service: Service):
    pid = int((service.data_dir / "run" / "atrium.pid").read_text())

    # `stop` stops the embedded servers whoever started them: the background service first, as
    # `make down` does.
    stopped = service.shell.run("python3 bootstrap.py stop", timeout=180)

    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert "stopping it first" in stopped.stderr
    assert not port_open(service.port)
    assert not (service.data_dir / "run" / "atrium.pid").exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    # Nothing started from the data directory is left: web, worker, beat, PostgreSQL, Redis.
    leftovers = subprocess.run(["pgrep", "-af", str(service.data_dir)], capture_output=True, text=True).stdout
    assert leftovers == "", f"processes left running: {leftovers}"
    # With the service stopped, a command that needs the database says so in one line.
    assert_says_start_the_service(service.shell.run(one(readme_commands("Operators"), "create_access_token")))


def test_manage_py_on_a_fresh_clone_says_to_start_the_service(tmp_path: Path, checkout: Path):
    """No service ever started (an empty data directory): one line, status 1, no traceback."""
    shell = Shell(users_environment(tmp_path / "data", free_port()), checkout)

    assert_says_start_the_service(shell.run(one(readme_commands("Operators"), "create_access_token")))
    # Commands that need no database still work.
    checked = shell.run("python3 manage.py check")
    assert checked.returncode == 0 and "no issues" in checked.stdout, checked.stdout + checked.stderr


def test_manage_py_uses_the_servers_the_environment_names(committed, tmp_path: Path, checkout: Path):
    """As in an image or Compose: DATABASE_URL and REDIS_URL set, any python3 starting it."""
    env = users_environment(tmp_path / "data", free_port())
    env.update({"DATABASE_URL": database_url(), "REDIS_URL": os.environ["REDIS_URL"]})

    issued = Shell(env, checkout).run(
        "python3 manage.py create_access_token --workspace acme --email member@acme.example"
    )

    assert issued.returncode == 0, issued.stdout + issued.stderr
    from django_tenants.utils import schema_context

    from apps.accounts.models import PersonalAccessToken

    with schema_context("acme"):
        tokens = PersonalAccessToken.objects.filter(user__email="member@acme.example", name="command line")
        made = tokens.filter(last_four=issued.stdout.strip()[-4:])
        assert made.exists()
        # The command committed it to this process's test database: later tests there see the
        # member with no token of their own.
        made.delete()


def test_the_inspector_example_pins_the_version_the_tests_use():
    pinned = json.loads((ROOT / "tests" / "node" / "package.json").read_text())["dependencies"]
    commands = " ".join(readme_commands("The MCP endpoint"))

    assert f"npx @modelcontextprotocol/inspector@{pinned['@modelcontextprotocol/inspector']} " in commands
    assert "create_access_token" in commands and "/api/api-keys" in commands
