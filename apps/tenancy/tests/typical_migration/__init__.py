"""The contacts app's migrations and one more: a typical release's migration (a column added with
a default, and an index on it), for the tests and the benchmark of `migrate_workspaces`.

`MIGRATION_MODULES = {"contacts": "apps.tenancy.tests.typical_migration"}` makes this package the
app's migrations: its search path holds the app's own folder and this one, so Django finds the
real migrations and `9001_typical.py` after them. The test settings set it when
ATRIUM_TEST_TYPICAL_MIGRATION is set (for a command a test runs in another process); the
benchmark sets it itself. ATRIUM_TEST_MIGRATION_SLEEP makes each schema's run take that many
seconds more (a test stops the command halfway through).
"""

from pathlib import Path

REAL = Path(__file__).resolve().parents[3] / "contacts" / "migrations"
__path__ = [str(REAL), str(Path(__file__).resolve().parent)]


def latest_real() -> str:
    """The name of the app's own last migration (the one this package's migration follows)."""
    return max(path.stem for path in REAL.glob("[0-9]*.py"))
