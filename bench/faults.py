"""The faults of the load and soak benchmarks (bench/load.py, bench/soak.py) and of the suite's
fault tests (tests/test_faults.py): stopping and starting a dependency or a process of the
cluster under load, holding locks, and what clients saw around each (`Fault`)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.load import Conversation, Load, Outcome

# What a client may see while a dependency is down and the request still fails cleanly: a 503 in
# SPEC 7.1's format, or (a tool already running when PostgreSQL went) a tool error saying that
# nothing was changed.
CLEAN_FAILURES = frozenset({"unavailable", "tool_error"})


@dataclass
class Fault:
    """What clients saw around one dependency restart (times are time.monotonic()), and the
    conversations posted then (filled in once they had time to end: `Load.settle`)."""

    name: str
    down_at: float
    up_at: float
    outcomes: list[Outcome] = field(default_factory=list)
    conversations: list[Conversation] = field(default_factory=list)

    @property
    def failures(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if outcome.kind != "ok"]

    @property
    def unclean(self) -> list[Outcome]:
        """Failures that are not clean: another 5xx, a hang, a protocol error, a refused call."""
        return [outcome for outcome in self.failures if outcome.kind not in CLEAN_FAILURES]

    @property
    def recovery_seconds(self) -> float:
        """From the dependency being back to the end of the last failed request (0: none failed
        once it was back)."""
        late = [outcome.ended for outcome in self.failures if outcome.ended > self.up_at]
        return max(late) - self.up_at if late else 0.0

    @property
    def outage_seen(self) -> float:
        """From the first failure to the end of the last one, as clients saw it."""
        if not self.failures:
            return 0.0
        return max(o.ended for o in self.failures) - min(o.at for o in self.failures)

    def describe(self) -> str:
        kinds = Counter(outcome.kind for outcome in self.failures)
        return (
            f"{self.name}: down for {self.up_at - self.down_at:.1f} s; clients saw failures for "
            f"{self.outage_seen:.1f} s: {dict(sorted(kinds.items()))}; unclean {len(self.unclean)}; "
            f"every request succeeded again {self.recovery_seconds:.1f} s after it was back"
        )


def restart_redis(
    redis: Any, down_for: float = 0.0, while_down: Callable[[], Any] | None = None
) -> tuple[float, float]:
    """SIGTERM (Redis saves its append-only file and closes every connection), `down_for`
    seconds without Redis (`while_down` runs then), a start on the same port and data:
    (down at, up at)."""
    down = time.monotonic()
    redis.stop()
    _wait_out(down + down_for, while_down)
    redis.start()
    return down, time.monotonic()


def restart_postgres(
    postgres: Any, down_for: float, while_down: Callable[[], Any] | None = None
) -> tuple[float, float]:
    """A fast shutdown (sessions cut, open transactions rolled back), `down_for` seconds without
    a database (`while_down` runs then), a start: (down at, up at)."""
    down = time.monotonic()
    postgres.stop("fast")
    _wait_out(down + down_for, while_down)
    postgres.start()
    return down, time.monotonic()


# How long a process started again may take to be ready: minutes on a shared 2-core machine.
RESTART_TIMEOUT = 300.0


def restart_web(cluster: Any, index: int) -> tuple[float, float]:
    """SIGKILL to web process `index` (a crash: requests in flight are cut), and a new one on the
    same port (nginx's upstream) once it is gone: (down at, up at: serving again)."""
    from apps.core.testing import launch_web, wait_until_serving

    old = cluster.webs[index]
    down = time.monotonic()
    old.process.kill()
    old.process.wait(timeout=10)
    cluster.webs[index] = wait_until_serving(
        launch_web(cluster.env, port=old.port, log=old.log), timeout=RESTART_TIMEOUT
    )
    return down, time.monotonic()


def kill_worker(cluster: Any, index: int) -> tuple[float, float]:
    """SIGKILL to Celery worker `index` and its pool (what it was running is not handed back),
    and a fresh one in its place: (down at, up at: ready again)."""
    down = time.monotonic()
    cluster.workers[index].kill()
    cluster.replace_worker(index, timeout=RESTART_TIMEOUT)
    return down, time.monotonic()


def hold_locks(database_url: str, tables: list[tuple[str, str]], seconds: float) -> tuple[float, float]:
    """A slow database: one transaction takes an exclusive lock on each (schema, table) and holds
    them `seconds` (every query of those tables waits meanwhile): (taken at, released at)."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(database_url, connect_timeout=10) as connection:
        taken = time.monotonic()
        for schema_name, table in tables:
            connection.execute(
                sql.SQL("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE").format(sql.Identifier(schema_name, table))
            )
        time.sleep(seconds)
        connection.rollback()
    return taken, time.monotonic()


def _wait_out(until: float, while_down: Callable[[], Any] | None) -> None:
    if while_down is not None:
        while_down()
    time.sleep(max(0.0, until - time.monotonic()))


def fault_under_load(
    load: Load, name: str, act: Callable[[], tuple[float, float]], *, before: float, after: float
) -> Fault:
    time.sleep(before)
    down, up = act()
    time.sleep(after)
    fault = Fault(name, down, up)
    fault.outcomes = load.between(down - 1.0, up + after)
    return fault
