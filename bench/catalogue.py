"""What the catalogue costs a process: at its start, declaring every tool (its declaration
checked) and the search index (built at the first search); then, on first use, every tool's
definition (input and output schemas, their compaction: what the first full `tools/list` builds)
and every input model (what each tool's first call builds); and the start-up checks of the
catalogue, the search hints and the profiles (`manage.py check`'s). Goal: a start within 1 s at
684 tools, with nothing kept (a fresh checkout, or the first process after a change of code).

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


def measure_definitions():
    begun = time.process_time()
    for spec in registry.all_tools():
        spec.definition
    derived.keep()
    return time.process_time() - begun


def measure_models():
    begun = time.process_time()
    for spec in registry.all_tools():
        spec.input_model
    return time.process_time() - begun


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
    "index": measure_index(),
    "definitions": measure_definitions(),
    "models": measure_models(),
    "checks": measure_checks(),
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
figures.update(
    goal_tools=len(registry.all_tools()),
    goal_specs=spent["specs"] + time.process_time() - begun,
    goal_index=measure_index(),
    goal_definitions=figures["definitions"] + measure_definitions(),
    goal_models=figures["models"] + measure_models(),
    goal_checks=measure_checks(),
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
    print(f"the catalogue's cost, median of {len(warm)} fresh processes after a first one (CPU ms):")
    print(f"  Django's whole set-up, {tools} tools: {median('setup'):.0f}")
    for label, prefix in ((f"{tools} tools", ""), (f"{goal} tools", "goal_")):
        print(f"  {label}: {_line({key: median(prefix + key) for key in PARTS})}")
    print("  the first process, nothing kept yet (a fresh checkout, a change of code):")
    for label, prefix in ((f"{tools} tools", ""), (f"{goal} tools", "goal_")):
        print(f"    {label}: {_line({key: cold[prefix + key] * 1000 for key in PARTS})}")
    print(f"  (goal: a start within 1000 at {goal} tools, nothing kept)")


PARTS = ("specs", "index", "definitions", "models", "checks")


def _line(ms: dict[str, float]) -> str:
    return (
        f"start {ms['specs'] + ms['index']:.0f} (declarations {ms['specs']:.0f} + search index "
        f"{ms['index']:.0f}); on first use: definitions {ms['definitions']:.0f}, input models "
        f"{ms['models']:.0f}; checks {ms['checks']:.0f}"
    )
