"""The log of tool calls: batched writes off the request path, and the admins' settings page."""

import time
import uuid
from datetime import timedelta

from django.utils import timezone
from django_tenants.utils import schema_context

from apps.accounts.models import User
from apps.catalogue.audit import AuditBuffer, Entry
from apps.catalogue.models import ToolCall
from apps.catalogue.tasks import purge_tool_calls
from apps.catalogue.testing import call


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


def test_entries_wait_in_memory_and_are_written_together_per_workspace(committed, settings):
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 30
    settings.ATRIUM_AUDIT_BATCH_SIZE = 20
    marker = f"batch{uuid.uuid4().hex[:8]}"
    with schema_context("acme"):
        member = User.objects.get(email="member@acme.example").pk
    buffer = AuditBuffer()
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


def test_flush_writes_what_is_waiting_at_once(committed, settings):
    settings.ATRIUM_AUDIT_FLUSH_SECONDS = 30
    marker = f"flush{uuid.uuid4().hex[:8]}"
    buffer = AuditBuffer()
    try:
        buffer.record(entry(marker, None))
        assert buffer.flush() == 1
        with schema_context("acme"):
            assert ToolCall.objects.filter(tool=marker).count() == 1
    finally:
        with schema_context("acme"):
            ToolCall.objects.filter(tool=marker).delete()


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
    assert "pat:test" in page
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
