"""The promises a soak checks (bench/soak.py drives the load and the faults; `Promises.check`
reads what they left): no conversation lost, each webhook once, every write as the client was told
(contacts, files, gateway posts), OAuth refresh tokens never refused while a client holds them,
each scheduled occurrence run once, no budget overspent or usage lost, 5xx only inside the fault
windows, memory and database connections flat and within the documented deployment's bounds."""

from __future__ import annotations

import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import httpx

from bench.ledger import half_written, half_written_files, half_written_posts
from bench.load import FINISHED, Load, Outcome, classify, lost, refresh_grant

if TYPE_CHECKING:
    from bench.faults import Fault
    from bench.sampler import MemorySampler
    from bench.soak import Delivery

# After a fault's end, requests may still fail for this long (a restarted web process's slot in
# nginx, a worker's broker connection): its window, for the 5xx count and the latencies.
RECOVERY = 15.0
# A leak: a process that ran at least LEAK_SPAN seconds since its last start and whose resident
# memory grew from the second quarter of that time to the last by more than both LEAK_SHARE and
# LEAK_MIB. The first quarter is warm-up (caches of routes, credentials, the catalogue, the
# connection pool fill as workspaces are first seen) and left out; a shorter run is all warm-up,
# so its figures are reported and not judged.
LEAK_SPAN = 20 * 60.0
LEAK_SHARE = 0.15
LEAK_MIB = 48.0
# The documented deployment (docs/deploy.md, Sizing): 3 web machines of 4 processes, 2 worker
# machines of one worker of 8 pool processes, a beat, migrations (a main process and
# ATRIUM_MIGRATION_PROCESSES 4) and a few operators' sessions, on a PostgreSQL with
# max_connections 300. Each web process holds at most DATABASE_MAX_CONNECTIONS (16) Django
# connections and SERVE_ON_LOOP_CONNECTIONS (4) of the event loop's; a pool process two (its
# task's and, once a tool there has made a model call, the ledger thread's: apps.apikeys.apart);
# every other process one.
DOCUMENTED = {
    "web": 12,
    "per_web": 16 + 4,
    "pool": 16,
    "per_pool": 2,
    "worker": 2,
    "beat": 1,
    "migrations": 5,
    "operators": 5,
    "max_connections": 300,
}
# How long a due occurrence may wait for the beat's sweep (every minute) and its worker.
SCHEDULE_LATENESS = 90.0


def worst_case() -> int:
    """The most database connections docs/deploy.md's deployment can open (docs/deploy.md,
    Sizing: the same sum)."""
    d = DOCUMENTED
    return (
        d["web"] * d["per_web"]
        + d["pool"] * d["per_pool"]
        + d["worker"]
        + d["beat"]
        + d["migrations"]
        + d["operators"]
    )


@dataclass
class Window:
    """A fault as it happened (time.monotonic()), and what clients saw from its start to
    RECOVERY seconds after its end."""

    name: str
    start: float
    end: float
    fault: Fault | None = None

    def holds(self, outcome: Outcome) -> bool:
        """Whether a request was in flight at some time of the window (a request sent before a
        web process was killed may end in a 502 inside it)."""
        return outcome.at <= self.end + RECOVERY and outcome.ended >= self.start - 1.0


class Promises:
    """What `Soak` ran, read against what it was promised (a list of problems per promise: empty
    when kept)."""

    database_url: str
    seeded: list[dict[str, Any]]
    receiver: Any
    timeout: float
    windows: list[Window]
    started: dict[str, float]
    outcomes: list[Outcome]
    load: Load | None
    sampler: MemorySampler | None
    span: tuple[float, float]
    final_refreshes: dict[str, str]

    def outside(self) -> list[Outcome]:
        return [o for o in self.outcomes if not any(window.holds(o) for window in self.windows)]

    def check(self) -> dict[str, list[str]]:
        """Per promise, what broke it (empty: kept)."""
        return {
            "conversations": self._conversations(),
            "webhooks": self._webhooks(),
            "writes": self._writes(),
            "scheduled work": self._schedules(),
            "oauth": self._oauth(),
            "budgets": self._budgets(),
            "5xx outside the fault windows": [
                f"{o.op} {o.kind} {o.status} {o.detail[:120]}"
                for o in self.outside()
                if (o.status is not None and o.status >= 500) or o.kind in {"5xx", "connection", "timeout"}
            ],
            "database connections": self._connections()[1],
            "memory flat": self._leaks(),
        }

    def _conversations(self) -> list[str]:
        assert self.load is not None
        conversations = list(self.load.conversations.values())
        return [f"{item.uuid} still {item.status}" for item in lost(conversations)]

    def _webhooks(self) -> list[str]:
        """Each ended conversation's webhook: one delivery id; delivered (a 200 from the receiver)
        or failed with its attempts in the delivery log; never two ids, never lost."""
        assert self.load is not None
        by_conversation: dict[str, list[Delivery]] = defaultdict(list)
        for delivery in self.receiver.deliveries:
            by_conversation[delivery.conversation].append(delivery)
        problems = []
        for item in self.load.conversations.values():
            if item.status not in FINISHED:
                continue
            arrived = by_conversation.get(item.uuid, [])
            ids = {delivery.webhook_id for delivery in arrived}
            accepted = [delivery for delivery in arrived if delivery.status == 200]
            state = item.webhook.get("status")
            if len(ids) > 1:
                problems.append(f"{item.uuid}: sent under {len(ids)} delivery ids")
            elif state == "delivered" and not accepted:
                problems.append(f"{item.uuid}: delivered, yet the receiver never answered 200")
            elif state != "delivered" and accepted:
                problems.append(f"{item.uuid}: the receiver took it, yet its webhook is {state}")
            elif state not in {"delivered", "failed"}:
                problems.append(f"{item.uuid}: webhook {state} after {item.webhook.get('attempts')} attempts")
        return problems

    def _writes(self) -> list[str]:
        problems = []
        by_workspace: dict[str, list[Outcome]] = defaultdict(list)
        for outcome in self.outcomes:
            by_workspace[outcome.workspace].append(outcome)
        for schema_name, outcomes in sorted(by_workspace.items()):
            missing, phantom = half_written(outcomes, self.database_url, schema_name)
            lacking, refused, partial = half_written_posts(outcomes, self.database_url, schema_name)
            unsaved, unwanted = half_written_files(outcomes, self.database_url, schema_name)
            for what, found in (
                ("contact answered success but missing", missing),
                ("contact answered failure but stored", phantom),
                ("file answered success but missing", unsaved),
                ("file answered failure but stored", unwanted),
                ("post answered 202 but missing", lacking),
                ("post answered failure but stored", refused),
                ("post stored without its message", partial),
            ):
                problems += [f"{schema_name}: {what}: {value}" for value in sorted(found)]
        problems += [
            f"{o.workspace}: file {o.op} {o.detail}"
            for o in self.outcomes
            if o.op == "files/download" and o.kind == "bad_body"
        ]
        return problems

    def _refresh_once_more(self) -> None:
        """Once the load has stopped: each grant whose client still holds a good refresh token
        refreshes once more."""
        assert self.load is not None
        for schema_name, seat in sorted(self.load.seats.items()):
            grant = seat.oauth
            if grant is None or grant.broken:
                continue
            host = seat.tenant.credentials.get("Host")
            try:
                response = refresh_grant(self.load.url, grant, host, self.timeout)
            except httpx.HTTPError as error:
                self.final_refreshes[schema_name] = f"connection {error!r}"[:200]
                continue
            kind, detail = classify(response)
            self.final_refreshes[schema_name] = kind if kind == "ok" else f"{kind} {detail}"
            if kind == "ok":
                grant.refresh_token = response.json()["refresh_token"]

    def _oauth(self) -> list[str]:
        """No refresh token the client had reason to hold as good was refused, during the run or
        after it."""
        problems = [
            f"{o.workspace}: refresh refused during the run: {o.detail}"
            for o in self.outcomes
            if o.op == "oauth/refresh" and o.kind == "refused"
        ]
        problems += [
            f"{schema}: the last refresh token refused after the run: {kind}"
            for schema, kind in sorted(self.final_refreshes.items())
            if kind != "ok"
        ]
        return problems

    def schedule_runs(self) -> list[tuple[str, str, list[tuple[float, str]]]]:
        """(schema, the first due time (ISO), [(due time as a Unix time, status) of each run]) of
        each workspace's scheduled task, read from PostgreSQL directly."""
        import psycopg
        from psycopg import sql

        rows = []
        with psycopg.connect(self.database_url, connect_timeout=10) as connection:
            for item in self.seeded:
                schema_name = item["schema_name"]
                first = connection.execute(
                    sql.SQL("SELECT starts_at FROM {} WHERE id = %s").format(
                        sql.Identifier(schema_name, "tasks_scheduledtask")
                    ),
                    [item["schedule_id"]],
                ).fetchone()[0]
                runs = connection.execute(
                    sql.SQL(
                        "SELECT extract(epoch FROM due_at), status FROM {} WHERE schedule_id = %s"
                    ).format(sql.Identifier(schema_name, "tasks_scheduledrun")),
                    [item["schedule_id"]],
                ).fetchall()
                rows.append((schema_name, first.isoformat(), [(float(due), status) for due, status in runs]))
        return rows

    def _due(self, first_iso: str, until: float) -> list[float]:
        """The occurrences (Unix times) of a schedule from its first, due by `until`."""

        first = datetime.fromisoformat(first_iso).timestamp()
        return [first + n * 900 for n in range(int(max(0.0, until - first) // 900) + 1) if first <= until]

    def _schedules(self) -> list[str]:
        """Each occurrence due a sweep and a worker's time before now ran once; none twice."""
        problems = []
        until = time.time() - SCHEDULE_LATENESS
        for schema_name, first, runs in self.schedule_runs():
            ran = Counter(int(due) for due, _status in runs)
            problems += [
                f"{schema_name}: the run due at {due:.0f} ran {n} times" for due, n in ran.items() if n > 1
            ]
            problems += [
                f"{schema_name}: the run due at {due:.0f} did not run"
                for due in self._due(first, until)
                if int(due) not in ran
            ]
        return problems

    def _await_schedules(self, limit: float = 2 * SCHEDULE_LATENESS) -> None:
        """Once the load has stopped: waits (up to `limit`) for the occurrences due by then to run."""
        deadline, target = time.monotonic() + limit, time.time()
        while time.monotonic() < deadline:
            waiting = [
                schema_name
                for schema_name, first, runs in self.schedule_runs()
                if any(int(due) not in {int(d) for d, _s in runs} for due in self._due(first, target))
            ]
            if not waiting:
                return
            time.sleep(5)

    def budgets(self) -> list[tuple[str, int, int, int, int]]:
        """(schema, spent, reserved, budget, the sum of its conversations' costs) per gateway key,
        in micro-dollars, read from PostgreSQL directly."""
        import psycopg
        from psycopg import sql

        rows = []
        with psycopg.connect(self.database_url, connect_timeout=10) as connection:
            for item in self.seeded:
                schema_name = item["schema_name"]
                query = sql.SQL(
                    "SELECT k.spent_micro_usd, k.reserved_micro_usd, k.budget_usd_cents, "
                    "(SELECT COALESCE(SUM(c.cost_micro_usd), 0) FROM {conversation} c WHERE c.key_id = k.id) "
                    "FROM {key} k WHERE k.id = %s"
                ).format(
                    conversation=sql.Identifier(schema_name, "gateway_conversation"),
                    key=sql.Identifier(schema_name, "apikeys_apikey"),
                )
                spent, reserved, cents, costs = connection.execute(query, [item["key_id"]]).fetchone()
                rows.append((schema_name, spent, reserved, cents * 10_000, int(costs)))
        return rows

    def _budgets(self) -> list[str]:
        problems = []
        for schema_name, spent, reserved, budget, costs in self.budgets():
            if spent > budget:
                problems.append(f"{schema_name}: spent {spent} µUSD of a budget of {budget}")
            if reserved:
                problems.append(f"{schema_name}: {reserved} µUSD still reserved")
            if spent != costs:
                problems.append(f"{schema_name}: spent {spent} µUSD, its conversations cost {costs}")
        return problems

    def _connections(self) -> tuple[list[str], list[str]]:
        """(report lines, problems): connections per process and at once, against max_connections,
        and projected to the documented deployment."""
        import psycopg

        assert self.sampler is not None
        start, end = self.span
        lines, peak = self.sampler.connections_report(start, end)
        with psycopg.connect(self.database_url, connect_timeout=10) as connection:
            maximum = int(connection.execute("SHOW max_connections").fetchone()[0])
        worst: dict[str, int] = {}
        for name, samples in self.sampler.connections.items():
            held = [count for at, count in samples if start <= at <= end]
            if held:
                worst[name] = max(held)
        web = max((count for name, count in worst.items() if name.startswith("web")), default=0)
        # A worker here is its main process and one pool process: the most either held.
        pool = max((count for name, count in worst.items() if name.startswith("worker")), default=0)
        beat = worst.get("beat", 0)
        measured = DOCUMENTED["web"] * web + DOCUMENTED["pool"] * pool + DOCUMENTED["beat"] * beat
        bound = worst_case()
        lines.append(f"  at once, at most {peak} of this server's max_connections {maximum}")
        lines.append(
            f"  the most one web process held: {web}, of its ceiling {DOCUMENTED['per_web']} "
            f"(DATABASE_MAX_CONNECTIONS 16 + the event loop's 4)"
        )
        lines.append(
            f"  docs/deploy.md's deployment: worst case {bound} of max_connections "
            f"{DOCUMENTED['max_connections']} (every process at its ceiling); as measured here "
            f"({DOCUMENTED['web']} web processes x {web}, {DOCUMENTED['pool']} pool processes x {pool}, "
            f"beat {beat}): {measured}"
        )
        problems = []
        if peak > maximum:
            problems.append(f"{peak} connections at once, max_connections {maximum}")
        if web > DOCUMENTED["per_web"]:
            problems.append(f"a web process held {web} connections, over its ceiling {DOCUMENTED['per_web']}")
        if bound > DOCUMENTED["max_connections"] or measured > DOCUMENTED["max_connections"]:
            problems.append(
                f"worst case {bound}, measured projection {measured}: over the documented max_connections 300"
            )
        return lines, problems

    def _leaks(self) -> list[str]:
        assert self.sampler is not None
        _start, end = self.span
        problems = []
        for name, samples in self.sampler.samples.items():
            since = self.started.get(name, self.span[0]) + 10
            problem = leaked(name, [(at, rss) for at, rss in samples if since <= at <= end])
            if problem:
                problems.append(problem)
        return problems

    def flat(self) -> list[str]:
        """Per process, since its last start (+10 s): resident memory and connections, mean of the
        first quarter against the last."""
        assert self.sampler is not None
        _start, end = self.span
        lines = []
        for name, samples in self.sampler.samples.items():
            since = self.started.get(name, self.span[0]) + 10
            inside = [(at, rss) for at, rss in samples if since <= at <= end]
            if len(inside) < 4:
                continue
            quarter = max(1, len(inside) // 4)
            head = statistics.fmean(rss for _at, rss in inside[:quarter]) / 2**20
            tail = statistics.fmean(rss for _at, rss in inside[-quarter:]) / 2**20
            peak = max(rss for _at, rss in inside) / 2**20
            lines.append(
                f"  {name:10} {head:7.1f} MiB -> {tail:7.1f} MiB ({(tail - head) / head * 100:+5.1f} %), "
                f"peak {peak:7.1f} MiB, {len(inside)} samples over {inside[-1][0] - inside[0][0]:.0f} s"
            )
        return lines


def leaked(name: str, samples: list[tuple[float, int]]) -> str | None:
    """What a process's samples (time, resident bytes) since its last start say of a leak, or None:
    see LEAK_SPAN."""
    if len(samples) < 8 or samples[-1][0] - samples[0][0] < LEAK_SPAN:
        return None
    quarter = len(samples) // 4
    second = statistics.fmean(rss for _at, rss in samples[quarter : 2 * quarter]) / 2**20
    last = statistics.fmean(rss for _at, rss in samples[-quarter:]) / 2**20
    if last - second > LEAK_MIB and last > second * (1 + LEAK_SHARE):
        return (
            f"{name} grew from {second:.1f} MiB to {last:.1f} MiB between the second quarter of its "
            f"{(samples[-1][0] - samples[0][0]) / 60:.0f} minutes and the last"
        )
    return None
