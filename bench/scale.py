"""The MCP door scaled out and across workspaces: getContact and describeTool through 1, 2 and 3
web processes behind nginx (the Compose proxy's configuration, deploy/nginx/proxy.conf:
round-robin, no session stickiness), then with 1,000 workspaces (goal: calls/s grow with
processes until the 2 cores are spent; the cost of a request flat from 1 to 1,000 workspaces).

1. Processes. One workspace. For each count of web processes (`--processes 1,2,3`): that many
   `config.serve` processes behind one nginx, 16 MCP sessions opened through nginx (so each
   session's requests land on every process in turn), and rounds of wrk alternating with the
   official SDK's server (bench/mcp_sdk_server.py, one process: its sessions live in its memory,
   so it cannot be spread over processes without stickiness). Printed: calls/s, p50, and the
   ratio to the SDK's round before it.
2. Workspaces. `--workspaces` workspaces in all (each with its owner, a contact, a personal access
   token and an API key, and an MCP session), made by copying the template (no spare pool, no
   password: a few minutes for 1,000). Then, through the same nginx and processes as the first
   count: getContact on the first workspace again (the same host as with one workspace), and
   getContact rotating over the first 16 and over every workspace, each request another
   workspace's host, credential and session (every request switches workspace in the process and
   on its database connection: the cost of a switch, which should not grow with the workspaces).

   With `--compare NAME=VALUE[,NAME=VALUE...]` (repeatable) the same workspaces are also served
   by the same topology started again with those settings in its environment (each alongside
   the first, so their rounds alternate on the same occasion): before and after a change that a
   setting turns off, or (`code=DIR`) the code of another checkout: the workspaces made once.

    make bench ARGS="scale"                                  # 1, 2, 3 processes, then 1,000 workspaces
    make bench ARGS="scale --processes 2 --workspaces 0"     # one topology, no workspace phase
    make bench ARGS="scale --processes 1 --workspaces 1000 --compare ATRIUM_SERVE_ON_LOOP_LANES=false"
    make bench ARGS="scale --processes 1 --workspaces 1000 --compare code=/tmp/main-checkout"
    make bench ARGS="scale --processes 1 --workspaces 1000 --workspaces-only"   # no SDK rounds

With `--keep FILE` the database is kept after the run and the workspaces' hosts, credentials and
contacts are written to FILE; a later run with the same `--keep FILE` and `--database` serves
those workspaces again (making only the ones `--workspaces` adds) instead of a fresh database:

    make bench ARGS="scale --processes 1 --workspaces 1000 --database atrium_rot --keep /tmp/rot.json"
"""

import argparse
import json
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench import common, mcp

HEADERS = {
    "Content-Type": "application/json",
    "Accept": mcp.ACCEPT,
    "MCP-Protocol-Version": "2025-06-18",
}


@dataclass
class Tenant:
    """One workspace as a client sees it: its host, credential, contact and MCP session."""

    host: str
    headers: dict[str, str]
    contact_id: int
    session: str = ""


def make_tenant(index: int) -> Tenant:
    from django_tenants.utils import schema_context

    from apps.accounts.models import User
    from apps.accounts.services import access_token_create
    from apps.apikeys.services import api_key_create
    from apps.contacts import services as contact_services
    from apps.core import permissions
    from apps.tenancy.services import workspace_create

    host = f"w{index:04d}.bench.test"
    workspace = workspace_create(
        name=f"Bench {index}",
        domains=[host],
        owner_email=f"owner@{host}",
        installed_areas=permissions.optional_area_keys(),
    )
    with schema_context(workspace.schema_name):
        owner = User.objects.get(email=f"owner@{host}")
        contact, _conflicts = contact_services.contact_create(
            actor=owner,
            fields={"first_name": "Ada", "last_name": f"Lovelace {index}", "email": f"ada@{host}"},
        )
        _token, raw_token = access_token_create(user=owner, name="bench")
        key = api_key_create(user=owner, label="bench")
    return Tenant(host, {"Authorization": f"Bearer {raw_token}", "X-Api-Key": key.raw_key}, contact.pk)


def open_session(http: httpx.Client, url: str, tenant: Tenant) -> str:
    headers = {**tenant.headers, "Host": tenant.host, "Accept": mcp.ACCEPT}
    response = http.post(
        url,
        headers=headers,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench-scale", "version": "1"},
            },
        },
    )
    response.raise_for_status()
    session = response.headers["mcp-session-id"]
    http.post(
        url,
        headers={**headers, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"},
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
    ).raise_for_status()
    return session


def call_body(tool: str, tenant: Tenant) -> dict[str, Any]:
    arguments = {"contactId": tenant.contact_id} if tool == "getContact" else {"name": "getContact"}
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


def rotating_script(entries: list[tuple[dict[str, str], str]]) -> str:
    """A wrk Lua script whose every request is the next entry's (headers, body); each thread
    starts at its own place in the list."""
    rows = ",\n".join(
        "{headers = {" + ", ".join(f"[{json.dumps(k)}] = {json.dumps(v)}" for k, v in headers.items()) + "}, "
        f"body = {json.dumps(body)}}}"
        for headers, body in entries
    )
    return f"""local entries = {{
{rows}
}}
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("start", threads * 7919)
end
function init(args)
  position = start
end
function request()
  position = position % #entries + 1
  local entry = entries[position]
  return wrk.format("POST", "/api/mcp", entry.headers, entry.body)
end
"""


def wrk(url: str, script: str, connections: int, seconds: int) -> common.WrkFigures:
    return common.wrk_run(
        common.ensure_wrk(), url, script, threads=connections, connections=connections, seconds=seconds
    )


def fixed_script(tenant: Tenant, sessions: list[str], body: dict[str, Any]) -> str:
    return common.wrk_script(
        method="POST",
        headers={**HEADERS, **tenant.headers, "Host": tenant.host},
        body=body,
        thread_header=("Mcp-Session-Id", sessions),
    )


class Topology:
    """`count` web processes behind nginx."""

    def __init__(self, env: dict[str, str], count: int, workdir: Path, code: Path | None = None) -> None:
        from apps.core.testing import launch_web, start_nginx, wait_until_serving

        workdir.mkdir(parents=True, exist_ok=True)
        self.webs = [launch_web(env, log=workdir / f"web{index}.log", code=code) for index in range(count)]
        self.proxy = None
        try:
            for web in self.webs:
                wait_until_serving(web)
            self.proxy = start_nginx([web.port for web in self.webs], workdir / "nginx")
        except BaseException:
            self.stop()
            raise
        self.url = f"http://127.0.0.1:{self.proxy.port}/api/mcp"  # type: ignore[attr-defined]

    def stop(self) -> None:
        if self.proxy is not None:
            self.proxy.stop()
        for web in self.webs:
            web.stop()


def _growing(rates: list[float]) -> bool:
    """Whether one of the last two rounds was 10 % above the best round before them."""
    return max(rates[-2:]) > 1.1 * max(rates[:-2])


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench scale")
    parser.add_argument("--processes", default="1,2,3", help="counts of web processes, comma-separated")
    parser.add_argument(
        "--workspaces", type=int, default=1000, help="workspaces in all for the second phase (0: none)"
    )
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--profile",
        type=Path,
        help="after the workspaces' measured rounds, sample the first web process with py-spy during one "
        "more round of each, writing the folded stacks to PROFILE-<n>.txt and printing where the time went",
    )
    parser.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="NAME=VALUE[,NAME=VALUE]",
        help="the workspace phase also on a topology started with these environment settings "
        "(repeatable); their rounds alternate with the first's",
    )
    parser.add_argument(
        "--workspaces-only",
        action="store_true",
        help="no rounds against the SDK's server: the workspace phase alone",
    )
    parser.add_argument(
        "--database", default="atrium_bench", help="the database made for the run (and dropped)"
    )
    parser.add_argument(
        "--keep",
        type=Path,
        help="keep the database, with the workspaces' credentials in this file; reuse both if it exists",
    )
    args, _ = parser.parse_known_args(argv)
    counts = [int(part) for part in args.processes.split(",") if part.strip()]

    kept = load_tenants(args.keep)
    if kept:
        database_url = common.existing_database(args.database)
    else:
        database_url = common.use_fresh_database(args.database)
    import logging

    from django.conf import settings
    from django.db import connection
    from django_tenants.utils import schema_context

    from apps.accounts.models import User
    from apps.tenancy.models import Workspace

    logging.disable(logging.INFO)
    settings.ATRIUM_SPARE_SCHEMAS = 0  # every workspace copied here: no worker needed
    first = kept[0] if kept else make_tenant(1)
    args.kept = kept or [first]
    workspace = Workspace.objects.get(domains__domain=first.host)
    with schema_context(workspace.schema_name):
        owner = User.objects.get(email=f"owner@{first.host}")
        statements = mcp.tool_statements(owner, first.contact_id)
        description = mcp.describe(owner)
    connection.close()
    env = {**os.environ, "DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "config.settings.bench"}
    sdk = mcp.SdkServer(env, database_url, workspace.schema_name, statements, description)
    workdir = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    try:
        common.freeze_setup_heap()
        for index, count in enumerate(counts):
            topology = Topology(env, count, workdir / f"p{count}")
            try:
                # Opened again for each topology: the SDK closes a session idle for 30 minutes
                # (its default), and making 1,000 workspaces takes about that long.
                with httpx.Client(timeout=30) as http:
                    sessions = [open_session(http, topology.url, first) for _ in range(args.connections)]
                if not args.workspaces_only:
                    sdk_sessions = mcp.open_sessions(sdk.url, {}, args.connections)
                    measure_processes(args, count, topology, first, sessions, sdk, sdk_sessions)
                if index == 0 and args.workspaces > 1:
                    measure_workspaces(args, count, topology, first, sessions, env, workdir)
            finally:
                topology.stop()
    finally:
        sdk.stop()
    if args.keep is None:
        common.drop_database(args.database)


def load_tenants(path: Path | None) -> list[Tenant]:
    if path is None or not path.exists():
        return []
    return [Tenant(**row) for row in json.loads(path.read_text())]


def save_tenants(path: Path | None, tenants: list[Tenant]) -> None:
    if path is not None:
        path.write_text(json.dumps([{**vars(tenant), "session": ""} for tenant in tenants]))


def measure_processes(args, count, topology, first, sessions, sdk, sdk_sessions) -> None:  # type: ignore[no-untyped-def]
    for tool in ("getContact", "describeTool"):
        body = call_body(tool, first)
        ours = fixed_script(first, sessions, body)
        theirs = common.wrk_script(
            method="POST", headers=HEADERS, body=body, thread_header=("Mcp-Session-Id", sdk_sessions)
        )
        wrk(topology.url, ours, args.connections, 2)  # warm every process
        wrk(sdk.url, theirs, args.connections, 2)
        load_before = os.getloadavg()
        rates, ratios, p50s = [], [], []
        for _round in range(args.rounds):
            baseline = wrk(sdk.url, theirs, args.connections, args.seconds)
            figures = wrk(topology.url, ours, args.connections, args.seconds)
            rates.append(figures.rate)
            ratios.append(figures.rate / baseline.rate)
            p50s.append(figures.p50)
            print(
                f"  {count} process(es) {tool:12} {figures.rate:7.0f} calls/s p50 {figures.p50:>8}  "
                f"(sdk {baseline.rate:.0f}: {figures.rate / baseline.rate:.2f})",
                flush=True,
            )
        load = tuple(round(x, 1) for x in (*load_before[:1], os.getloadavg()[0]))
        print(
            f"{count} process(es) behind nginx, {tool}: median {statistics.median(rates):.0f} calls/s, "
            f"median ratio to the SDK {statistics.median(ratios):.2f}; load {load[0]} -> {load[1]}",
            flush=True,
        )


def variants_of(args: argparse.Namespace) -> list[tuple[str, dict[str, str], Path | None]]:
    """(label, environment settings, code) of each `--compare`: `code=DIR` serves the code of
    another checkout (another commit's, on the same database: the same migrations)."""
    found = []
    for spec in args.compare:
        pairs = (part.split("=", 1) for part in spec.split(",") if part.strip())
        settings = {name.strip(): value.strip() for name, value in pairs}
        code = settings.pop("code", None)
        found.append((spec, settings, Path(code) if code else None))
    return found


def measure_workspaces(args, count, topology, first, sessions, env, workdir) -> None:  # type: ignore[no-untyped-def]
    from django.db import connection

    tenants = list(args.kept[: args.workspaces])
    started = time.perf_counter()
    for index in range(len(tenants) + 1, args.workspaces + 1):
        tenants.append(make_tenant(index))
        if index % 100 == 0:
            print(f"  {index} workspaces ({time.perf_counter() - started:.0f} s)", flush=True)
            save_tenants(args.keep, tenants)
    save_tenants(args.keep, tenants)
    connection.close()
    served = [("as configured", topology)]
    try:
        for number, (label, settings, code) in enumerate(variants_of(args), start=1):
            served.append((label, Topology({**env, **settings}, count, workdir / f"variant{number}", code)))
        sessions_of: list[dict[str, str]] = [{} for _ in served]  # host -> session, per topology
        # Every topology's sessions opened now, the first's too (those opened before the
        # workspaces were made are minutes old: what its process kept of them has expired, and a
        # burst of cold requests can have onloop.tally stop trying the loop for good).
        firsts_sessions: list[list[str]] = []
        with httpx.Client(timeout=30) as http:
            for place, (label, serving) in enumerate(served):
                print(f"  topology {place}: {label}", flush=True)
                for tenant in tenants:
                    sessions_of[place][tenant.host] = open_session(http, serving.url, tenant)
                firsts_sessions.append([open_session(http, serving.url, first) for _ in sessions])
        measure_rotation(args, count, tenants, served, sessions_of, firsts_sessions)
    finally:
        for _label, serving in served[1:]:
            serving.stop()


def measure_rotation(args, count, tenants, served, sessions_of, firsts_sessions) -> None:  # type: ignore[no-untyped-def]
    first = tenants[0]

    def scripts_for(place: int) -> dict[str, str]:
        sessions = sessions_of[place]
        entries = [
            (
                {**HEADERS, **tenant.headers, "Host": tenant.host, "Mcp-Session-Id": sessions[tenant.host]},
                json.dumps(call_body("getContact", tenant)),
            )
            for tenant in tenants
        ]
        few = min(len(tenants), args.connections)
        return {
            "the first workspace": fixed_script(
                first, firsts_sessions[place], call_body("getContact", first)
            ),
            f"rotating over the first {few}": rotating_script(entries[:few]),
            f"rotating over all {len(tenants)}": rotating_script(entries),
        }

    scripts = [scripts_for(place) for place in range(len(served))]
    webs = [{f"web{index}": web.process.pid for index, web in enumerate(one.webs)} for _, one in served]
    firsts: list[float] = [0.0] * len(served)
    for number, label in enumerate(scripts[0]):
        # Warm, right before its rounds (what a process keeps lives at most TOLD_CACHE_SECONDS):
        # each workspace's route, credential, session and statements in every process, and each
        # database connection's catalogue entries for their tables (PostgreSQL keeps them per
        # connection): rounds until the rate stops growing, two rounds in a row under 10 % above
        # the best before them (over 1,000 workspaces it may stall a round, then grow again).
        for place, (_name, serving) in enumerate(served):
            warming: list[float] = []
            while len(warming) < 12 and (len(warming) < 3 or _growing(warming)):
                warming.append(wrk(serving.url, scripts[place][label], args.connections, args.seconds).rate)
            rounds = ", ".join(f"{rate:.0f}" for rate in warming)
            print(f"  warming {label} ({place}): {rounds} calls/s", flush=True)
        rates: list[list[float]] = [[] for _ in served]
        p50s: list[list[str]] = [[] for _ in served]
        spent: list[dict[str, float]] = [{} for _ in served]
        for _round in range(args.rounds):
            for place, (_name, serving) in enumerate(served):
                with common.CpuMeter(webs[place]) as cpu:
                    figures = wrk(serving.url, scripts[place][label], args.connections, args.seconds)
                rates[place].append(figures.rate)
                p50s[place].append(figures.p50)
                for part, seconds in cpu.seconds.items():
                    spent[place][part] = spent[place].get(part, 0.0) + seconds
        for place, (name, _serving) in enumerate(served):
            median = statistics.median(rates[place])
            if number == 0:
                firsts[place] = median
            calls = sum(rates[place]) * args.seconds
            parts = sorted(spent[place].items(), key=lambda item: -item[1])
            per_call = ", ".join(f"{part} {cpu_s / calls * 1e6:.0f} µs" for part, cpu_s in parts if cpu_s > 0)
            of_first = f" = {median / firsts[place]:.2f} of the first workspace's" if number else ""
            print(
                f"{len(tenants)} workspaces, {count} process(es), {name}, getContact on {label}: "
                f"median {median:.0f} calls/s{of_first} "
                f"(rounds {', '.join(f'{rate:.0f}' for rate in rates[place])}), "
                f"p50 {', '.join(p50s[place])}; load {os.getloadavg()[0]:.1f}\n"
                f"    CPU per call: {per_call}",
                flush=True,
            )
        if args.profile:
            for place, (_name, serving) in enumerate(served):
                output = args.profile.with_name(f"{args.profile.name}-{place}-{number}.txt")
                print(f"  py-spy on web0 of topology {place}, getContact on {label}:", flush=True)
                with common.profiled(webs[place]["web0"], output, args.seconds):
                    wrk(serving.url, scripts[place][label], args.connections, args.seconds)
