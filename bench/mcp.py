"""MCP `tools/call` throughput, Atrium against the official MCP Python SDK's own server, and the
latency of `tools/list` (goals: getContact >= 1.5x the SDK's calls/s, describeTool >=
1.8x; every tool listed, all pages received, p50 < 20 ms).

Both servers run here, one process each, in the same run, on the same database, driven by the same
client: wrk (C, so the load generator takes little of the 2 cores), N connections over N MCP
sessions, each calling `getContact` on the same contact.

- Atrium: one web process (config.serve) with the bench settings; the full path: the personal access
  token + API key credential (SPEC 5.2), workspace from the host, stored session, permission
  check, the tool (its selector and output model), the call log (batched).
- The SDK: bench/mcp_sdk_server.py, MCPServer in JSON-response mode under uvicorn, a `getContact`
  tool that reads the same row with psycopg; no credential, tenancy, permission or log.

Rounds alternate (SDK, Atrium, SDK, Atrium, ...) so that other load on the machine hits both alike;
printed: the ratio of the medians, and the median of each round's ratio to the SDK round before it.

With `--compare code=DIR` a second Atrium process serves the code of another checkout (another
commit's, on the same database: the same migrations) in the same rounds, after this checkout's:
the A/B of a change on a machine whose speed drifts, e.g.

    make bench ARGS="mcp --only describeTool --rounds 6 --compare code=/tmp/main-checkout"
"""

import argparse
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench import common

ACCEPT = "application/json, text/event-stream"


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing answers on port {port}")


def open_sessions(url: str, headers: dict[str, str], count: int) -> list[str]:
    sessions = []
    with httpx.Client(timeout=30) as http:
        for index in range(count):
            response = http.post(
                url,
                headers={**headers, "Accept": ACCEPT},
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": f"bench-{index}", "version": "1"},
                    },
                },
            )
            response.raise_for_status()
            session = response.headers["mcp-session-id"]
            http.post(
                url,
                headers={
                    **headers,
                    "Accept": ACCEPT,
                    "Mcp-Session-Id": session,
                    "MCP-Protocol-Version": "2025-06-18",
                },
                json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            ).raise_for_status()
            sessions.append(session)
    return sessions


def call(url: str, headers: dict[str, str], session: str, method: str, params: dict) -> dict:
    response = httpx.post(
        url,
        headers={
            **headers,
            "Accept": ACCEPT,
            "Mcp-Session-Id": session,
            "MCP-Protocol-Version": "2025-06-18",
        },
        json={"jsonrpc": "2.0", "id": 7, "method": method, "params": params},
        timeout=30,
    )
    response.raise_for_status()
    return response.json()


def wrk_run(
    wrk: str, url: str, sessions: list[str], headers: dict[str, str], body: dict, seconds: int
) -> dict:
    script = common.wrk_script(
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": ACCEPT,
            "MCP-Protocol-Version": "2025-06-18",
            **headers,
        },
        body=body,
        # One connection per thread, each on its own session.
        thread_header=("Mcp-Session-Id", sessions),
    )
    count = len(sessions)
    figures = common.wrk_run(wrk, url, script, threads=count, connections=count, seconds=seconds)
    return {"rate": figures.rate, "p50": figures.p50}


def list_latency(
    url: str, headers: dict[str, str], session: str, count: int
) -> tuple[list[float], list[float], list[list[float]], int, int, int]:
    """Times of listing every page of tools/list at `url`: each listing's whole time, its time to
    receive every page (from each request sent to its last byte: the server and the transport,
    without the client's own parsing of the JSON, which in this process takes ~3 ms a page of
    ~190 KB), each page's time to receive it, and the last listing's count of tools, pages and
    bytes."""
    samples: list[float] = []
    received: list[float] = []
    by_page: list[list[float]] = []
    tools = pages = size = 0
    with httpx.Client(timeout=30) as http:
        base = {**headers, "Accept": ACCEPT, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"}
        for index in range(count + 50):
            started = time.perf_counter()
            cursor: str | None = None
            tools = pages = size = 0
            waited = 0.0
            while True:  # every page: all the tools the person may use
                params = {"cursor": cursor} if cursor else {}
                sent = time.perf_counter()
                response = http.post(
                    url,
                    headers=base,
                    json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params},
                )
                page = time.perf_counter() - sent  # the body read whole (not a stream)
                waited += page
                if index >= 50:
                    while len(by_page) <= pages:
                        by_page.append([])
                    by_page[pages].append(page)
                result = response.json()["result"]
                size += len(response.content)
                tools += len(result["tools"])
                pages += 1
                cursor = result.get("nextCursor")
                if not cursor:
                    break
            if index >= 50:  # warm-up first
                samples.append(time.perf_counter() - started)
                received.append(waited)
    return samples, received, by_page, tools, pages, size


def tool_statements(owner, contact_id: int) -> list[str]:  # type: ignore[no-untyped-def]
    """The SQL Atrium's getContact runs, its values written in, for the SDK's equivalent (which
    runs the same text on every call, so its psycopg prepares it too, as Atrium's does)."""
    from django.db import connection

    from apps.catalogue import dispatch
    from apps.catalogue.testing import context_for

    context = context_for(owner)
    dispatch.call_tool(
        context, "getContact", {"contactId": contact_id}
    )  # warm: caches filled, as in a server
    executed: list[tuple[str, object]] = []

    def record(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        executed.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        result = dispatch.call_tool(context, "getContact", {"contactId": contact_id})
    assert not result["isError"], result
    skip = ("SET ", "BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK", "INSERT", "UPDATE", "COPY")
    statements = [connection.ops.compose_sql(sql, params) for sql, params in executed]
    return [sql for sql in statements if not sql.startswith(skip)]


def describe(owner) -> dict:  # type: ignore[no-untyped-def]
    """Atrium's describeTool answer about getContact, for the SDK's equivalent."""
    from apps.catalogue import dispatch
    from apps.catalogue.testing import context_for

    result = dispatch.call_tool(context_for(owner), "describeTool", {"name": "getContact"})
    assert not result["isError"], result
    return result["structuredContent"]


METRICS_TOKEN = secrets.token_urlsafe(16)


class SdkServer:
    """The baseline, bench/mcp_sdk_server.py, in a process of its own on a free port, running
    `statements` (getContact's) in `schema` and answering `description` (describeTool's)."""

    def __init__(
        self, env: dict[str, str], database_url: str, schema: str, statements: list[str], description: dict
    ) -> None:
        from apps.core.testing import free_port

        self._files = [Path(tempfile.mkstemp(suffix=".json")[1]) for _ in range(2)]
        self._files[0].write_text(json.dumps(statements))
        self._files[1].write_text(json.dumps(description))
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.mcp_sdk_server",
                "--port",
                str(port),
                "--database-url",
                database_url,
                "--schema",
                schema,
                "--statements",
                str(self._files[0]),
                "--description",
                str(self._files[1]),
            ],
            cwd=Path(__file__).resolve().parents[1],
            env=env,
        )
        try:
            wait_for_port(port)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        for file in self._files:
            file.unlink(missing_ok=True)


def on_loop(base: str) -> str:
    """Atrium's requests served on the event loop and given to a thread so far (its /metrics)."""
    body = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}).text
    counts = {
        line.split('outcome="')[1].split('"')[0]: float(line.rsplit(" ", 1)[1])
        for line in body.splitlines()
        if line.startswith("atrium_mcp_on_loop_total{")
    }
    return ", ".join(f"{outcome} {count:.0f}" for outcome, count in sorted(counts.items())) or "none"


def compared_code(spec: str | None) -> Path | None:
    """The checkout of `--compare code=DIR`."""
    if spec is None:
        return None
    name, _, value = spec.partition("=")
    if name.strip() != "code" or not value.strip() or not Path(value.strip()).is_dir():
        sys.exit(f"--compare takes code=DIR, the directory of another checkout, not {spec!r}")
    return Path(value.strip())


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench mcp")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--list-requests", type=int, default=300)
    parser.add_argument(
        "--profile",
        type=Path,
        help="after the measured rounds, sample Atrium's process with py-spy during one more round of "
        "each tool call, writing the folded stacks to PROFILE-<tool>.txt and printing where the time went",
    )
    parser.add_argument("--only", choices=["getContact", "describeTool"], help="measure one tool call only")
    parser.add_argument(
        "--compare",
        metavar="code=DIR",
        help="also serve the code of the checkout DIR (same migrations) in the same rounds",
    )
    args, _ = parser.parse_known_args(argv)
    from bench.common import ensure_wrk

    wrk = ensure_wrk()

    from bench.common import freeze_setup_heap, summary, use_fresh_database

    database_url = use_fresh_database()
    import logging

    from django.db import connection
    from django_tenants.utils import schema_context

    from apps.accounts.services import access_token_create
    from apps.apikeys.services import api_key_create
    from apps.contacts import services as contact_services
    from apps.core import permissions
    from apps.core.testing import launch_web, start_web, wait_until_serving
    from apps.tenancy.services import workspace_create

    logging.disable(logging.INFO)
    workspace = workspace_create(
        name="Bench",
        domains=["127.0.0.1"],
        owner_email="owner@bench.test",
        installed_areas=permissions.optional_area_keys(),
    )
    with schema_context(workspace.schema_name):
        from apps.accounts.models import User

        owner = User.objects.get(email="owner@bench.test")
        contact, _conflicts = contact_services.contact_create(
            actor=owner,
            fields={
                "first_name": "Ada",
                "last_name": "Lovelace",
                "email": "ada@bench.test",
                "city": "London",
            },
        )
        _token, raw_token = access_token_create(user=owner, name="bench")
        key = api_key_create(user=owner, label="bench")
        statements = tool_statements(owner, contact.pk)
        description = describe(owner)
    connection.close()
    print(
        f"getContact runs {len(statements)} statements:", *(f"  {sql[:90]}" for sql in statements), sep="\n"
    )
    atrium_headers = {"Authorization": f"Bearer {raw_token}", "X-Api-Key": key.raw_key}
    call_body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "getContact", "arguments": {"contactId": contact.pk}},
    }

    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "config.settings.bench",
        "ATRIUM_METRICS_TOKEN": METRICS_TOKEN,
    }
    other_code = compared_code(args.compare)
    atrium = start_web(env)
    other = None
    try:
        if other_code is not None:
            other = wait_until_serving(launch_web(env, code=other_code))
        sdk = SdkServer(env, database_url, workspace.schema_name, statements, description)
    except BaseException:
        atrium.stop()
        if other is not None:
            other.stop()
        raise
    try:
        freeze_setup_heap()
        servers = {
            "sdk": (sdk.url, {}),
            "atrium": (f"{atrium.url()}/api/mcp", atrium_headers),
        }
        if other is not None:
            servers["compared"] = (f"{other.url()}/api/mcp", atrium_headers)
        describe_body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "describeTool", "arguments": {"name": "getContact"}},
        }
        sessions = {}
        for name, (url, headers) in servers.items():
            sessions[name] = open_sessions(url, headers, args.connections)
            answer = call(url, headers, sessions[name][0], "tools/call", call_body["params"])
            assert "ada@bench.test" in json.dumps(answer["result"].get("structuredContent")), answer
            answer = call(url, headers, sessions[name][0], "tools/call", describe_body["params"])
            assert answer["result"].get("structuredContent") == description, answer
        for tool, body in (("getContact", call_body), ("describeTool", describe_body)):
            if args.only and tool != args.only:
                continue
            # Warm both up (imports, caches, connections), then measure in alternating rounds.
            for name, (url, headers) in servers.items():
                wrk_run(wrk, url, sessions[name], headers, body, 2)
            load_before = os.getloadavg()
            results: dict[str, list[dict]] = {name: [] for name in servers}
            for _round in range(args.rounds):
                for name, (url, headers) in servers.items():
                    outcome = wrk_run(wrk, url, sessions[name], headers, body, args.seconds)
                    results[name].append(outcome)
                    rate, p50 = outcome["rate"], outcome["p50"]
                    print(f"tools/call {tool:12} {name:7} {rate:8.0f} calls/s  p50 {p50}", flush=True)
            load_after = os.getloadavg()
            sdk_rate = statistics.median(r["rate"] for r in results["sdk"])
            atrium_rate = statistics.median(r["rate"] for r in results["atrium"])
            # Each round's Atrium against the SDK round just before it: this machine's speed drifts
            # within a minute, and a pair of neighbouring rounds shares most of it.
            pairs = sorted(
                a["rate"] / b["rate"] for a, b in zip(results["atrium"], results["sdk"], strict=True)
            )
            before = tuple(round(x, 1) for x in load_before)
            after = tuple(round(x, 1) for x in load_after)
            print(
                f"{tool}: median atrium {atrium_rate:.0f} calls/s, sdk {sdk_rate:.0f} calls/s, "
                f"ratio of the medians {atrium_rate / sdk_rate:.2f}, median of the rounds' ratios "
                f"{statistics.median(pairs):.2f} (rounds {', '.join(f'{r:.2f}' for r in pairs)}); "
                f"load average (1, 5, 15 min) before {before}, after {after}",
                flush=True,
            )
            print(f"  served on the event loop: {on_loop(atrium.url())}", flush=True)
            if other is not None:
                compared_rate = statistics.median(r["rate"] for r in results["compared"])
                against = sorted(
                    a["rate"] / b["rate"] for a, b in zip(results["atrium"], results["compared"], strict=True)
                )
                print(
                    f"{tool}: compared ({other_code}) median {compared_rate:.0f} calls/s, ratio to the "
                    f"sdk {compared_rate / sdk_rate:.2f}; this checkout / compared: ratio of the medians "
                    f"{atrium_rate / compared_rate:.2f}, of the rounds {statistics.median(against):.2f} "
                    f"(rounds {', '.join(f'{r:.2f}' for r in against)})",
                    flush=True,
                )
            if args.profile:
                output = args.profile.with_name(f"{args.profile.name}-{tool}.txt")
                url, headers = servers["atrium"]
                with common.profiled(atrium.process.pid, output, args.seconds):
                    wrk_run(wrk, url, sessions["atrium"], headers, body, args.seconds)
        if args.only:
            return

        url, headers = servers["atrium"]
        samples, received, by_page, tools, pages, size = list_latency(
            url, headers, sessions["atrium"][0], args.list_requests
        )
        print(f"tools/list, every permitted tool ({tools} tools, {pages} page(s), {size / 1024:.0f} KB):")
        print(f"  received (every page's request to its last byte): {summary(received)}  (goal p50 < 20 ms)")
        each = ", ".join(f"{statistics.median(times) * 1000:.1f} ms" for times in by_page)
        print(f"  each page received, p50: {each}")
        print(f"  with this client's parsing of each page: {summary(samples)}")
        card = httpx.get(url.replace("/api/mcp", "/.well-known/mcp.json"), headers=headers).json()
        for profile in [entry["name"] for entry in card["profiles"]]:
            samples, received, _pages, tools, pages, size = list_latency(
                f"{url}?profile={profile}", headers, sessions["atrium"][0], args.list_requests
            )
            print(f"tools/list?profile={profile} ({tools} tools, {size / 1024:.1f} KB, ~{size // 4} tokens):")
            print(f"  received {summary(received)}; parsed too {summary(samples)}")
        list_body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        outcome = wrk_run(wrk, url, sessions["atrium"], headers, list_body, args.seconds)
        rate, p50 = outcome["rate"], outcome["p50"]
        print(f"tools/list under load, {args.connections} connections: {rate:.0f}/s p50 {p50}")
    finally:
        sdk.stop()
        atrium.stop()
        if other is not None:
            other.stop()
