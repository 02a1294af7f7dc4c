"""README.md's operator commands, run as written, as someone who cloned the project runs them.

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
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from apps.core.testing import ROOT, database_url, free_port

pytestmark = pytest.mark.live

VENV_BIN = (ROOT / ".venv" / "bin").resolve()
PERSON = "someone@example.org"


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


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A directory with links to what the commands use of the checkout."""
    folder = tmp_path / "checkout"
    folder.mkdir()
    for name in ("manage.py", "bootstrap.py", "Makefile"):
        (folder / name).symlink_to(ROOT / name)
    return folder


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """The service's data directory, outside pytest's temporary directories: as root, PostgreSQL
    runs as another user, and pytest makes its base directory private again whenever a run starts."""
    folder = Path(tempfile.mkdtemp(prefix="atrium-readme-"))
    yield folder / "data"
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def service(data_dir: Path, checkout: Path) -> Iterator[tuple[Shell, str]]:
    """`make up` on embedded servers of its own, typed in a user's shell; stopped afterwards."""
    port = free_port()
    shell = Shell(users_environment(data_dir, port), checkout)
    up = shell.run("make up", timeout=1300)
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        # On embedded servers of its own, as no URL was given.
        assert "starting PostgreSQL" in (data_dir / "logs" / "atrium.log").read_text()
        yield shell, f"http://127.0.0.1:{port}"
    finally:
        stop = subprocess.run(
            [sys.executable, str(ROOT / "bootstrap.py"), "stop"],
            env=shell.env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert stop.returncode == 0, stop.stdout + stop.stderr


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


@pytest.mark.timeout(3000)  # the service starts twice, the first time on an empty database
def test_the_operators_commands_of_the_readme_work_as_written(service, checkout: Path):
    shell, origin = service
    port = origin.rsplit(":", 1)[1]
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

    # With the service stopped, a command that needs the database says so in one line.
    down = shell.run("make down")  # it stops the embedded servers it started too
    assert down.returncode == 0, down.stdout + down.stderr
    assert_says_start_the_service(shell.run(one(operators, "create_access_token")))


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
        assert tokens.filter(last_four=issued.stdout.strip()[-4:]).exists()


def test_the_inspector_example_pins_the_version_the_tests_use():
    pinned = json.loads((ROOT / "tests" / "node" / "package.json").read_text())["dependencies"]
    commands = " ".join(readme_commands("The MCP endpoint"))

    assert f"npx @modelcontextprotocol/inspector@{pinned['@modelcontextprotocol/inspector']} " in commands
    assert "create_access_token" in commands and "/api/api-keys" in commands
