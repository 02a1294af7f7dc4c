"""The test databases: built once, then copied for each test process.

What a test database holds before the first test (the public schema and the workspace template
schema, each migrated, then the demo workspaces of `seed_demo`) takes about a minute to make: the
migrations' data steps and the demo data, the migration state rendered lean
(apps.tenancy.rendering). So it is made once, into a template database, and each process's own
database (`test_atrium_gw0`...) is a copy of it: `CREATE DATABASE ... TEMPLATE`, a file-level copy
of about a second (bench/RESULTS.md, "Test suite").

The template is named after a digest of everything that decides what the build makes
(`build_key`): the code and migrations under apps/, config/ and templates/ (tests left out), the
pinned requirements (the migrations of Django and the other installed apps), this module, the
settings' environment variables, and the date, since the demo data is dated from the day it is
seeded. A template whose digest is the current one is copied as it is, in this run or a later one;
one whose digest is not is dropped when the next is built. A clean clone (CI) builds it once per
run.

One process at a time builds or copies, under a PostgreSQL advisory lock: the other processes of
the run wait for the build, then copy. A build is made under another name and renamed when it is
complete, so a build that stopped half-way is never copied (the next build drops it). The public
schema and the workspace template schema are migrated at the same time, the template's in a child
process: neither reads the other, and each is mostly Python, one core each (the public schema
renders the state only for its own apps' migrations, apps.tenancy.migrating.SchemaExecutor).
"""

import hashlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from datetime import date
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.db.backends.utils import CursorWrapper
from django.utils import timezone

from apps.core.db import connection
from apps.core.testing import ROOT, database_url

# What the build reads: the folders whose files (tests left out) and the files whose contents
# decide what it makes.
SOURCES = ("apps", "config", "templates")
BUILDER = ("requirements", "tests/database.py")
# The settings' variables (by apps/core/env.py's naming rule), less those config/settings/test.py
# sets for each process and the servers' addresses (another port each run, same contents).
VARIABLE_PREFIXES = ("ATRIUM_", "DJANGO_", "DATA_REQUEST_", "EMAIL_")
VARIABLE_NAMES = {"DATA_TEAM_EMAIL", "DEFAULT_FROM_EMAIL"}
PER_PROCESS = {"ATRIUM_TEST_WORKER", "ATRIUM_MEDIA_ROOT", "ATRIUM_BROWSER_DIR", "DJANGO_ALLOW_ASYNC_UNSAFE"}
# Held by the process that builds or copies a template (on the server's maintenance database,
# where every process of every run takes it).
LOCK = 0x7E57_DB5E
# The child process that migrates the workspace template schema.
MIGRATE_TEMPLATE_SCHEMA = (
    "import sys, django; django.setup(); from apps.tenancy.services import migrate_base_schema; "
    "migrate_base_schema(verbosity=int(sys.argv[1]))"
)


def settings_variables(environ: Mapping[str, str]) -> dict[str, str]:
    return {
        name: value
        for name, value in environ.items()
        if (name in VARIABLE_NAMES or name.startswith(VARIABLE_PREFIXES)) and name not in PER_PROCESS
    }


# As the settings read them: taken when the suite starts, before a test or fixture sets one.
STARTED_WITH = settings_variables(os.environ)


def _sources(root: Path) -> Iterable[Path]:
    for folder in SOURCES:
        for path in (root / folder).rglob("*"):
            parts = path.relative_to(root).parts
            if path.is_file() and "tests" not in parts and "__pycache__" not in parts:
                yield path
    for name in BUILDER:
        path = root / name
        yield from (p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]


def build_key(root: Path = ROOT, variables: Mapping[str, str] = STARTED_WITH, day: date | None = None) -> str:
    """The digest of what the build makes (see the module): 16 hex digits."""
    digest = hashlib.sha256()
    for path in sorted(set(_sources(root))):
        contents = path.read_bytes()
        digest.update(f"{path.relative_to(root)}\0{len(contents)}\0".encode())
        digest.update(contents)
    for name in sorted(variables):
        digest.update(f"{name}\0{variables[name]}\0".encode())
    digest.update((day or timezone.localdate()).isoformat().encode())
    return digest.hexdigest()[:16]


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


def exists(cursor: CursorWrapper, database: str) -> bool:
    cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database])
    return cursor.fetchone() is not None


def provide(database: str, *, template: str, family: str, build: Callable[[str], None]) -> bool:
    """Creates `database` (dropping one left by an earlier run) as a copy of `template`, which is
    built first unless it exists: `build(name)` fills the new empty database `name`. Before a
    build, the other databases whose name starts with `family` (older templates, a build that
    stopped half-way) are dropped. Returns whether it built the template."""
    built = False
    with connection._nodb_cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK])
        try:
            if not exists(cursor, template):
                cursor.execute("SELECT datname FROM pg_database WHERE starts_with(datname, %s)", [family])
                for (stale,) in cursor.fetchall():
                    cursor.execute(f"DROP DATABASE {quote(stale)}")
                building = f"{template}_building"
                cursor.execute(f"CREATE DATABASE {quote(building)}")
                build(building)
                cursor.execute(f"ALTER DATABASE {quote(building)} RENAME TO {quote(template)}")
                built = True
            cursor.execute(f"DROP DATABASE IF EXISTS {quote(database)}")
            cursor.execute(f"CREATE DATABASE {quote(database)} TEMPLATE {quote(template)}")
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK])
    return built


def drop(database: str) -> None:
    with connection._nodb_cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {quote(database)}")


def use(database: str) -> None:
    """Points this process's connections at `database` (as Django's own test database set-up)."""
    connection.close()
    settings.DATABASES[connection.alias]["NAME"] = database
    connection.settings_dict["NAME"] = database


def seed(database: str, verbosity: int = 0) -> None:
    """What every test finds in its database: the public schema with the public site, the
    workspace template schema, and the demo workspaces. Left unused (connection closed)."""
    from apps.tenancy.services import ensure_public_workspace

    # Never seed or wipe anything but a test database.
    assert database.startswith("test_"), database
    use(database)
    with tempfile.TemporaryFile() as output:
        child = subprocess.Popen(
            [sys.executable, "-c", MIGRATE_TEMPLATE_SCHEMA, str(verbosity)],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": database_url()},
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            call_command("migrate", verbosity=verbosity, interactive=False, run_syncdb=True)
            child.wait()
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        output.seek(0)
        if child.returncode != 0:
            raise RuntimeError(f"migrating the workspace template schema failed: {output.read().decode()}")
    ensure_public_workspace(settings.ATRIUM_PUBLIC_DOMAINS)
    call_command("seed_demo", verbosity=verbosity)
    connection.set_schema_to_public()
    connection.close()
