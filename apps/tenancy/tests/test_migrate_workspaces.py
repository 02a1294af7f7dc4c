"""`migrate_workspaces` over several workspaces with a typical release's migration (a column with a
default and an index: apps/tenancy/tests/typical_migration): each schema migrated whole or not at
all, a run killed halfway finished by the next, progress as it goes, and a failing schema reported
while the others are migrated."""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from apps.core.testing import database_url
from apps.tenancy import migrating
from apps.tenancy.models import Workspace
from apps.tenancy.services import workspace_create, workspace_delete

ROOT = Path(__file__).resolve().parents[3]
TYPICAL = "apps.tenancy.tests.typical_migration"
MIGRATION = ("contacts", "9001_typical")


@pytest.fixture
def workspaces(committed) -> Iterator[list[str]]:
    """Five committed workspaces of this test's own, deleted afterwards."""
    suffix = os.urandom(3).hex()
    made = [
        workspace_create(
            name=f"Upgrade {suffix} {index}",
            domains=[f"upgrade-{suffix}-{index}.test"],
            owner_email=f"owner@upgrade-{suffix}-{index}.test",
            schema_name=f"upgrade_{suffix}_{index}",
        )
        for index in range(5)
    ]
    yield [workspace.schema_name for workspace in made]
    connection.set_schema_to_public()
    for workspace in made:
        workspace_delete(workspace=Workspace.objects.get(pk=workspace.pk))


def state_of(schema: str) -> tuple[bool, bool, bool]:
    """(the column is there, the index is there, the migration is recorded) in `schema`."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
            "AND c.relname = 'contacts_contact' AND a.attname = 'upgrade_level' AND NOT a.attisdropped), "
            "EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = %s "
            "AND indexname = 'contacts_upgrade_level_idx')",
            [schema, schema],
        )
        column, index = cursor.fetchone()
        cursor.execute(
            f"SELECT EXISTS (SELECT 1 FROM {connection.ops.quote_name(schema)}.django_migrations "  # noqa: S608
            "WHERE app = %s AND name = %s)",
            list(MIGRATION),
        )
        recorded = cursor.fetchone()[0]
    return column, index, recorded


def command(schemas: list[str]) -> list[str]:
    return [
        sys.executable,
        "manage.py",
        "migrate_workspaces",
        "--processes",
        "1",
        "-v",
        "2",
        *[f"--schema={schema}" for schema in schemas],
    ]


def command_env(sleep: float = 0.0) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "ATRIUM_TEST_TYPICAL_MIGRATION": "1",
        "ATRIUM_TEST_MIGRATION_SLEEP": str(sleep),
        "PYTHONUNBUFFERED": "1",
    }


def test_a_run_killed_halfway_leaves_each_schema_whole_and_the_next_run_finishes(workspaces):
    process = subprocess.Popen(
        command(workspaces),
        cwd=ROOT,
        env=command_env(sleep=0.6),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    seen: list[str] = []
    assert process.stdout is not None
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            assert line, "the command ended before two schemas were migrated:\n" + "".join(seen)
            seen.append(line)
            if line.startswith("[2/5]"):
                break
        # The whole process group, as a crashed machine would: no chance to clean up.
        os.killpg(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    assert any(line.startswith("[2/5]") for line in seen), "".join(seen)
    assert any("Migrating 5 workspace schema(s) with 1 process(es)" in line for line in seen), "".join(seen)

    # Wait for the killed connection's transaction to end (its server process notices the lost
    # client after the migration's sleep), then every schema is all or nothing.
    time.sleep(1.5)
    states = {schema: state_of(schema) for schema in workspaces}
    migrated = [schema for schema, state in states.items() if state == (True, True, True)]
    untouched = [schema for schema, state in states.items() if state == (False, False, False)]
    assert sorted(migrated + untouched) == sorted(workspaces), states
    assert len(migrated) >= 2 and untouched, states

    rerun = subprocess.run(
        command(workspaces), cwd=ROOT, env=command_env(), capture_output=True, text=True, timeout=180
    )
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert all(state_of(schema) == (True, True, True) for schema in workspaces)
    lines = rerun.stdout.splitlines()
    for schema in migrated:
        assert any(line.endswith(f"] {schema}: up to date") for line in lines), rerun.stdout
    for schema in untouched:
        assert any(f"] {schema}: 1 migration(s) in " in line for line in lines), rerun.stdout
    assert lines[-1].startswith("5/5 schemas (100%)"), rerun.stdout
    assert f"{len(untouched)} migrated, {len(migrated)} up to date, 0 failed" in lines[-1]


def test_a_failing_schema_is_reported_left_as_it_was_and_the_others_are_migrated(
    workspaces, capsys, settings
):
    broken = workspaces[2]
    with connection.cursor() as cursor:
        # What the migration adds is already there: its ALTER TABLE fails in this schema.
        cursor.execute(
            f"ALTER TABLE {connection.ops.quote_name(broken)}.contacts_contact ADD COLUMN upgrade_level text"
        )
    settings.MIGRATION_MODULES = {"contacts": TYPICAL}
    with pytest.raises(CommandError, match=rf"1 workspace schema\(s\) failed .*{broken}"):
        call_command("migrate_workspaces", *[f"--schema={schema}" for schema in workspaces], processes=2)
    out = capsys.readouterr().out
    assert f'{broken} FAILED: ProgrammingError: column "upgrade_level" of relation' in out
    assert "5/5 schemas (100%)" in out and "4 migrated, 0 up to date, 1 failed" in out
    for schema in workspaces:
        if schema == broken:
            assert state_of(schema) == (True, False, False)  # its own column, nothing of the migration
        else:
            assert state_of(schema) == (True, True, True)


def test_progress_lines_count_rate_and_time_left():
    lines: list[str] = []
    progress = migrating.Progress(3, lines.append, every=0.0, verbosity=1)

    progress.record(migrating.Outcome("a", applied=["contacts.9001_typical"], seconds=0.1))
    progress.record(migrating.Outcome("b"))
    progress.record(migrating.Outcome("c", error="ProgrammingError: boom"))

    assert lines[0].startswith("1/3 schemas (33%), ") and "ETA " in lines[0] and "/s, " in lines[0]
    assert lines[2] == "[3/3] c FAILED: ProgrammingError: boom"
    assert lines[3].startswith("3/3 schemas (100%)")
    assert lines[3].endswith("1 migrated, 1 up to date, 1 failed")
    assert progress.failed == {"c": "ProgrammingError: boom"}


def test_an_unknown_schema_is_refused_before_anything_runs(committed):
    with pytest.raises(CommandError, match="no workspace has the schema nosuch_schema"):
        call_command("migrate_workspaces", "--schema=nosuch_schema")
