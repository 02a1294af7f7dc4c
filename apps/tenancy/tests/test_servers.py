"""Workspaces on two PostgreSQL servers (apps.core.servers, apps.tenancy.moving): the suite's own
server and a second embedded one started for this module. A workspace made on each, requests
over real HTTP (a web process on loopback, told of both servers) reaching each one's own data, a
move from one server to the other with every row intact and requests served after it, and a
request refused with 503 while the workspace is paused for its move."""

import io
import os
import secrets
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections, router, transaction
from django.test import Client, override_settings
from django.utils import timezone
from django_tenants.utils import schema_context
from psycopg import sql

from apps.accounts.models import User
from apps.catalogue import audit
from apps.catalogue.models import ToolCall
from apps.contacts.models import Contact
from apps.core import servers, tasks
from apps.core.errors import RETRY_AFTER_SECONDS
from apps.core.testing import (
    LiveServer,
    PrivatePostgres,
    database_url,
    secondary_server_database,
    start_web,
    wait_for,
)
from apps.mcp.testing import McpHttp, pat_and_key
from apps.tenancy import errors, moving, services
from apps.tenancy.models import PendingWork, Workspace

SECOND = "second"
# The module's first test also starts the second server, copies the test database onto it and
# starts the web process.
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def second_url(django_db_setup: Any, django_db_blocker: Any) -> Iterator[str]:
    """A second PostgreSQL server with a database prepared as `prepare_database_server` leaves one
    (its public schema and the template schema, as the primary's), made here by copying the test
    database (running every migration again would take minutes) and dropping what is not a
    secondary's: the workspace schemas and the public-only rows."""
    workdir = Path(tempfile.mkdtemp(prefix="atrium-second-"))
    postgres = PrivatePostgres(workdir / "postgres").start()
    try:
        with django_db_blocker.unblock():
            primary = database_url()
        yield secondary_server_database(postgres, primary)
    finally:
        postgres.stop()
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="module")
def two_servers(second_url: str, django_db_setup: Any, django_db_blocker: Any) -> Iterator[str]:
    """The second server known to this process."""
    with override_settings(ATRIUM_DATABASE_SERVERS={SECOND: second_url}), django_db_blocker.unblock():
        assert services.server_ready(SECOND)
        yield second_url
        connection.set_schema_to_public()
        # The rows of the workspaces placed on the second server go with it: the rest of the suite
        # knows one server, and its sweeps visit every workspace row.
        # So do the operators' admin log entries about them (the public admin's recent actions).
        placed = [str(pk) for pk in Workspace.objects.filter(database=SECOND).values_list("pk", flat=True)]
        LogEntry.objects.filter(
            content_type=ContentType.objects.get_for_model(Workspace), object_id__in=placed
        ).delete()
        Workspace.objects.filter(database=SECOND).delete()
        connection.close()
        if servers.PUBLIC in connections.settings:
            connections[servers.PUBLIC].close()


@pytest.fixture(scope="module")
def web(two_servers: str, django_db_blocker: Any) -> Iterator[LiveServer]:
    """A web process told of both servers."""
    with django_db_blocker.unblock():
        url = database_url()
    server = start_web(
        {
            **os.environ,
            "DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "ATRIUM_DATABASE_SERVERS": f"{SECOND}={two_servers}",
        }
    )
    yield server
    server.stop()


def _schemas(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {row[0] for row in conn.execute("SELECT nspname FROM pg_namespace").fetchall()}


def _workspace(database: str) -> Workspace:
    tag = secrets.token_hex(3)
    return services.workspace_create(
        name=f"Placed {tag}",
        domains=[f"placed-{tag}.test"],
        owner_email=f"owner@{tag}.test",
        database=database,
    )


def _host(workspace: Workspace) -> str:
    return workspace.domains.get().domain


def _owner(workspace: Workspace) -> str:
    return f"owner@{_host(workspace).removeprefix('placed-').removesuffix('.test')}.test"


def _mcp(web: LiveServer, workspace: Workspace) -> McpHttp:
    client = McpHttp(web.url(), pat_and_key(_owner(workspace), workspace.schema_name))
    client.http.headers["Host"] = _host(workspace)
    client.initialize()
    return client


def _contacts(workspace: Workspace) -> list[str]:
    with schema_context(workspace.schema_name):
        return sorted(Contact.objects.values_list("first_name", flat=True))


def test_each_workspace_lives_and_is_served_on_its_own_server_and_moves_with_nothing_lost(
    committed: None, two_servers: str, web: LiveServer
) -> None:
    primary_url = database_url()
    on_primary, on_second = _workspace(servers.PRIMARY), _workspace(SECOND)
    assert (on_primary.database, on_second.database) == (servers.PRIMARY, SECOND)
    assert on_primary.schema_name in _schemas(primary_url) and on_primary.schema_name not in _schemas(
        two_servers
    )
    assert on_second.schema_name in _schemas(two_servers) and on_second.schema_name not in _schemas(
        primary_url
    )
    # The second server holds no workspace row: the placement of record is the primary's.
    with psycopg.connect(two_servers) as conn:
        assert conn.execute("SELECT count(*) FROM tenancy_workspace").fetchone()[0] == 0

    # Each door reaches its own workspace's data, on its own server.
    first, second = _mcp(web, on_primary), _mcp(web, on_second)
    for client, name in ((first, "Ada"), (second, "Grace"), (second, "Barbara")):
        assert not client.result("createContact", {"contact": {"firstName": name}}).get("isError")
    assert _contacts(on_primary) == ["Ada"]
    assert _contacts(on_second) == ["Barbara", "Grace"]

    # Moved to the primary: every row there, none left behind, and served from there.
    moved = moving.move_workspace(on_second.schema_name, servers.PRIMARY)
    assert (moved.source, moved.target) == (SECOND, servers.PRIMARY) and moved.rows > 2
    on_second.refresh_from_db()
    assert (on_second.database, on_second.moving_to) == (servers.PRIMARY, "")
    assert on_second.schema_name in _schemas(primary_url) and on_second.schema_name not in _schemas(
        two_servers
    )
    assert _contacts(on_second) == ["Barbara", "Grace"]
    answer = wait_for(
        lambda: (
            (r := second.call("createContact", {"contact": {"firstName": "Hedy"}})).status_code == 200 and r
        ),
        what="the moved workspace served again",
    )
    assert not answer.json()["result"].get("isError")
    assert _contacts(on_second) == ["Barbara", "Grace", "Hedy"]

    # And back to the second server, with what was written meanwhile.
    moving.move_workspace(on_second.schema_name, SECOND)
    assert _contacts(on_second) == ["Barbara", "Grace", "Hedy"]
    assert on_second.schema_name in _schemas(two_servers) and on_second.schema_name not in _schemas(
        primary_url
    )
    assert wait_for(lambda: second.call("listContacts", {}).status_code == 200)
    for client in (first, second):
        client.close()


def test_a_paused_workspace_answers_503_with_retry_after_until_it_has_moved(
    committed: None, two_servers: str, web: LiveServer
) -> None:
    workspace = _workspace(servers.PRIMARY)
    client = _mcp(web, workspace)
    done: list[Any] = []

    def move() -> None:
        try:
            done.append(moving.move_workspace(workspace.schema_name, SECOND, pause_seconds=6))
        except BaseException as error:  # reported below
            done.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=move)
    thread.start()
    refused = wait_for(
        lambda: (r := client.call("listContacts", {})).status_code == 503 and r, timeout=6, what="a 503"
    )
    assert refused.headers["retry-after"] == str(RETRY_AFTER_SECONDS)
    assert refused.json()["error"]["code"] == "UNAVAILABLE"
    pages = client.http.get("/")
    assert pages.status_code == 503 and pages.json()["error"]["code"] == "UNAVAILABLE"
    thread.join(60)
    assert len(done) == 1 and isinstance(done[0], moving.Moved), done
    assert wait_for(lambda: client.call("listContacts", {}).status_code == 200, what="served after the move")
    client.close()


def test_bad_moves_are_refused_and_change_nothing(committed: None, two_servers: str) -> None:
    workspace = _workspace(SECOND)
    with pytest.raises(errors.AlreadyOnServer):
        moving.move_workspace(workspace.schema_name, SECOND)
    with pytest.raises(errors.ServerUnknown):
        moving.move_workspace(workspace.schema_name, "nowhere")
    with pytest.raises(errors.NoSuchWorkspace):
        moving.move_workspace("no_such_schema", SECOND)
    with pytest.raises(errors.ServerUnknown):
        _workspace("nowhere")
    workspace.refresh_from_db()
    assert (workspace.database, workspace.moving_to) == (SECOND, "")


def test_a_failed_copy_is_undone(committed: None, two_servers: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy failing (here: made to fail) leaves the workspace where it was, served, with no
    copy on the other server."""
    workspace = _workspace(SECOND)

    def broken(*args: Any) -> None:
        raise RuntimeError("the copy broke")

    monkeypatch.setattr(moving, "_pipe", broken)
    with pytest.raises(RuntimeError, match="the copy broke"):
        moving.move_workspace(workspace.schema_name, servers.PRIMARY)
    workspace.refresh_from_db()
    assert (workspace.database, workspace.moving_to) == (SECOND, "")
    assert workspace.schema_name not in _schemas(database_url())
    with schema_context(workspace.schema_name):
        assert User.objects.filter(email=_owner(workspace)).exists()


def test_new_workspaces_go_to_the_least_loaded_server(committed: None, two_servers: str) -> None:
    counts = {
        key: Workspace.objects.exclude(schema_name="public").filter(database=key).count()
        for key in servers.known()
    }
    fewest = min(servers.known(), key=lambda key: (counts[key], servers.known().index(key)))
    assert services.least_loaded_server() == fewest
    with override_settings(ATRIUM_DATABASE_SERVER_WEIGHTS={SECOND: 0}):
        assert services.least_loaded_server() == servers.PRIMARY
    with override_settings(ATRIUM_DATABASE_SERVER_WEIGHTS={servers.PRIMARY: 0}):
        assert services.least_loaded_server() == SECOND


def test_a_refused_pin_leaves_the_thread_free(committed: None, two_servers: str) -> None:
    """`pinned` refused inside a transaction leaves the thread on no server in particular: the
    next workspace made on the primary is made there."""
    with transaction.atomic(), pytest.raises(servers.ServerSwitchRefused), servers.pinned(SECOND):
        pass
    assert connection.pinned_server is None  # type: ignore[attr-defined]
    assert _workspace(servers.PRIMARY).database == servers.PRIMARY


def test_operators_create_a_workspace_on_another_server_from_the_admin(
    committed: None, two_servers: str, public_client: Client
) -> None:
    public_client.force_login(User.objects.get(email="operator@atrium.example"))
    tag = secrets.token_hex(3)
    with override_settings(ATRIUM_DATABASE_SERVER_WEIGHTS={servers.PRIMARY: 0}):
        response = public_client.post(
            "/admin/tenancy/workspace/add/",
            {
                "name": f"Admin {tag}",
                "schema_name": f"admin_{tag}",
                "domain": f"admin-{tag}.test",
                "owner_email": f"owner@admin-{tag}.test",
                "time_zone": "UTC",
            },
        )
    assert response.status_code == 302, response.content.decode()[:2000]
    workspace = Workspace.objects.get(schema_name=f"admin_{tag}")
    assert workspace.database == SECOND and workspace.schema_name in _schemas(two_servers)
    with schema_context(workspace.schema_name):
        assert User.objects.get().email == f"owner@admin-{tag}.test"


def test_work_marked_in_a_workspace_on_another_server_is_swept(committed: None, two_servers: str) -> None:
    workspace = _workspace(SECOND)
    with schema_context(workspace.schema_name), transaction.atomic():
        tasks.mark_pending("servers-test")
    swept: list[str] = []

    def sweep() -> bool:
        swept.append(connection.schema_name)
        return False

    assert tasks.for_each_marked("servers-test", sweep) == 0
    assert swept == [workspace.schema_name]
    assert not PendingWork.objects.filter(kind="servers-test").exists()


def test_the_writer_thread_logs_tool_calls_of_workspaces_on_each_server(
    committed: None, two_servers: str
) -> None:
    on_primary, on_second = _workspace(servers.PRIMARY), _workspace(SECOND)
    writer = audit.AuditBuffer()
    with override_settings(ATRIUM_AUDIT_FLUSH_SECONDS=3600):
        for workspace in (on_primary, on_second, on_second):
            writer.record(
                audit.Entry(
                    schema_name=workspace.schema_name,
                    at=timezone.now(),
                    user_id=None,
                    scheme="pat",
                    credential="",
                    client="test",
                    tool="listContacts",
                    outcome="ok",
                    error_code="",
                    duration_ms=1.0,
                )
            )
        writer.close()  # the writer thread writes what waits, on its own connection
    assert writer.pending() == 0
    for workspace, url, count in ((on_primary, database_url(), 1), (on_second, two_servers, 2)):
        with psycopg.connect(url) as conn:
            table = sql.Identifier(workspace.schema_name, ToolCall._meta.db_table)
            assert conn.execute(sql.SQL("SELECT count(*) FROM {}").format(table)).fetchone()[0] == count


def test_a_move_whose_last_drop_fails_leaves_no_writable_old_schema(
    committed: None, two_servers: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old schema is renamed under the locks before the switch: the drop after it failing
    (here: made to fail) leaves nothing of the workspace's name on the source, and running the
    move again drops the renamed one, never the workspace's."""
    workspace = _workspace(SECOND)

    def broken(*args: Any) -> bool:
        raise psycopg.errors.LockNotAvailable("the drop broke")

    with monkeypatch.context() as patched:
        patched.setattr(moving, "_drop_tombstone", broken)
        moving.move_workspace(workspace.schema_name, servers.PRIMARY)
    workspace.refresh_from_db()
    assert (workspace.database, workspace.moving_to) == (servers.PRIMARY, "")
    left = _schemas(two_servers)
    assert workspace.schema_name not in left and moving.tombstone(workspace.schema_name) in left
    assert workspace.schema_name in _schemas(database_url())

    again = moving.move_workspace(workspace.schema_name, servers.PRIMARY)
    assert again.leftovers_dropped == [SECOND]
    assert moving.tombstone(workspace.schema_name) not in _schemas(two_servers)
    with schema_context(workspace.schema_name):
        assert User.objects.filter(email=_owner(workspace)).exists()
    with pytest.raises(errors.AlreadyOnServer):
        moving.move_workspace(workspace.schema_name, servers.PRIMARY)


def test_a_workspace_whose_schema_was_left_renamed_is_never_dropped(
    committed: None, two_servers: str
) -> None:
    """A switch that failed and whose rename back failed too leaves the workspace's data only in
    the renamed schema: neither a move nor a rerun drops it; both say what to do."""
    workspace = _workspace(SECOND)
    renamed = moving.tombstone(workspace.schema_name)
    with psycopg.connect(two_servers, autocommit=True) as conn:
        conn.execute(
            sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(
                sql.Identifier(workspace.schema_name), sql.Identifier(renamed)
            )
        )
    for target in (servers.PRIMARY, SECOND):
        with pytest.raises(moving.SchemaMissing, match=f"rename that back to {workspace.schema_name}"):
            moving.move_workspace(workspace.schema_name, target)
    assert renamed in _schemas(two_servers)
    workspace.refresh_from_db()
    assert (workspace.database, workspace.moving_to) == (SECOND, "")
    # What the message says to do, so that the workspace is whole again for the tests after.
    with psycopg.connect(two_servers, autocommit=True) as conn:
        conn.execute(
            sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(
                sql.Identifier(renamed), sql.Identifier(workspace.schema_name)
            )
        )


def test_a_kept_aside_connection_past_its_age_is_closed(committed: None, two_servers: str) -> None:
    """The physical connection to another server, kept aside while the connection is on the
    primary, is closed (and its slot given back) once it has outlived CONN_MAX_AGE, as the one in
    use would be."""
    wrapper: Any = connection
    wrapper.close()
    with servers.pinned(SECOND):
        wrapper.ensure_connection()
    raw, slot, _close_at, *rest = wrapper._parked[SECOND]
    wrapper._parked[SECOND] = (raw, slot, time.monotonic() - 1, *rest)
    wrapper.close_if_unusable_or_obsolete()
    assert SECOND not in wrapper._parked and raw.closed


def test_the_public_router_is_registered_only_while_several_servers_are(two_servers: str) -> None:
    def registered() -> int:
        return sum(isinstance(each, servers.PublicRouter) for each in router.routers)

    assert registered() == 1
    with override_settings(ATRIUM_DATABASE_SERVERS={}):
        assert registered() == 0
    assert registered() == 1


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_migrate_workspaces_goes_over_each_server_and_reports_the_one_it_cannot_reach(
    committed: None, two_servers: str
) -> None:
    on_primary, on_second = _workspace(servers.PRIMARY), _workspace(SECOND)
    # A workspace placed on a third server that is down (its row alone: nothing can be made there).
    lost_name = f"lost_{secrets.token_hex(3)}"
    Workspace.objects.bulk_create(
        [Workspace(schema_name=lost_name, name=lost_name, brand_name=lost_name, database="gone")]
    )
    gone = f"postgres://atrium:unused@127.0.0.1:{_closed_port()}/atrium"
    out = io.StringIO()
    try:
        with (
            override_settings(ATRIUM_DATABASE_SERVERS={SECOND: two_servers, "gone": gone}),
            pytest.raises(CommandError) as raised,
        ):
            call_command("migrate_workspaces", processes=2, verbosity=2, stdout=out)
    finally:
        Workspace.objects.filter(schema_name=lost_name).delete()
    message, lines = str(raised.value), out.getvalue().splitlines()
    assert (
        "database server gone (unreachable: OperationalError: " in message
        and f"its 1 workspace schema(s) were NOT migrated: {lost_name}" in message
    ), message
    # The primary first, then the others by key: the one down is reported, the next one is done.
    headers = [line for line in lines if line.startswith("Database server ")]
    assert [header.split(":")[0] for header in headers] == [
        "Database server default",
        "Database server gone",
        "Database server gone FAILED",
        f"Database server {SECOND}",
    ], headers
    after_second = lines[lines.index(headers[-1]) :]
    assert "Template schema workspace_template: up to date" in after_second, after_second
    assert any(line.endswith(f"] {on_second.schema_name}: up to date") for line in after_second)
    assert any(line.endswith(f"] {on_primary.schema_name}: up to date") for line in lines)
    assert not any(on_primary.schema_name in line for line in after_second)


def _typical(url: str, schema: str) -> tuple[bool, bool]:
    """(the typical migration's column is there, its row is recorded) in `schema` on server `url`."""
    with psycopg.connect(url) as conn:
        column = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = %s "
            "AND table_name = 'contacts_contact' AND column_name = 'upgrade_level')",
            [schema],
        ).fetchone()
        recorded = conn.execute(
            sql.SQL(
                "SELECT EXISTS (SELECT 1 FROM {}.django_migrations "
                "WHERE app = 'contacts' AND name = '9001_typical')"
            ).format(sql.Identifier(schema))
        ).fetchone()
    assert column is not None and recorded is not None
    return bool(column[0]), bool(recorded[0])


def test_migrate_workspaces_migrates_a_servers_template_and_workspaces_there(
    committed: None, two_servers: str, settings: Any
) -> None:
    """The module's last test: the second server's template keeps the typical migration after it."""
    on_primary, on_second = _workspace(servers.PRIMARY), _workspace(SECOND)
    with pytest.raises(CommandError, match="nowhere: not a database server of this installation"):
        call_command("migrate_workspaces", "--server", "nowhere")
    settings.MIGRATION_MODULES = {"contacts": "apps.tenancy.tests.typical_migration"}
    out = io.StringIO()
    call_command("migrate_workspaces", "--server", SECOND, processes=2, verbosity=2, stdout=out)
    lines = out.getvalue().splitlines()
    base = settings.TENANT_BASE_SCHEMA
    assert any(line.startswith(f"Template schema {base}: 1 migration(s) in ") for line in lines), lines
    assert any(f"] {on_second.schema_name}: 1 migration(s) in " in line for line in lines), lines
    assert _typical(two_servers, base) == (True, True)
    assert _typical(two_servers, on_second.schema_name) == (True, True)
    # The primary was not asked: its template and workspaces are as they were.
    assert not any(on_primary.schema_name in line for line in lines)
    assert _typical(database_url(), base) == (False, False)
    assert _typical(database_url(), on_primary.schema_name) == (False, False)
    # A workspace copied from the second server's template now is made up to date.
    later = _workspace(SECOND)
    assert _typical(two_servers, later.schema_name) == (True, True)

    # Again: nothing left to do on that server.
    out = io.StringIO()
    call_command("migrate_workspaces", "--server", SECOND, processes=1, verbosity=2, stdout=out)
    lines = out.getvalue().splitlines()
    assert f"Template schema {base}: up to date" in lines, lines
    assert any(line.endswith(f"] {on_second.schema_name}: up to date") for line in lines), lines
