"""What every benchmark shares: its own database, Django set up on it, a server, statistics, and
the wrk load generator (its Lua script and its figures)."""

import importlib
import json
import os
import pkgutil
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit, urlunsplit

BENCH_DIR = Path(__file__).resolve().parent


def benchmarks() -> dict[str, Callable[[list[str]], None]]:
    """Every module of bench/ with a `run(argv)` function, by module name."""
    found = {}
    for module in pkgutil.iter_modules([str(BENCH_DIR)]):
        if module.name in {"common", "__main__"}:
            continue
        loaded = importlib.import_module(f"bench.{module.name}")
        if hasattr(loaded, "run"):
            found[module.name] = loaded.run
    return dict(sorted(found.items()))


def use_fresh_database(name: str = "atrium_bench") -> str:
    """Points DATABASE_URL at an empty database `name` (dropped and re-created), migrated, and
    sets Django up on it. Returns the URL, for server processes."""
    url = empty_database(name)

    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate_workspaces", verbosity=0)
    return url


def existing_database(name: str) -> str:
    """Points DATABASE_URL at database `name`, kept by an earlier run, and sets Django up on it.
    Returns the URL, for server processes."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    url = urlunsplit(parts._replace(path=f"/{name}"))
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.bench")
    import django

    django.setup()
    return url


def empty_database(name: str) -> str:
    """Points DATABASE_URL (and the bench settings) at an empty database `name`, dropped and
    re-created; nothing migrated, Django not set up. Returns the URL."""
    import psycopg

    parts = urlsplit(os.environ["DATABASE_URL"])
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    url = urlunsplit(parts._replace(path=f"/{name}"))
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.bench")
    return url


def drop_database(name: str = "atrium_bench") -> None:
    """Drops a benchmark's database once its figures are printed. A run that made hundreds of
    workspaces leaves ~1,350 files per workspace (275,000 after the workspaces bench). Deleting
    them makes ext4 slow to create files for the next few minutes (its allocator skips inodes
    freed in the last 60 to 360 s, reading each one's block: copies of the template took 2-3 s
    instead of 0.6 s, measured with perf), so the drop happens here, after the measuring, rather
    than at the start of the next run."""
    import psycopg
    from django.db import connections

    connections.close_all()
    parts = urlsplit(os.environ["DATABASE_URL"])
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def freeze_setup_heap() -> None:
    """Moves everything the benchmark allocated so far (Django, the set-up) out of the garbage
    collector's sight. The load generator runs in this process: without this, its full
    collections over Django's heap (100-300 ms) land in the latencies it measures as if the
    server had been slow (tools/list p99 311 ms with them, 49 ms without, same run)."""
    import gc

    gc.collect()
    gc.freeze()


@contextmanager
def timer() -> Iterator[Callable[[], float]]:
    start = time.perf_counter()
    elapsed: list[float] = []
    yield lambda: elapsed[0] if elapsed else time.perf_counter() - start
    elapsed.append(time.perf_counter() - start)


def summary(samples: list[float], unit: float = 1000.0, label: str = "ms") -> str:
    ordered = sorted(samples)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * unit

    return (
        f"n={len(samples)} mean={statistics.fmean(samples) * unit:.2f}{label} "
        f"p50={pct(0.50):.2f}{label} p90={pct(0.90):.2f}{label} p99={pct(0.99):.2f}{label} "
        f"max={ordered[-1] * unit:.2f}{label}"
    )


def ensure_wrk() -> str:
    """The wrk load generator (C, so it takes little of the 2 cores); `make bench` installs it."""
    found = shutil.which("wrk")
    if not found:
        sys.exit("this benchmark needs wrk (apt-get install wrk, or run it through `make bench`)")
    return found


def wrk_script(
    *,
    method: str,
    headers: dict[str, str],
    body: object = None,
    thread_header: tuple[str, list[str]] | None = None,
) -> str:
    """A wrk Lua script sending one request over and over: `method`, `headers`, and `body` as JSON
    when there is one. `thread_header` (a header's name and one value per wrk thread) gives each
    thread its own value of that header: with one connection per thread, one MCP session each."""
    lines = []
    if thread_header is not None:
        values = ", ".join(json.dumps(value) for value in thread_header[1])
        lines += [
            f"local values = {{{values}}}",
            "local counter = 0",
            "function setup(thread)",
            "  counter = counter + 1",
            '  thread:set("thread_value", values[counter])',
            "end",
        ]
    lines += ["function init(args)", f"  wrk.method = {json.dumps(method)}"]
    if body is not None:
        # A Lua string holding the JSON text.
        lines.append(f"  wrk.body = {json.dumps(json.dumps(body))}")
    lines += [f"  wrk.headers[{json.dumps(name)}] = {json.dumps(value)}" for name, value in headers.items()]
    if thread_header is not None:
        lines.append(f"  wrk.headers[{json.dumps(thread_header[0])}] = thread_value")
    lines.append("end")
    return "\n".join(lines) + "\n"


class WrkFigures(NamedTuple):
    """What wrk printed: requests per second, and the latencies as it writes them ("1.23ms")."""

    rate: float
    p50: str
    p99: str


def wrk_run(wrk: str, url: str, script: str, *, threads: int, connections: int, seconds: int) -> WrkFigures:
    """Runs wrk (`wrk` is its path) with the Lua `script` against `url`; raises if wrk saw errors
    (an answer other than 2xx, a socket error)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script_file:
        script_file.write(script)
    try:
        completed = subprocess.run(
            [
                wrk,
                f"-t{threads}",
                f"-c{connections}",
                f"-d{seconds}s",
                "--latency",
                "-s",
                script_file.name,
                url,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        Path(script_file.name).unlink()
    out = completed.stdout
    if "Non-2xx" in out or "Socket errors" in out:
        raise RuntimeError(f"wrk saw errors:\n{out}")
    lines = out.splitlines()
    return WrkFigures(
        rate=float(next(line.split()[1] for line in lines if line.startswith("Requests/sec:"))),
        p50=next(line.split()[1] for line in lines if line.strip().startswith("50%")),
        p99=next(line.split()[1] for line in lines if line.strip().startswith("99%")),
    )


def milliseconds(text: str) -> float:
    """A wrk latency ("12.34ms", "1.20s", "850.00us") in milliseconds."""
    for suffix, factor in (("us", 0.001), ("ms", 1.0), ("s", 1000.0)):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * factor
    raise ValueError(text)


class CpuMeter:
    """CPU time spent meanwhile by each part of the machine under load: the processes in `named`
    (label -> pid), every PostgreSQL, nginx and Redis process, and this process's children that
    ended meanwhile (wrk: each run is waited for). From /proc (Linux), so it adds nothing to the
    processes it measures. Counted process by process: one that started meanwhile counts whole,
    one that ended meanwhile (an autovacuum worker, a backend closed) counts for nothing, rather
    than taking its earlier time off the others'."""

    COMMANDS = {"postgres": "postgres", "nginx": "nginx", "redis-server": "redis"}

    def __init__(self, named: dict[str, int]) -> None:
        self._named = named
        self._tick = os.sysconf("SC_CLK_TCK")
        self._start: dict[int, tuple[str, float]] = {}

    def __enter__(self) -> "CpuMeter":
        self._start = self._sample()
        return self

    def __exit__(self, *exc: object) -> None:
        end = self._sample()
        self.seconds = dict.fromkeys([*self._named, *self.COMMANDS.values(), "wrk"], 0.0)
        for pid, (label, spent) in end.items():
            began = self._start.get(pid)
            self.seconds[label] += spent - (began[1] if began and began[0] == label else 0.0)

    def per_request(self, requests: float) -> str:
        """`label µs` for each part, per request, the busiest first."""
        parts = sorted(self.seconds.items(), key=lambda item: -item[1])
        return ", ".join(f"{label} {spent / requests * 1e6:.0f} µs" for label, spent in parts if spent > 0)

    def _sample(self) -> dict[int, tuple[str, float]]:
        """pid -> (label, CPU seconds so far); this process's ended children under the pid -1."""
        named = {pid: label for label, pid in self._named.items()}
        found: dict[int, tuple[str, float]] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # gone meanwhile
                continue
            command = stat[stat.index("(") + 1 : stat.rindex(")")]
            label = named.get(int(entry.name)) or self.COMMANDS.get(command)
            if label is not None:
                fields = stat[stat.rindex(")") + 2 :].split()
                utime, stime = int(fields[11]), int(fields[12])
                found[int(entry.name)] = (label, (utime + stime) / self._tick)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        found[-1] = ("wrk", children.ru_utime + children.ru_stime)
        return found


@contextmanager
def profiled(pid: int, output: Path | None, seconds: int) -> Iterator[None]:
    """Samples process `pid` with py-spy (requirements/dev.txt) while the block runs, writing the
    folded stacks to `output` and printing where the time went; nothing when `output` is None."""
    if output is None:
        yield
        return
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    # --gil: only what holds the GIL, which is the process's CPU time rather than its waits.
    command = [spy, "record", "--pid", str(pid), "--duration", str(seconds), "--rate", "250", "--gil"]
    recorder = subprocess.Popen(
        [*command, "--format", "raw", "--output", str(output)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield
    finally:
        _out, errors = recorder.communicate(timeout=seconds + 30)
        if recorder.returncode:
            print(f"py-spy failed: {errors.decode(errors='replace')[-500:]}", flush=True)
        else:
            print(profile_summary(output), flush=True)


def profile_summary(folded: Path, top: int = 25) -> str:
    """The functions holding the most samples (inclusive: on the stack anywhere, once per stack)
    and by themselves (the innermost frame), from py-spy's folded output."""
    inclusive: dict[str, int] = {}
    own: dict[str, int] = {}
    total = 0
    for line in folded.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        count = int(count_text)
        total += count
        frames = [_frame(text) for text in stack.split(";")]
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + count
        own[frames[-1]] = own.get(frames[-1], 0) + count
    lines = [f"{total} samples; inclusive:"]
    for frame, count in sorted(inclusive.items(), key=lambda item: -item[1])[:top]:
        lines.append(f"  {100 * count / total:5.1f} %  {frame}")
    lines.append("by themselves:")
    for frame, count in sorted(own.items(), key=lambda item: -item[1])[:top]:
        lines.append(f"  {100 * count / total:5.1f} %  {frame}")
    return "\n".join(lines)


def _frame(text: str) -> str:
    """`function (path/to/file.py:12)` as `function file.py:12`."""
    function, _, where = text.partition(" (")
    return f"{function} {where.rsplit('/', 1)[-1].rstrip(')')}"
