"""The log of tool calls: batched writes off the request path, and the admins' settings page."""

import socket
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from django.db import IntegrityError, OperationalError, connection
from django.db.models import NOT_PROVIDED
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tenants.utils import schema_context

from apps.accounts.models import User
from apps.catalogue import audit
from apps.catalogue.audit import AuditBuffer, Entry
from apps.catalogue.models import ToolCall
from apps.catalogue.tasks import purge_tool_calls
from apps.catalogue.testing import call


@pytest.fixture
def buffer():  # type: ignore[no-untyped-def]
    """A buffer of the test's own, its writer thread stopped at the end (left running, it would go
    on after the test with the tests' flush interval of 0)."""
    made = AuditBuffer()
    yield made
    made.close()


def entry(tool: str, user_id: int | None, schema_name: str = "acme") -> Entry:
    return Entry(
        schema_name=schema_name,
        at=timezone.now(),
        user_id=user_id,
        scheme="oauth",
        credential="oauth:7",
        client="Batch client",
        tool=tool,
        outcome="ok",
        error_code="",
        duration_ms=1.25,
    )


def test_entries_wait_in_memory_and_are_written_together_per_workspace(committed, settings, buffer):
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 30
    settings.ATRIUM_AUDIT_BATCH_SIZE = 20
    marker = f"batch{uuid.uuid4().hex[:8]}"
    with schema_context("acme"):
        member = User.objects.get(email="member@acme.example").pk
    try:
        for _ in range(12):
            buffer.record(entry(marker, member))
        for _ in range(7):
            buffer.record(entry(marker, None, schema_name="globex"))
        # Nothing is written on the caller's path.
        with schema_context("acme"):
            assert not ToolCall.objects.filter(tool=marker).exists()
        assert buffer.pending() == 19

        buffer.record(entry(marker, member))  # the 20th wakes the writer
        deadline = time.monotonic() + 10
        while buffer.pending() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)

        with schema_context("acme"):
            rows = list(ToolCall.objects.filter(tool=marker))
        with schema_context("globex"):
            foreign = ToolCall.objects.filter(tool=marker).count()
        assert len(rows) == 13
        assert foreign == 7
        assert {(row.user_id, row.credential, row.client) for row in rows} == {
            (member, "oauth:7", "Batch client")
        }
    finally:
        for schema_name in ("acme", "globex"):
            with schema_context(schema_name):
                ToolCall.objects.filter(tool=marker).delete()


def test_flush_writes_what_is_waiting_at_once(committed, settings, buffer):
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 30
    marker = f"flush{uuid.uuid4().hex[:8]}"
    try:
        buffer.record(entry(marker, None))
        assert buffer.flush() == 1
        with schema_context("acme"):
            assert ToolCall.objects.filter(tool=marker).count() == 1
    finally:
        with schema_context("acme"):
            ToolCall.objects.filter(tool=marker).delete()


def writer(buffer: AuditBuffer) -> threading.Thread | None:
    """The buffer's writer thread while it runs."""
    thread = buffer._thread
    return thread if thread is not None and thread.is_alive() else None


def test_close_writes_what_waits_and_stops_the_writer(committed, settings, buffer):
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 30
    marker = f"close{uuid.uuid4().hex[:8]}"
    try:
        buffer.record(entry(marker, None))
        assert writer(buffer)
        buffer.close()
        assert not writer(buffer)
        assert len(stored(marker, "acme")) == 1
    finally:
        with schema_context("acme"):
            ToolCall.objects.filter(tool=marker).delete()


def test_the_writer_stops_once_entries_are_written_as_they_come(committed, settings, buffer):
    """A writer left running when the interval becomes 0 (tests change it under a running process)
    must not go on waiting 0 s in a loop: that spins and starves the process."""
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 0.05
    marker = f"spin{uuid.uuid4().hex[:8]}"
    try:
        buffer.record(entry(marker, None))
        thread = writer(buffer)
        assert thread
        settings.ATRIUM_AUDIT_FLUSH_SECONDS = 0
        thread.join(5)
        assert not thread.is_alive()
        assert buffer.pending() == 0 and len(stored(marker, "acme")) == 1
    finally:
        with schema_context("acme"):
            ToolCall.objects.filter(tool=marker).delete()


# What a record holds, compared field by field.
STORED = ("at", "user_id", "scheme", "credential", "client", "tool", "outcome", "error_code", "duration_ms")


def stored(marker: str, schema_name: str) -> list[tuple[object, ...]]:
    with schema_context(schema_name):
        return list(ToolCall.objects.filter(tool__startswith=marker).order_by("id").values_list(*STORED))


def expected(entry: Entry) -> tuple[object, ...]:
    fields = audit._fields(entry)
    return tuple(fields[name] for name in STORED)


def test_a_batch_over_two_workspaces_lands_in_each_with_its_exact_values(committed, settings, buffer):
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 30
    marker = f"exact{uuid.uuid4().hex[:8]}"
    with schema_context("acme"):
        member = User.objects.get(email="member@acme.example").pk
    at = datetime(2031, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)
    acme = [
        Entry("acme", at, member, "oauth", "oauth:7", "Desk app", f"{marker}-a", "ok", "", 1.23456789),
        Entry(
            "acme", at + timedelta(microseconds=1), None, "", "", "", f"{marker}-b", "error", "NOT_FOUND", 0.0
        ),
    ]
    globex = [
        Entry(
            "globex",
            timezone.now(),
            None,
            "access_token",
            "pat:3",
            "x" * 250,
            f"{marker}-c",
            "failed",
            "",
            99999.9996,
        ),
    ]
    try:
        # Interleaved, as requests from two workspaces arrive.
        for item in (acme[0], globex[0], acme[1]):
            buffer.record(item)
        assert buffer.flush() == 3

        assert stored(marker, "acme") == [expected(item) for item in acme]
        assert stored(marker, "globex") == [expected(item) for item in globex]
        row = stored(marker, "globex")[0]
        assert (row[4], row[8]) == ("x" * 200, 100000.0)  # cut to the column, rounded to a microsecond
        assert stored(marker, "acme")[0][0] == at and stored(marker, "acme")[0][8] == 1.235
    finally:
        for schema_name in ("acme", "globex"):
            with schema_context(schema_name):
                ToolCall.objects.filter(tool__startswith=marker).delete()


@pytest.fixture
def statements(monkeypatch):  # type: ignore[no-untyped-def]
    """The texts the writer sends through its raw cursor (Django's query log does not see them)."""
    sent: list[str] = []
    execute = psycopg.RawCursor.execute

    def spied(self, query, params=None, **options):  # type: ignore[no-untyped-def]
        sent.append(str(query))
        return execute(self, query, params, **options)

    monkeypatch.setattr(psycopg.RawCursor, "execute", spied)
    return sent


@pytest.mark.parametrize("most", [audit.WORKSPACES_A_STATEMENT, 1])
def test_a_batch_over_several_workspaces_is_one_statement(
    committed, settings, buffer, statements, monkeypatch, most
):
    """A COPY per workspace would cost a round trip each: calls spread over many workspaces go in
    together, each row in its own workspace; one statement for as many workspaces as a statement
    may lock, the rest in the next ones."""
    monkeypatch.setattr(audit, "WORKSPACES_A_STATEMENT", most)
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 30
    marker = f"one{uuid.uuid4().hex[:8]}"
    try:
        for index in range(6):
            buffer.record(entry(f"{marker}-{index}", None, schema_name=("acme", "globex")[index % 2]))
        with CaptureQueriesContext(connection) as queries:
            assert buffer.flush() == 6
        assert not [query["sql"] for query in queries.captured_queries if "COPY" in query["sql"]]
        assert [text[:4] for text in statements] == ["WITH"] * (1 if most > 1 else 2)
        assert [row[5] for row in stored(marker, "acme")] == [f"{marker}-{index}" for index in (0, 2, 4)]
        assert [row[5] for row in stored(marker, "globex")] == [f"{marker}-{index}" for index in (1, 3, 5)]
    finally:
        for schema_name in ("acme", "globex"):
            with schema_context(schema_name):
                ToolCall.objects.filter(tool__startswith=marker).delete()


def test_entries_spread_thin_over_workspaces_wait_for_more_up_to_a_limit(settings, buffer, monkeypatch):
    """Calls rotating over many workspaces (fewer than two a workspace, over SPREAD_WORKSPACES)
    wait past the interval, while they are young and fewer than SPREAD_FACTOR batches; a few
    workspaces' never do."""
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 30
    settings.ATRIUM_AUDIT_BATCH_SIZE = 4
    settings.ATRIUM_AUDIT_SPREAD_SECONDS = 5
    monkeypatch.setattr(audit, "SPREAD_WORKSPACES", 2)
    monkeypatch.setattr(buffer, "_start", lambda: None)  # no writer: only the decision is tried
    assert not buffer.thin()  # nothing waits
    buffer.record(entry("spread", None, schema_name="w0"))
    assert not buffer.thin()  # one workspace's entry: its COPY costs little
    for index in range(1, 3):
        buffer.record(entry("spread", None, schema_name=f"w{index}"))
    assert buffer.thin()
    for _ in range(3):
        buffer.record(entry("spread", None, schema_name="w0"))
    assert not buffer.thin()  # 6 entries over 3 workspaces: two a workspace
    for index in range(3, 40):
        buffer.record(entry("spread", None, schema_name=f"w{index}"))
    assert not buffer.thin()  # 43 entries wait: more than SPREAD_FACTOR (10) batches of 4
    buffer._pending, buffer._schemas = [], {}
    buffer.record(entry("spread", None, schema_name="w1"))
    buffer.record(entry("spread", None, schema_name="w2"))
    assert buffer.thin()
    buffer._since -= 5  # the oldest has waited ATRIUM_AUDIT_SPREAD_SECONDS
    assert not buffer.thin()
    buffer._pending, buffer._schemas = [], {}


CREDENTIAL = "oauth:Zoë\t東京 \\N 'q' \"dq\"\n"
UNUSUAL = "tab\there, new\nline\r, back\\slash, \\N, 'single' \"double\" ; -- Zoë, 東京, 🚀\t"


@pytest.mark.parametrize("way", ["batch", "batch over two workspaces", "at once"])
def test_unusual_text_and_a_null_person_are_stored_exactly(committed, settings, way, buffer):
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 0 if way == "at once" else 30
    marker = f"odd{uuid.uuid4().hex[:8]}"
    entries = [
        Entry(
            "acme", timezone.now(), None, "oauth", CREDENTIAL, UNUSUAL, f"{marker}\t\\", "ok", "E\\N\n", 2.5
        ),
        Entry("acme", timezone.now(), None, "oauth", "\\\\N", "\\N", marker, "ok", "", 0.001),
    ]
    other = Entry("globex", timezone.now(), None, "oauth", CREDENTIAL, UNUSUAL, marker, "ok", "", 1.0)
    try:
        for item in entries:
            buffer.record(item)
        if way == "batch over two workspaces":
            buffer.record(other)  # one statement rather than a COPY
            assert buffer.flush() == 3
            assert stored(marker, "globex") == [expected(other)]
        elif way == "batch":
            assert buffer.flush() == 2

        rows = stored(marker, "acme")
        assert rows == [expected(item) for item in entries]
        assert rows[0][4] == UNUSUAL and rows[0][1] is None
        assert rows[1][3:5] == ("\\\\N", "\\N")  # not taken for the COPY null marker
    finally:
        for schema_name in ("acme", "globex"):
            with schema_context(schema_name):
                ToolCall.objects.filter(tool__startswith=marker).delete()


def test_every_column_is_filled_by_the_writer_or_by_the_database():
    """A field added to ToolCall must be added to `_fields` too, or have a `db_default`: the
    writer names only the columns `_fields` fills, and a plain `default=` (applied by the ORM,
    never by COPY) or a nullable column would silently be left empty in every row."""
    filled = set(audit._fields(Entry("acme", timezone.now(), None, "", "", "", "t", "ok", "", 0.0)))
    opts = ToolCall._meta
    filled_columns = {opts.get_field(name).column for name in filled}

    left_out = {
        field.name
        for field in opts.concrete_fields
        if field.column not in filled_columns and field is not opts.pk and field.db_default is NOT_PROVIDED
    }

    assert left_out == set()
    assert opts.pk.column not in filled_columns and opts.pk.get_internal_type() == "BigAutoField"


@pytest.mark.django_db
def test_every_column_of_the_table_is_filled_by_the_writer_or_has_a_default():
    filled = audit._fields(Entry("acme", timezone.now(), None, "", "", "", "t", "ok", "", 0.0))
    columns = {ToolCall._meta.get_field(name).column for name in filled}
    with schema_context("acme"), connection.cursor() as cursor:
        cursor.execute(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = %s AND table_name = %s AND column_default IS NULL"
            " AND is_identity = 'NO' AND is_generated = 'NEVER'",
            ["acme", ToolCall._meta.db_table],
        )
        without_default = {name for (name,) in cursor.fetchall()}

    assert without_default and without_default <= columns


def test_entries_are_kept_while_the_database_is_unreachable(committed, settings, monkeypatch, buffer):
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 30
    marker = f"away{uuid.uuid4().hex[:8]}"
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    try:
        buffer.record(entry(marker, None))
        buffer.record(entry(marker, None, schema_name="globex"))
        connection.close()
        monkeypatch.setitem(connection.settings_dict, "PORT", str(closed_port))

        with pytest.raises(OperationalError):
            buffer.flush()
        assert buffer.pending() == 2

        connection.close()
        monkeypatch.undo()
        assert buffer.flush() == 2
        assert len(stored(marker, "acme")) == 1 and len(stored(marker, "globex")) == 1
    finally:
        connection.close()
        monkeypatch.undo()
        for schema_name in ("acme", "globex"):
            with schema_context(schema_name):
                ToolCall.objects.filter(tool__startswith=marker).delete()


def test_a_nul_in_a_tool_name_is_stored_as_a_replacement_character(committed, settings, buffer):
    """PostgreSQL refuses NUL in text; a client may send one in `tools/call`'s name. It must not
    make the batch fail (it would be retried, and refused, forever)."""
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 30
    marker = f"nul{uuid.uuid4().hex[:8]}"
    try:
        buffer.record(entry(f"{marker}\x00x", None))
        buffer.record(entry(marker, None))
        assert buffer.flush() == 2
        assert [row[5] for row in stored(marker, "acme")] == [f"{marker}\ufffdx", marker]
    finally:
        with schema_context("acme"):
            ToolCall.objects.filter(tool__startswith=marker).delete()


@pytest.fixture
def refusing_schema(committed):  # type: ignore[no-untyped-def]
    """A schema whose ToolCall table refuses every row (a CHECK that always fails)."""
    name = f"refusing_{uuid.uuid4().hex[:8]}"
    table = ToolCall._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE SCHEMA "{name}"')
        cursor.execute(f'CREATE TABLE "{name}"."{table}" (LIKE "acme"."{table}" INCLUDING ALL)')
        cursor.execute(f'ALTER TABLE "{name}"."{table}" ADD CHECK (false)')
    yield name
    with connection.cursor() as cursor:
        cursor.execute(f'DROP SCHEMA "{name}" CASCADE')


def test_a_workspace_whose_rows_are_refused_does_not_hold_back_the_others(
    settings, refusing_schema, caplog, buffer
):
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 30
    marker = f"held{uuid.uuid4().hex[:8]}"
    try:
        for schema_name in ("acme", refusing_schema, "globex"):
            buffer.record(entry(marker, None, schema_name=schema_name))

        with pytest.raises(IntegrityError):
            buffer.flush()
        # Only the refused entry waits for the next batch: the others were written once.
        assert buffer.pending() == 1
        with pytest.raises(IntegrityError):
            buffer.flush()
        assert buffer.pending() == 1
        assert len(stored(marker, "acme")) == 1 and len(stored(marker, "globex")) == 1
    finally:
        for schema_name in ("acme", "globex"):
            with schema_context(schema_name):
                ToolCall.objects.filter(tool__startswith=marker).delete()


def test_the_entries_of_a_workspace_that_no_longer_exists_are_dropped(committed, settings, caplog, buffer):
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 30
    marker = f"gone{uuid.uuid4().hex[:8]}"
    try:
        buffer.record(entry(marker, None, schema_name=f"deleted_{uuid.uuid4().hex[:8]}"))
        buffer.record(entry(marker, None))

        assert buffer.flush() == 1
        assert buffer.pending() == 0
        assert len(stored(marker, "acme")) == 1
        assert "no longer exists: 1 tool-call records dropped" in caplog.text
    finally:
        with schema_context("acme"):
            ToolCall.objects.filter(tool__startswith=marker).delete()


def test_old_records_are_purged(people):
    old = ToolCall.objects.create(
        at=timezone.now() - timedelta(days=200), tool="getContact", outcome="ok", duration_ms=1
    )
    new = ToolCall.objects.create(at=timezone.now(), tool="getContact", outcome="ok", duration_ms=1)

    assert purge_tool_calls(older_than=timedelta(days=180)) == 1
    assert list(ToolCall.objects.filter(pk__in=[old.pk, new.pk])) == [new]


# --- the settings page --------------------------------------------------------------------------


def test_admins_see_the_log_in_the_settings(acme_client, people):
    call(people["member"], "searchContacts", {"query": "nobody"})
    acme_client.force_login(people["admin"])

    response = acme_client.get("/settings/tool-calls/")

    assert response.status_code == 200
    page = response.content.decode()
    assert "searchContacts" in page
    assert "member@acme.example" in page
    assert "access token" in page and "pat:test" not in page  # credentials by kind and name
    assert 'href="/settings/tool-calls/"' in page  # in the navigation
    assert "nobody" not in page  # arguments are never kept


def test_the_log_can_be_filtered_by_outcome(acme_client, people):
    call(people["member"], "searchContacts", {"query": "nobody"})
    call(people["member"], "getContact", {"contactId": "x"})
    acme_client.force_login(people["admin"])

    page = acme_client.get("/settings/tool-calls/?outcome=invalid_arguments").content.decode()

    assert "<code>getContact</code>" in page
    assert "<code>searchContacts</code>" not in page


def test_members_may_not_see_the_log_nor_its_menu_entry(acme_client, people):
    acme_client.force_login(people["member"])

    assert acme_client.get("/settings/tool-calls/").status_code == 403
    assert 'href="/settings/tool-calls/"' not in acme_client.get("/settings/").content.decode()


def test_the_pager_keeps_the_filters(acme_client, people):
    admin, member = people["admin"], people["member"]
    ToolCall.objects.bulk_create(
        ToolCall(at=timezone.now(), tool="getContact", outcome="ok", duration_ms=1, user=user)
        for user in [member] * 51 + [admin]
    )
    acme_client.force_login(admin)

    first = acme_client.get(f"/settings/tool-calls/?outcome=ok&person={member.pk}").content.decode()
    second = acme_client.get(f"/settings/tool-calls/?outcome=ok&person={member.pk}&page=2").content.decode()

    assert f'href="?outcome=ok&amp;person={member.pk}&amp;page=2"' in first
    assert "Page 2 of 2" in second
    assert second.count("<code>getContact</code>") == 1
    assert "admin@acme.example" not in second.split("<tbody>")[1]
