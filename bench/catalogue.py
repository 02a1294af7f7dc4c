"""What the catalogue costs a process's start: building every tool's spec (input and output
schemas, their compaction), the start-up checks of the catalogue, the search hints and the
profiles, and the search index (goal: at most 1 s at 684 tools).

Each run is a fresh Python process (nothing warm: no stems cached, no pydantic models built), run
`--runs` times. Times are the process's own CPU time (time.process_time): on a machine shared with
other work, wall time says more about the others than about the catalogue.

The registry holds the catalogue's real tools; to see 684, the child process, and only it,
declares copies of real tools under other names (`<name>Bench<n>`, the same functions, so the
same schemas to build) until the registry holds 684, and measures the checks and the index again
over them. Nothing of the kind is ever registered outside this benchmark.

The registry keeps the schemas it built (apps.catalogue.derived) and the checks the digests of the
schemas they found valid (apps.catalogue.checks), in the data folder: the first process of a run
starts from none, as a fresh checkout or a change of code does, and its figures are given apart;
the copies are kept too, as a real catalogue of 684 would be.

No database or Redis: the registry is built by Django's set-up alone.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

GOAL_TOOLS = 684

CHILD = r"""
import json, os, sys, time
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.bench")
started = time.process_time()
from apps.catalogue import registry

spent = {"specs": 0.0}
build_spec = registry.build_spec

def timed(*args, **kwargs):
    begun = time.process_time()
    try:
        return build_spec(*args, **kwargs)
    finally:
        spent["specs"] += time.process_time() - begun

registry.build_spec = timed
import django
django.setup()
setup = time.process_time() - started
from apps.catalogue import checks, derived, search


def measure_checks():
    begun = time.process_time()
    checks.check_catalogue()
    checks.check_search_hints()
    checks.check_profiles()
    return time.process_time() - begun


def measure_index():
    search._stem.cache_clear()
    search._cached = None
    begun = time.process_time()
    search.warm()
    return time.process_time() - begun


real = [spec for spec in registry.all_tools() if not spec.fixture]
figures = {
    "tools": len(real),
    "setup": setup,
    "specs": spent["specs"],
    "checks": measure_checks(),
    "index": measure_index(),
}
goal = int(sys.argv[1])
copies = 0
begun = time.process_time()
while len(registry.all_tools()) < goal:
    spec = real[copies % len(real)]
    copy = build_spec(
        spec.function,
        name=f"{spec.name}Bench{copies}",
        permission=spec.permission,
        title=spec.title,
        markers=spec.markers,
        read_only=spec.read_only,
        idempotent=spec.idempotent if not spec.runs_tools else None,
        open_world=spec.open_world if not spec.runs_tools else False,
        runs_tools=spec.runs_tools,
        long_running=spec.long_running,
        on_loop=spec.on_loop,
    )
    registry.register(copy)
    copies += 1
# As the catalogue's own start does once every tool is declared: the next process reads them.
derived.keep()
figures.update(
    goal_tools=len(registry.all_tools()),
    goal_specs=spent["specs"] + time.process_time() - begun,
    goal_checks=measure_checks(),
    goal_index=measure_index(),
)
print(json.dumps(figures))
"""


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench catalogue")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tools", type=int, default=GOAL_TOOLS)
    args, _ = parser.parse_known_args(argv)

    # A data folder of the benchmark's own: its first process finds no schema known valid (as a
    # fresh checkout does), the others find what the first kept (as every later start does).
    with tempfile.TemporaryDirectory(prefix="atrium-bench-catalogue-") as data:
        runs = []
        for _run in range(args.runs + 1):
            answer = subprocess.run(
                [sys.executable, "-c", CHILD, str(args.tools)],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "ATRIUM_DATA_DIR": data},
            )
            runs.append(json.loads(answer.stdout.strip().splitlines()[-1]))
    cold, warm = runs[0], runs[1:]

    def median(key: str) -> float:
        return statistics.median(run[key] for run in warm) * 1000

    tools, goal = cold["tools"], cold["goal_tools"]
    print(f"the catalogue's cost at start-up, median of {len(warm)} fresh processes (CPU ms):")
    print(f"  Django's whole set-up, {tools} tools: {median('setup'):.0f}")
    now = median("specs") + median("checks") + median("index")
    print(
        f"  {tools} tools: specs {median('specs'):.0f} + checks {median('checks'):.0f} "
        f"+ search index {median('index'):.0f} = {now:.0f}"
    )
    then = median("goal_specs") + median("goal_checks") + median("goal_index")
    print(
        f"  {goal} tools ({goal - tools} copies of real ones): specs {median('goal_specs'):.0f} "
        f"+ checks {median('goal_checks'):.0f} + search index {median('goal_index'):.0f} = {then:.0f}"
        "  (goal <= 1000)"
    )
    print(
        f"  the first process, nothing kept yet: specs {cold['specs'] * 1000:.0f} + checks "
        f"{cold['checks'] * 1000:.0f} ({tools} tools); specs {cold['goal_specs'] * 1000:.0f} + checks "
        f"{cold['goal_checks'] * 1000:.0f} ({goal})"
    )
