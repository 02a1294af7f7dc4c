"""Resident memory and database connections of the cluster's processes, sampled in a thread
(bench/load.py, bench/soak.py)."""

from __future__ import annotations

import statistics
import threading
import time
from collections import Counter, defaultdict
from typing import Any


class MemorySampler:
    """The resident set size of named processes (with their children: a worker's pool), every
    `every` seconds, in a thread; with `database_port`, also how many TCP connections each holds
    to that port (PostgreSQL's). A process replaced meanwhile is followed by updating
    `processes[name]` to its new pid."""

    def __init__(
        self, processes: dict[str, int], every: float = 5.0, database_port: int | None = None
    ) -> None:
        self.processes = processes
        self.every = every
        self.database_port = database_port
        self.samples: dict[str, list[tuple[float, int]]] = defaultdict(list)
        self.connections: dict[str, list[tuple[float, int]]] = defaultdict(list)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss", daemon=True)

    def start(self) -> MemorySampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(self.every + 5)

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            now = time.monotonic()
            for name, pid in list(self.processes.items()):
                try:
                    process = psutil.Process(pid)
                    family = [process, *process.children(recursive=True)]
                    rss = sum(member.memory_info().rss for member in family)
                    if self.database_port is not None:
                        held = sum(
                            1
                            for member in family
                            for link in member.net_connections(kind="tcp")
                            if link.raddr and link.raddr.port == self.database_port
                        )
                except psutil.Error:
                    continue
                self.samples[name].append((now, rss))
                if self.database_port is not None:
                    self.connections[name].append((now, held))
            self._stop.wait(self.every)

    def connections_report(self, start: float, end: float) -> tuple[list[str], int]:
        """Per process: database connections held at the start and the end (the most held in the
        first and last quarter) and the peak; and the peak of their sum at one sample."""
        window = (end - start) / 4
        lines = []
        totals: Counter = Counter()
        for name, samples in self.connections.items():
            inside = [(at, held) for at, held in samples if start <= at <= end]
            if not inside:
                continue
            for at, held in inside:
                totals[round(at, 3)] += held
            first = max((held for at, held in inside if at <= start + window), default=0)
            last = max((held for at, held in inside if at >= end - window), default=0)
            peak = max(held for _at, held in inside)
            lines.append(f"  {name:14} {first:3d} -> {last:3d} connections, peak {peak:3d}")
        return lines, max(totals.values(), default=0)

    def report(self, start: float, end: float) -> list[str]:
        """Per process: MiB at the start and the end (mean of the first and last minute, or
        quarter of a shorter run), the change, and the peak."""
        window = min(60.0, (end - start) / 4)
        lines = []
        for name, samples in self.samples.items():
            inside = [(at, rss) for at, rss in samples if start <= at <= end]
            first = [rss for at, rss in inside if at <= start + window]
            last = [rss for at, rss in inside if at >= end - window]
            if not first or not last:
                continue
            head, tail = statistics.fmean(first) / 2**20, statistics.fmean(last) / 2**20
            peak = max(rss for _at, rss in inside) / 2**20
            lines.append(
                f"  {name:14} {head:7.1f} MiB -> {tail:7.1f} MiB ({tail - head:+6.1f}, "
                f"{(tail - head) / head * 100:+5.1f} %), peak {peak:7.1f} MiB, {len(inside)} samples"
            )
            lines.append(f"  {'':14} by {window:.0f} s: {' '.join(self._series(inside, start, window))}")
        return lines

    @staticmethod
    def _series(samples: list[tuple[float, int]], start: float, window: float) -> list[str]:
        slots: dict[int, list[int]] = defaultdict(list)
        for at, rss in samples:
            slots[int((at - start) // window)].append(rss)
        return [f"{statistics.fmean(slots[slot]) / 2**20:.0f}" for slot in sorted(slots)]


def cluster_processes(cluster: Any, redis: Any = None) -> dict[str, int]:
    processes = {f"web{index + 1}": web.process.pid for index, web in enumerate(cluster.webs)}
    processes.update({worker.name: worker.pid for worker in cluster.workers})
    if cluster.beat is not None:
        processes["beat"] = cluster.beat.pid
    if redis is not None and redis.process is not None:
        processes["redis"] = redis.process.pid
    return processes
