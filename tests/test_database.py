"""tests/database.py: the template database is built once, by one process, and only when what it
is built from changed; every process gets a copy of its own."""

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path

import psycopg
import pytest

from apps.core.db import connection
from tests import database

DAY = date(2026, 12, 5)


def tree(root: Path) -> Path:
    """A checkout with one file of each kind the key reads or leaves out."""
    files = {
        "apps/things/models.py": "class Thing: ...\n",
        "apps/things/migrations/0001_initial.py": "operations = []\n",
        "apps/things/demo.py": "def seed(): ...\n",
        "apps/things/templates/things/page.html": "<p>Things</p>\n",
        "apps/things/tests/test_things.py": "def test_it(): ...\n",
        "config/settings/base.py": "TENANT_APPS = ['apps.things']\n",
        "templates/base.html": "<html></html>\n",
        "requirements/constraints.txt": "Django==5.2\n",
        "tests/database.py": "# the build\n",
        "tests/test_other.py": "def test_other(): ...\n",
        "docs/area-kit.md": "# The area kit\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_key_changes_with_what_the_build_reads(tmp_path: Path) -> None:
    root = tree(tmp_path)
    variables = {"ATRIUM_PUBLIC_DOMAINS": "localhost"}
    before = database.build_key(root, variables, DAY)
    assert database.build_key(root, variables, DAY) == before

    changes = {
        "a migration added": lambda: (root / "apps/things/migrations/0002_more.py").write_text("x = 1\n"),
        "a seed changed": lambda: (root / "apps/things/demo.py").write_text("def seed(): return 1\n"),
        "a setting changed": lambda: (root / "config/settings/base.py").write_text("TENANT_APPS = []\n"),
        "a template changed": lambda: (root / "templates/base.html").write_text("<html lang=en></html>\n"),
        "a pin changed": lambda: (root / "requirements/constraints.txt").write_text("Django==5.2.1\n"),
        "the build changed": lambda: (root / "tests/database.py").write_text("# built otherwise\n"),
        "a file renamed": lambda: (root / "apps/things/demo.py").rename(root / "apps/things/sample.py"),
    }
    keys = {before}
    for what, change in changes.items():
        change()
        key = database.build_key(root, variables, DAY)
        assert key not in keys, what
        keys.add(key)
    key = database.build_key(root, variables, DAY)
    assert database.build_key(root, {**variables, "ATRIUM_PUBLIC_DOMAINS": "admin.localhost"}, DAY) != key
    assert database.build_key(root, {}, DAY) != key
    # The demo data is dated from the day it is seeded.
    assert database.build_key(root, variables, date(2026, 12, 6)) != key


def test_the_key_leaves_out_the_tests_the_docs_and_compiled_files(tmp_path: Path) -> None:
    root = tree(tmp_path)
    before = database.build_key(root, {}, DAY)

    (root / "apps/things/tests/test_things.py").write_text("def test_it(): assert True\n")
    (root / "apps/things/tests/factories.py").write_text("class ThingFactory: ...\n")
    (root / "tests/test_other.py").write_text("def test_other(): assert True\n")
    (root / "docs/area-kit.md").write_text("# The kit\n")
    (root / "apps/things/__pycache__").mkdir()
    (root / "apps/things/__pycache__/models.cpython-311.pyc").write_bytes(b"\0")

    assert database.build_key(root, {}, DAY) == before


def test_the_variables_are_the_settings_ones_less_those_set_for_each_process() -> None:
    environ = {
        "ATRIUM_PUBLIC_DOMAINS": "localhost",
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATA_REQUEST_SHARED_SECRET": "s",
        "EMAIL_HOST": "mail",
        "DATA_TEAM_EMAIL": "team@example.org",
        "ATRIUM_TEST_WORKER": "gw1",
        "ATRIUM_MEDIA_ROOT": "/srv/media-gw1",
        "DJANGO_ALLOW_ASYNC_UNSAFE": "true",
        "DATABASE_URL": "postgres://127.0.0.1:5432/atrium",
        "REDIS_URL": "redis://127.0.0.1:6379/2",
        "PATH": "/usr/bin",
    }

    assert database.settings_variables(environ) == {
        "ATRIUM_PUBLIC_DOMAINS": "localhost",
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATA_REQUEST_SHARED_SECRET": "s",
        "EMAIL_HOST": "mail",
        "DATA_TEAM_EMAIL": "team@example.org",
    }


# --- on the real PostgreSQL server: databases named after a family of this test's own ---------


def connect(name: str) -> psycopg.Connection:
    server = connection.settings_dict
    return psycopg.connect(
        dbname=name,
        user=server["USER"],
        password=server["PASSWORD"],
        host=server["HOST"],
        port=server["PORT"],
        autocommit=True,
    )


def provide(family: str, process: str, key: str, build: Callable[[str], None]) -> bool:
    """`database.provide` for `<family><process>` from the template `<family>base_<key>`."""
    templates = f"{family}base_"
    return database.provide(f"{family}{process}", template=templates + key, family=templates, build=build)


def databases(prefix: str) -> set[str]:
    with connection._nodb_cursor() as cursor:
        cursor.execute("SELECT datname FROM pg_database WHERE starts_with(datname, %s)", [prefix])
        return {row[0] for row in cursor.fetchall()}


def marks(name: str) -> list[str]:
    with connect(name) as db:
        return [row[0] for row in db.execute("SELECT what FROM mark ORDER BY what")]


class Builds:
    """A build that makes a table with one row, counting its calls (and slow if asked)."""

    def __init__(self, seconds: float = 0) -> None:
        self.names: list[str] = []
        self.seconds = seconds

    def __call__(self, name: str) -> None:
        self.names.append(name)
        time.sleep(self.seconds)
        with connect(name) as db:
            db.execute("CREATE TABLE mark (what text)")
            db.execute("INSERT INTO mark VALUES ('built')")


@pytest.fixture
def family(django_db_blocker) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """A name prefix for this test's databases on the server, all of them dropped afterwards."""
    prefix = f"test_db_{secrets.token_hex(4)}_"
    with django_db_blocker.unblock():
        yield prefix
        for name in databases(prefix):
            database.drop(name)


def test_the_template_is_built_once_and_each_database_is_a_copy_of_its_own(family: str) -> None:
    build = Builds()
    template = f"{family}base_one"

    assert provide(family, "gw0", "one", build)
    assert not provide(family, "gw1", "one", build)

    assert build.names == [f"{template}_building"]
    assert databases(family) == {template, f"{family}gw0", f"{family}gw1"}
    with connect(f"{family}gw0") as db:
        db.execute("INSERT INTO mark VALUES ('gw0 only')")
    assert marks(f"{family}gw0") == ["built", "gw0 only"]
    assert marks(f"{family}gw1") == marks(template) == ["built"]


def test_a_database_left_by_an_earlier_run_is_replaced_by_a_fresh_copy(family: str) -> None:
    provide(family, "gw0", "one", Builds())
    with connect(f"{family}gw0") as db:
        db.execute("INSERT INTO mark VALUES ('from the last run')")

    provide(family, "gw0", "one", Builds())

    assert marks(f"{family}gw0") == ["built"]


def test_a_new_key_drops_the_older_templates_and_a_build_that_stopped_half_way(family: str) -> None:
    provide(family, "gw0", "old", Builds())
    with connection._nodb_cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{family}base_new_building"')  # a build that died
    build = Builds()

    assert provide(family, "gw0", "new", build)

    assert build.names == [f"{family}base_new_building"]
    assert databases(family) == {f"{family}base_new", f"{family}gw0"}


def test_a_build_that_fails_leaves_no_template_and_the_next_one_builds(family: str) -> None:
    template = f"{family}base_one"

    def fails(name: str) -> None:
        raise RuntimeError("a migration failed")

    with pytest.raises(RuntimeError, match="a migration failed"):
        provide(family, "gw0", "one", fails)
    assert template not in databases(family)

    build = Builds()
    assert provide(family, "gw0", "one", build)
    assert build.names == [f"{template}_building"] and marks(f"{family}gw0") == ["built"]


def test_processes_that_start_together_wait_for_one_build(family: str, django_db_blocker) -> None:  # type: ignore[no-untyped-def]
    """Each thread has its own connections, as each process has: the second waits on the lock
    while the first builds, then copies what it built."""
    build = Builds(seconds=1.5)
    built: dict[str, bool] = {}

    def start(process: str) -> None:
        with django_db_blocker.unblock():
            built[process] = provide(family, process, "one", build)
            connection.close()

    threads = [threading.Thread(target=start, args=(f"gw{n}",)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert len(build.names) == 1 and sorted(built.values()) == [False, True]
    assert marks(f"{family}gw0") == marks(f"{family}gw1") == ["built"]
