"""Requests served on the event loop (apps.core.onloop): the door's own synchronous code runs in a
greenlet on a loop and awaits its statements on an async connection. What it serves there is what a
thread serves, logged once; whatever would block gives up before it has done anything, and the
thread serves it from the start. In-process, on committed rows (the loop's connections are not the
test's), with the real credential scheme; the live tests serve through it too."""

import asyncio
import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, connections
from django.utils import timezone
from django_tenants.utils import schema_context
from psycopg import sql

from apps.accounts.models import PersonalAccessToken, User
from apps.apikeys.models import ApiKey
from apps.catalogue.models import ToolCall
from apps.catalogue.registry import RegistryError, tool
from apps.contacts.models import Contact
from apps.contacts.permissions import ContactsPerm
from apps.contacts.tests.factories import ContactFactory, OrganisationFactory
from apps.core import kept, onloop
from apps.mcp import access, sessions
from apps.mcp.handlers import Reply, Request, may_serve_on_loop, serve
from apps.mcp.models import McpSession
from apps.mcp.testing import Door, pat_and_key
from apps.tenancy import routing


@pytest.fixture
def door(django_db_setup, committed) -> Iterator[Door]:  # type: ignore[no-untyped-def]
    with schema_context("acme"):
        keys_before = ApiKey.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        tokens_before = PersonalAccessToken.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    door = Door(pat_and_key("member@acme.example"))
    door.initialize()
    yield door
    door.send("DELETE")
    # The credentials made for the test go with it: the API keys page's tests list the member's.
    with schema_context("acme"):
        ApiKey.objects.filter(pk__gt=keys_before).delete()
        PersonalAccessToken.objects.filter(pk__gt=tokens_before).delete()


@pytest.fixture
def contacts(door) -> Iterator[dict[str, Contact]]:  # type: ignore[no-untyped-def]
    with schema_context("acme"):
        member = User.objects.get(email="member@acme.example")
        made = {"plain": ContactFactory(actor=member, city="Leeds")}
        made["employee"] = ContactFactory(
            actor=member, organisation_id=OrganisationFactory(actor=member).pk, city="York"
        )
    yield made
    with schema_context("acme"):
        Contact.objects.filter(
            pk__in=[c.pk for c in made.values()] + [made["employee"].organisation_id]
        ).delete()


def call_message(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def request_of(door: Door, message: dict[str, Any]) -> Request:
    return Request("POST", "http", door.host, dict(door.headers), {}, json.dumps(message).encode())


PING = {"jsonrpc": "2.0", "id": 3, "method": "ping"}


def on_loop(request: Request, *, warm: bool = True) -> Reply:
    """`serve` on an event loop of its own, as a web process runs it: told of ended sessions, and
    (`warm`) after a ping served by a thread has put the session in the process's keeping."""
    return at_once([request], warm=warm)[0]


def at_once(requests: list[Request], *, warm: bool = True, return_exceptions: bool = False) -> list[Any]:
    """The requests served together on one event loop (see `on_loop`); with `return_exceptions`,
    a request that gave up is its NeedsThread in the list."""

    def ping_in_thread(request: Request) -> None:
        try:
            ping = Request("POST", "http", request.host, request.headers, {}, json.dumps(PING).encode())
            assert serve(ping).status == 200
        finally:
            connections.close_all()

    async def served() -> list[Reply]:
        assert await sessions.watch.started()
        try:
            for request in requests if warm else ():
                await asyncio.get_running_loop().run_in_executor(None, ping_in_thread, request)
            served = (onloop.run(serve, request, None) for request in requests)
            return list(await asyncio.gather(*served, return_exceptions=return_exceptions))
        finally:
            pool = onloop._pool()
            assert pool._opened <= settings.SERVE_ON_LOOP_CONNECTIONS and not pool._waiting
            await onloop.close()
            await sessions.watch.stop()

    return asyncio.run(served())


def calls_logged(tool_name: str) -> int:
    with schema_context("acme"):
        return ToolCall.objects.filter(tool=tool_name).count()


@pytest.fixture
def statements_on_loop(monkeypatch) -> list[str]:  # type: ignore[no-untyped-def]
    """The statements awaited on the loop's connections."""
    seen: list[str] = []
    fetch = onloop.fetch

    def counted(statement: str, params: Any, search_path: Any, *workspace: str) -> Any:
        seen.append(statement)
        return fetch(statement, params, search_path, *workspace)

    monkeypatch.setattr(onloop, "fetch", counted)
    return seen


def test_a_warm_read_is_served_on_the_loop_as_a_thread_serves_it_and_logged_once(
    door, contacts, statements_on_loop
):
    contact = contacts["plain"]
    message = call_message("getContact", {"contactId": contact.pk})
    by_thread = door.send("POST", message)  # also warms the route, the credential, the session
    logged = calls_logged("getContact")

    by_loop = on_loop(request_of(door, message))

    assert by_loop.status == 200
    assert by_loop.body == by_thread.body
    answer = by_loop.body["result"]["structuredContent"]
    assert (answer["id"], answer["address"]["city"]) == (contact.pk, "Leeds")
    assert len(statements_on_loop) == 1  # the contact, its shares and duplicates: one statement
    assert calls_logged("getContact") == logged + 1  # written by the loop's COPY


def test_a_time_read_on_the_loop_is_the_very_value_django_reads(door, contacts):
    # The loop's connections load timestamptz with psycopg's own (C) loader, not Django's.
    contact = contacts["plain"]
    with schema_context("acme"):
        by_django = Contact.objects.values_list("created_at", flat=True).get(pk=contact.pk)

    async def by_loop() -> Any:
        try:
            rows = await onloop._fetch(
                'SELECT created_at FROM "acme"."contacts_contact" WHERE id = $1', [contact.pk], ("public",)
            )
        finally:
            await onloop.close()
        return rows[0][0]

    read = asyncio.run(by_loop())
    assert read == by_django
    assert read.tzinfo is by_django.tzinfo and read.isoformat() == by_django.isoformat()


def test_requests_of_two_workspaces_at_once_each_keep_their_own_workspace(
    door, contacts, statements_on_loop, monkeypatch
):
    globex = Door(pat_and_key("member@globex.example", "globex"), host="127.0.0.2")
    globex.initialize()
    with schema_context("globex"):
        theirs = ContactFactory(actor=User.objects.get(email="member@globex.example"), city="Lyon")
    # Warm, as a serving process is: the statements compiled (which asks the server's version of
    # a connection), the routes and credentials kept. Run alone, the test otherwise sent them to a
    # thread.
    door.send("POST", call_message("getContact", {"contactId": contacts["plain"].pk}))
    globex.send("POST", call_message("getContact", {"contactId": theirs.pk}))
    schemas: list[tuple[str, str]] = []
    fetch = onloop.fetch

    def watched(statement: str, params: Any, search_path: Any, *workspace: str) -> Any:
        before = connection.schema_name
        rows = fetch(statement, params, search_path, *workspace)  # the other request runs meanwhile
        schemas.append((before, connection.schema_name))
        named.append((statement.count(f'"{before}"."contacts_contact"'), tuple(search_path)))
        return rows

    named: list[tuple[int, tuple[str, ...]]] = []
    paths_set: list[tuple[str, ...]] = []
    take = onloop._Pool.take

    async def taken(pool: Any, search_path: tuple[str, ...], *server: Any) -> Any:
        pooled = await take(pool, search_path, *server)
        paths_set.append(pooled.search_path)
        return pooled

    monkeypatch.setattr(onloop._Pool, "take", taken)

    monkeypatch.setattr(onloop, "fetch", watched)
    try:
        ours, other = at_once(
            [
                request_of(door, call_message("getContact", {"contactId": contacts["plain"].pk})),
                request_of(globex, call_message("getContact", {"contactId": theirs.pk})),
            ]
        )
    finally:
        globex.send("DELETE")
        with schema_context("globex"):
            Contact.objects.filter(pk=theirs.pk).delete()

    assert ours.body["result"]["structuredContent"]["address"]["city"] == "Leeds"
    assert other.body["result"]["structuredContent"]["address"]["city"] == "Lyon"
    # Each request finds its own workspace active after the other ran during its statement.
    assert sorted(schemas) == [("acme", "acme"), ("globex", "globex")]
    # Each statement names its workspace's tables; the connections keep the public search path,
    # so neither request set one of its own (nor had PostgreSQL plan the statement again).
    assert [count for count, _ in named] == [1, 1]
    assert {path for _, path in named} == {("public",)} and set(paths_set) == {("public",)}


def test_an_error_answer_is_the_same_on_the_loop(door, contacts):
    message = call_message("getContact", {"contactId": 10**9})
    by_thread = door.send("POST", message)

    by_loop = on_loop(request_of(door, message))

    assert by_loop.body == by_thread.body
    assert by_loop.body["result"]["isError"] is True


def test_describe_tool_and_ping_need_no_statement(door, statements_on_loop):
    message = call_message("describeTool", {"name": "getContact"})
    by_thread = door.send("POST", message)

    assert on_loop(request_of(door, message)).body == by_thread.body
    ping = on_loop(request_of(door, PING))
    assert ping.body == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert statements_on_loop == []


def test_a_cold_request_gives_up_before_doing_anything_and_a_thread_serves_it(door, contacts):
    message = call_message("getContact", {"contactId": contacts["plain"].pk})
    door.send("POST", message)
    logged = calls_logged("getContact")
    request = request_of(door, message)

    for forget in (routing.forget, access.forget_principals, sessions._kept.clear):
        forget()
        with pytest.raises(onloop.NeedsThread):
            on_loop(request, warm=False)
        assert calls_logged("getContact") == logged  # nothing logged for what was not served
        assert serve(request).status == 200  # a thread serves it, and warms the cache again
        logged += 1


def test_what_is_kept_is_read_again_in_the_background_while_the_loop_serves_and_a_silent_revocation_is_seen(
    door, contacts, settings, monkeypatch
):
    # Every entry due for reading again as soon as its short while is over (TOLD_CACHE_SECONDS
    # away otherwise): the route, the credential, the session; and the session's last use old.
    settings.MCP_CREDENTIAL_CACHE_SECONDS = settings.MCP_SESSION_CACHE_SECONDS = 0.05
    monkeypatch.setattr(routing, "ROUTE_TTL", 0.05)
    monkeypatch.setattr(kept, "RENEW_AFTER", 0.0)
    routing.forget()
    access.forget_principals()
    sessions._kept.clear()
    request = request_of(door, call_message("getContact", {"contactId": contacts["plain"].pk}))
    digest = sessions.digest_of(door.headers["mcp-session-id"])
    long_ago = timezone.now() - sessions.TOUCH_EVERY - timedelta(minutes=1)
    with schema_context("acme"):
        token = PersonalAccessToken.objects.order_by("-pk").first()

    def in_thread() -> Reply:
        try:
            return serve(request)
        finally:
            connections.close_all()

    async def served() -> tuple[list[Any], Reply]:
        assert await sessions.watch.started()
        loop = asyncio.get_running_loop()
        try:
            assert (await loop.run_in_executor(None, in_thread)).status == 200  # kept, trusted
            # Its last use long ago, stored and kept: the loop's request is the one due to touch it.
            await loop.run_in_executor(None, last_used, digest, long_ago)
            sessions._kept[("acme", digest)][2].last_seen_at = long_ago
            await asyncio.sleep(0.1)  # past every short while
            outcomes: list[Any] = []
            outcomes.append(await onloop.run(serve, request, None))  # served; read again meanwhile
            assert await loop.run_in_executor(None, kept.later_done, 10)
            # Revoked without a word to this process (a restore, a script in psql).
            await loop.run_in_executor(None, revoke_silently, token.pk)
            await asyncio.sleep(0.1)
            outcomes.append(await onloop.run(serve, request, None))  # from what is kept...
            assert await loop.run_in_executor(None, kept.later_done, 10)  # ...read again: refused
            try:
                outcomes.append(await onloop.run(serve, request, None))
            except onloop.NeedsThread as gave_up:
                outcomes.append(gave_up)
            return outcomes, await loop.run_in_executor(None, in_thread)
        finally:
            await onloop.close()
            await sessions.watch.stop()

    try:
        outcomes, by_thread = asyncio.run(served())
    finally:
        # Nothing due for reading again is left to the tests after this one.
        assert kept.later_done(10)
        routing.forget()
        access.forget_principals()
        sessions._kept.clear()

    assert [getattr(outcome, "status", None) for outcome in outcomes[:2]] == [200, 200]
    assert isinstance(outcomes[2], onloop.NeedsThread)  # the credential is no longer kept
    assert by_thread.status == 401
    with schema_context("acme"):
        stored = McpSession.objects.get(digest=digest).last_seen_at
    assert stored > long_ago + timedelta(minutes=5)  # the loop's touch, written in the background


def last_used(digest: str, when: datetime) -> None:
    try:
        with schema_context("acme"):
            McpSession.objects.filter(digest=digest).update(last_seen_at=when)
    finally:
        connections.close_all()


def revoke_silently(token_pk: int) -> None:
    try:
        with schema_context("acme"):
            PersonalAccessToken.objects.filter(pk=token_pk).update(revoked_at=timezone.now())
    finally:
        connections.close_all()


def test_a_tool_that_reads_a_lazy_relation_gives_up_the_loop(door, contacts):
    message = call_message("getContact", {"contactId": contacts["employee"].pk})
    by_thread = door.send("POST", message)
    assert by_thread.body["result"]["isError"] is False
    logged = calls_logged("getContact")

    # Its organisation is read when the answer is made, through the ORM: not on the loop.
    with pytest.raises(onloop.NeedsThread):
        on_loop(request_of(door, message))
    assert calls_logged("getContact") == logged


def test_only_session_requests_for_the_loop_are_tried_there(door):
    def what(message: dict[str, Any], **headers: str) -> str | None:
        return may_serve_on_loop(
            Request("POST", "http", door.host, {**door.headers, **headers}, {}, json.dumps(message).encode())
        )

    assert what(call_message("getContact", {"contactId": 1})) == "getContact"
    assert what(call_message("describeTool", {"name": "getContact"})) == "describeTool"
    assert what({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) == "tools/list"
    assert what(call_message("listContacts", {})) is None  # not written for the loop
    assert what(call_message("createContact", {"contact": {}})) is None
    assert what({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert what({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}) is None
    assert (
        what(call_message("getContact", {"contactId": 1}), **{"mcp-protocol-version": "2026-07-28"}) is None
    )


def test_a_kind_of_request_that_keeps_giving_up_stops_being_tried():
    tally = onloop.Tally()
    for _ in range(tally.GRACE + 1):
        assert tally.worth("getThing")
        tally.count("getThing", served=False)
    assert not tally.worth("getThing")
    for _ in range(5):
        tally.count("getThing", served=True)
    assert tally.worth("getThing")


def test_a_first_give_up_at_each_host_is_the_cache_warming_and_does_not_count():
    """A process that starts serving many workspaces at once gives up once at each (nothing kept
    yet): that must not stop the loop for every workspace. A kind that gives up again at the same
    host, with no success there in between, gives up by its nature, and that counts."""
    tally = onloop.Tally()
    for number in range(tally.GRACE * 10):
        assert tally.worth("getThing")
        tally.count("getThing", served=False, where=f"w{number}.example")
    assert tally.worth("getThing") and not tally.gave_up
    # Served there since, its next give-up (an entry expired) is the cache warming again.
    tally.count("getThing", served=True, where="w1.example")
    tally.count("getThing", served=False, where="w1.example")
    assert not tally.gave_up
    for number in range(tally.GRACE + 1):
        tally.count("getThing", served=False, where=f"w{number}.example")
    assert tally.gave_up == {"getThing": tally.GRACE + 1}


def test_a_kind_that_stopped_being_tried_is_probed_and_comes_back_when_served():
    tally = onloop.Tally()
    for _ in range(tally.GRACE + 1):
        tally.count("getThing", served=False)

    tried = [tally.worth("getThing") for _ in range(tally.PROBE * 2)]

    assert tried.count(True) == 2 and tried[tally.PROBE - 1] and tried[-1]
    tally.count("getThing", served=True)  # the probe was served on the loop
    assert all(tally.worth("getThing") for _ in range(10))


def test_nothing_runs_on_the_loop_with_djangos_async_check_off(monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    assert not onloop.available()


def test_only_a_read_of_the_workspace_alone_may_be_written_for_the_loop():
    with pytest.raises(RegistryError, match="event loop"):

        @tool("writeOnLoop", permission=ContactsPerm.EDIT, title="Write", on_loop=True, register_it=False)
        def write_on_loop(ctx: Any) -> None:
            """Writes."""


def test_wait_outside_the_loop_is_a_mistake():
    with pytest.raises(RuntimeError, match="outside"):
        onloop.wait(object())  # type: ignore[arg-type]


def test_more_requests_than_connections_wait_their_turn_and_a_failed_one_frees_its_own(
    door, contacts, monkeypatch
):
    monkeypatch.setattr(settings, "SERVE_ON_LOOP_CONNECTIONS", 2)
    message = call_message("getContact", {"contactId": contacts["plain"].pk})
    door.send("POST", message)
    fetch = onloop.fetch
    runs = {"count": 0}

    def second_fails(statement: str, params: Any, search_path: Any, *workspace: str) -> Any:
        runs["count"] += 1
        # The second statement is refused by PostgreSQL (a missing table): its connection is
        # closed, and its place goes to the next request in line.
        failing = "SELECT * FROM no_such_table" if runs["count"] == 2 else statement
        return fetch(failing, params, search_path, *workspace)

    monkeypatch.setattr(onloop, "fetch", second_fails)
    replies = at_once([request_of(door, message) for _ in range(6)], return_exceptions=True)

    given_up = [reply for reply in replies if isinstance(reply, onloop.NeedsThread)]
    answered = [reply for reply in replies if isinstance(reply, Reply)]
    assert len(given_up) == 1 and "failed on the loop" in str(given_up[0])
    assert len(answered) == 5
    assert {reply.body["result"]["structuredContent"]["address"]["city"] for reply in answered} == {"Leeds"}


# --- Lanes: each workspace's statements on one connection of the pool ---------------------------


def test_a_workspaces_lane_is_the_same_everywhere_and_the_lanes_share_the_workspaces():
    # CRC-32 of the schema's name, not Python's hash (salted per process): every process and
    # every run sends a workspace to the same lane.
    assert onloop.lane_of("acme", 4) == onloop.lane_of("globex", 4) == 2
    assert onloop.lane_of("acme", 1) == 0
    counts = [0] * 4
    for index in range(1, 1001):
        counts[onloop.lane_of(f"w{index:04d}", 4)] += 1
    assert all(200 <= count <= 300 for count in counts), counts


def backends(schemas: list[str], *, size: int, together: bool = False) -> list[tuple[str, int, int]]:
    """(schema, the lane of the connection each schema's statement ran on, its backend's pid), for
    each statement run through the pool of a new loop: one after another, or all at once."""

    async def run_all() -> list[tuple[str, int, int]]:
        pool = onloop._Pool(size)
        seen: list[tuple[str, int, int]] = []

        async def one(schema: str) -> None:
            pooled = await pool.take(("public",), "default", schema)
            try:
                table = sql.SQL("SELECT 1 FROM {}.contacts_contact LIMIT 1").format(sql.Identifier(schema))
                await pooled.cursor.execute(table if schema else sql.SQL("SELECT 1"))
                await pooled.cursor.fetchall()
                await pooled.cursor.execute("SELECT pg_backend_pid()")
                (pid,) = await pooled.cursor.fetchone()  # type: ignore[misc]
                await asyncio.sleep(0.001 if together else 0)
                seen.append((schema, pooled.lane, pid))
            finally:
                pool.give_back(pooled)

        try:
            if together:
                await asyncio.gather(*(one(schema) for schema in schemas))
            else:
                for schema in schemas:
                    await one(schema)
            assert pool._opened <= size and not pool._waiting and not any(pool._lane_waiting)
        finally:
            await pool.close()
        return seen

    return asyncio.run(run_all())


def test_a_workspaces_statements_run_on_its_lanes_backend_whichever_came_before(committed, settings):
    settings.SERVE_ON_LOOP_LANES = True
    # 8 connections: acme's lane 6, globex's 2.
    seen = backends(["acme", "globex", "acme", "acme", "globex", "globex", "acme"] * 3, size=8)

    by_schema: dict[str, set[tuple[int, int]]] = {}
    for schema, lane, pid in seen:
        by_schema.setdefault(schema, set()).add((lane, pid))
    # Every statement of a workspace on the one backend of its lane; two lanes, two backends.
    ((acme_lane, acme_pid),) = by_schema["acme"]
    ((globex_lane, globex_pid),) = by_schema["globex"]
    assert (acme_lane, globex_lane) == (onloop.lane_of("acme", 8), onloop.lane_of("globex", 8)) == (6, 2)
    assert acme_pid != globex_pid


def test_a_lane_busy_with_another_workspace_is_waited_for_and_every_statement_is_answered(
    committed, settings
):
    settings.SERVE_ON_LOOP_LANES = True
    # 4 connections: acme's lane and globex's are both 2. Arriving in turn, each globex statement
    # finds the lane held by an acme one and waits for it; acme's find it held by their own
    # workspace and take idle lanes.
    schemas = ["acme", "globex"] * 8
    seen = backends(schemas, size=4, together=True)

    assert sorted(schema for schema, _lane, _pid in seen) == sorted(schemas)
    assert onloop.lane_of("acme", 4) == onloop.lane_of("globex", 4) == 2
    assert {lane for name, lane, _pid in seen if name == "globex"} == {2}
    assert len({pid for name, _lane, pid in seen if name == "globex"}) == 1


def test_a_workspace_alone_with_many_statements_at_once_takes_the_idle_lanes(committed, settings):
    settings.SERVE_ON_LOOP_LANES = True
    seen = backends(["acme"] * 12, size=4, together=True)

    assert len(seen) == 12
    assert len({lane for _schema, lane, _pid in seen}) > 1


def test_a_statement_of_no_workspace_takes_any_free_lane_and_waits_when_none_is(committed, settings):
    settings.SERVE_ON_LOOP_LANES = True
    seen = backends([""] * 10, size=2, together=True)

    assert len(seen) == 10
    assert {lane for _schema, lane, _pid in seen} == {0, 1}


def test_a_lane_holds_several_workspaces_prepared_each_its_own(door, contacts, monkeypatch):
    # One connection for every workspace: both workspaces' statements prepared on the same
    # backend, each naming its own schema, and every answer its own workspace's.
    monkeypatch.setattr(settings, "SERVE_ON_LOOP_CONNECTIONS", 1)
    globex = Door(pat_and_key("member@globex.example", "globex"), host="127.0.0.2")
    globex.initialize()
    with schema_context("globex"):
        theirs = ContactFactory(actor=User.objects.get(email="member@globex.example"), city="Lyon")
    ours = request_of(door, call_message("getContact", {"contactId": contacts["plain"].pk}))
    other = request_of(globex, call_message("getContact", {"contactId": theirs.pk}))
    runs = connection.settings_dict["OPTIONS"]["prepare_threshold"] + 2

    def in_thread(request: Request) -> None:
        try:
            assert serve(request).status == 200
        finally:
            connections.close_all()

    def served_in_turn() -> tuple[list[Reply], list[str], int]:
        async def served() -> tuple[list[Reply], list[str], int]:
            assert await sessions.watch.started()
            try:
                for request in (ours, other):  # the route, credential and session kept
                    await asyncio.get_running_loop().run_in_executor(None, in_thread, request)
                replies = []
                for _ in range(runs):
                    for request in (ours, other):
                        replies.append(await onloop.run(serve, request, None))
                (pooled,) = [slot for slot in onloop._pool()._slots if slot is not None]
                await pooled.cursor.execute("SELECT statement FROM pg_prepared_statements")
                prepared = [row[0] for row in await pooled.cursor.fetchall()]
                return replies, prepared, pooled.conn.prepared_max
            finally:
                await onloop.close()
                await sessions.watch.stop()

        return asyncio.run(served())

    try:
        replies, prepared, prepared_max = served_in_turn()
    finally:
        globex.send("DELETE")
        with schema_context("globex"):
            Contact.objects.filter(pk=theirs.pk).delete()

    cities = [reply.body["result"]["structuredContent"]["address"]["city"] for reply in replies]
    assert cities == ["Leeds", "Lyon"] * runs
    contact_reads = [text for text in prepared if "contacts_contact" in text]
    assert len(contact_reads) == 2
    assert sorted(('"acme"."' in text, '"globex"."' in text) for text in contact_reads) == [
        (False, True),
        (True, False),
    ]
    assert prepared_max == settings.SERVE_ON_LOOP_PREPARED_MAX
