"""Brings every schema up to date, in the order that is safe, on each database server in turn (the
primary first, then the others of ATRIUM_DATABASE_SERVERS by key; docs/deploy.md):

1. the server's public schema (shared apps; on a secondary the tables workspace schemas are made
   against, and the extensions),
2. on the primary, the public site's tenant row and host names,
3. the server's template schema new workspaces are cloned from, in one transaction, by the same
   runner as the workspaces (apps.tenancy.migrating.migrate_template),
4. every workspace schema placed on the server, each in one transaction, on `--processes`
   processes (default ATRIUM_MIGRATION_PROCESSES), with progress as it goes; a schema that fails
   is reported and the others go on, and the command then ends with an error,
5. on the primary (spares are the primary's only), the pool of spare copies filled again: the
   spares of the old template dropped (none is claimed once the template's migration has
   committed: `spares.claim` reads its version holding the template's lock) and new ones copied.

A server that cannot be reached (or whose public schema or template fails) is reported with the
workspaces placed on it, which are left as they were; the other servers go on, and the command
ends with an error naming them.

A run stopped halfway (killed, a lost connection) leaves each workspace schema migrated or as it
was; running the command again migrates what is left. `--schema NAME` (repeatable) migrates only
those workspace schemas (step 4 alone, each on its server): to retry the ones that failed.
`--server KEY` (repeatable) does only those servers.

`--executor` is kept for compatibility: `standard` is one process, `multiprocessing` the pool.
"""

from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from apps.core import servers
from apps.tenancy import migrating, spares
from apps.tenancy.models import Workspace
from apps.tenancy.services import ensure_public_workspace

SHOWN = 20


class ServerStepFailed(Exception):
    """A server's public schema or template could not be migrated (or the server reached)."""


class Command(BaseCommand):
    help = "Migrate the public schema, the workspace template schema and every workspace, per server."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--executor",
            default=None,
            choices=["standard", "multiprocessing"],
            help="kept for compatibility: standard is --processes 1, multiprocessing the default pool",
        )
        parser.add_argument(
            "--processes",
            type=int,
            default=None,
            help="processes migrating workspace schemas (default: ATRIUM_MIGRATION_PROCESSES)",
        )
        parser.add_argument(
            "--schema",
            action="append",
            default=[],
            dest="schemas",
            help="migrate only this workspace schema (repeatable); public and the template are left alone",
        )
        parser.add_argument(
            "--server",
            action="append",
            default=[],
            dest="servers",
            help="migrate only this database server (repeatable; its key, 'default' for the primary)",
        )

    def write(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = options["verbosity"]
        processes = options["processes"] or settings.TENANT_MULTIPROCESSING_MAX_PROCESSES
        if options["executor"] == "standard":
            processes = 1
        if processes < 1:
            raise CommandError("--processes must be at least 1")
        chosen: list[str] = options["servers"] or servers.known()
        unknown_servers = [key for key in chosen if key not in servers.known()]
        if unknown_servers:
            raise CommandError(
                f"{', '.join(unknown_servers)}: not a database server of this installation "
                f"(known: {', '.join(servers.known())})"
            )
        chosen = [key for key in servers.known() if key in chosen]
        only: list[str] = options["schemas"]
        if not only and servers.PRIMARY in chosen:
            # The primary's public schema first: it holds the workspace rows read next (on a new
            # installation, it is made here).
            call_command("migrate_schemas", shared=True, interactive=False, verbosity=verbosity)
        rows = Workspace.objects.exclude(schema_name="public")
        if only:
            rows = rows.filter(schema_name__in=only)
            known = set(rows.values_list("schema_name", flat=True))
            unknown = [schema for schema in only if schema not in known]
            if unknown:
                raise CommandError(f"no workspace has the schema {', '.join(unknown)}")
        placed: dict[str, list[str]] = {}
        for schema, database in rows.order_by("schema_name").values_list("schema_name", "database"):
            placed.setdefault(database, []).append(schema)
        several = servers.configured()

        failed: dict[str, str] = {}
        left: dict[str, tuple[str, list[str]]] = {}  # server -> (why, its workspace schemas)
        for key in chosen:
            schemas = placed.pop(key, [])
            if several and verbosity >= 1:
                self.write(f"Database server {key}: {len(schemas)} workspace schema(s)")
            migrator = migrating.Migrator(server=key)
            try:
                if only:
                    self.reach(key)
                else:
                    self.prepare(key, migrator, verbosity)
            except ServerStepFailed as error:
                self.write(f"Database server {key} FAILED: {error}; its workspaces are left as they were")
                left[key] = (str(error), schemas)
                continue
            if not only:
                schemas = self.with_late(key, schemas)
            failed.update(self.migrate_workspaces(schemas, processes, verbosity, migrator, several))
            if not only and key == servers.PRIMARY:
                spares.fill()
        if not options["servers"]:
            # Rows naming a server this installation does not know (its settings lost a key).
            for key, schemas in placed.items():
                left[key] = ("not a database server of this installation", schemas)
        self.report(failed, left)

    def with_late(self, key: str, schemas: list[str]) -> list[str]:
        """`schemas` and the workspaces of server `key` made since they were listed. A workspace
        copied from the template before its migration committed has the old schema; its copy
        held the template (`cloning.hold_template`), so the migration waited for its commit, and
        it is listed now."""
        now = Workspace.objects.exclude(schema_name="public").filter(database=key)
        late = sorted(set(now.values_list("schema_name", flat=True)) - set(schemas))
        return [*schemas, *late]

    def reach(self, key: str) -> None:
        try:
            with servers.pinned(key), connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        except Exception as error:
            raise ServerStepFailed(f"unreachable: {_short(error)}") from error

    def prepare(self, key: str, migrator: migrating.Migrator, verbosity: int) -> None:
        """The server's public schema (the primary's is done first, in `handle`), on the primary the
        public site, then its template."""
        common = {"interactive": False, "verbosity": verbosity}
        try:
            if key == servers.PRIMARY:  # its public schema migrated above
                ensure_public_workspace(settings.ATRIUM_PUBLIC_DOMAINS)
            else:
                self.reach(key)
                with servers.pinned(key):
                    call_command("migrate_schemas", shared=True, **common)
        except ServerStepFailed:
            raise
        except Exception as error:
            raise ServerStepFailed(f"its public schema: {_short(error)}") from error
        try:
            outcome = migrating.migrate_template(migrator, verbosity=verbosity)
        except Exception as error:
            raise ServerStepFailed(f"its template schema: {_short(error)}") from error
        if outcome is not None and outcome.error:
            raise ServerStepFailed(f"its template schema: {outcome.error}")
        if outcome is not None and verbosity >= 1:
            done = "up to date"
            if outcome.applied:
                done = f"{len(outcome.applied)} migration(s) in {outcome.seconds:.2f}s"
            self.write(f"Template schema {outcome.schema}: {done}")

    def migrate_workspaces(
        self, schemas: list[str], processes: int, verbosity: int, migrator: migrating.Migrator, several: bool
    ) -> dict[str, str]:
        if verbosity >= 1:
            where = f" on database server {migrator.server}" if several else ""
            self.write(f"Migrating {len(schemas)} workspace schema(s) with {processes} process(es){where}")
        progress = migrating.Progress(len(schemas), self.write, verbosity=verbosity)
        for outcome in migrating.migrate_schemas(
            schemas, processes=processes, chunk=settings.TENANT_MULTIPROCESSING_CHUNKS, migrator=migrator
        ):
            progress.record(outcome)
        return progress.failed

    def report(self, failed: dict[str, str], left: dict[str, tuple[str, list[str]]]) -> None:
        problems = []
        for key, (why, schemas) in left.items():
            shown = ", ".join(schemas[:SHOWN]) + (" ..." if len(schemas) > SHOWN else "")
            problems.append(
                f"database server {key} ({why}): its {len(schemas)} workspace schema(s) were NOT migrated"
                + (f": {shown}" if schemas else "")
            )
        if failed:
            shown = ", ".join(sorted(failed)[:SHOWN]) + (" ..." if len(failed) > SHOWN else "")
            problems.append(f"{len(failed)} workspace schema(s) failed and were left as they were: {shown}")
        if problems:
            raise CommandError("; ".join(problems) + ". Run the command again to retry them.")


def _short(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:300]}"
