"""Brings every schema up to date, in the order that is safe:

1. the public schema (shared apps),
2. the public site's tenant row and host names,
3. the base schema new workspaces are cloned from (spare copies of the old one are dropped),
4. every workspace schema, each in one transaction, on `--processes` processes (default
   ATRIUM_MIGRATION_PROCESSES), with progress as it goes (apps.tenancy.migrating); a schema that
   fails is reported and the others go on, and the command then ends with an error,
5. the pool of spare copies filled again.

A run stopped halfway (killed, a lost connection) leaves each workspace schema migrated or as it
was; running the command again migrates what is left. `--schema NAME` (repeatable) migrates only
those workspace schemas (steps 4 alone): to retry the ones that failed.

`--executor` is kept for compatibility: `standard` is one process, `multiprocessing` the pool.
"""

from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from apps.core import servers
from apps.tenancy import migrating, spares
from apps.tenancy.models import Workspace
from apps.tenancy.services import ensure_public_workspace, migrate_base_schema


class Command(BaseCommand):
    help = "Migrate the public schema, the workspace template schema and every workspace."

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

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = options["verbosity"]
        processes = options["processes"] or settings.TENANT_MULTIPROCESSING_MAX_PROCESSES
        if options["executor"] == "standard":
            processes = 1
        if processes < 1:
            raise CommandError("--processes must be at least 1")
        schemas: list[str] = options["schemas"]
        if schemas:
            known = set(
                Workspace.objects.filter(schema_name__in=schemas).values_list("schema_name", flat=True)
            )
            unknown = [schema for schema in schemas if schema not in known or schema == "public"]
            if unknown:
                raise CommandError(f"no workspace has the schema {', '.join(unknown)}")
        else:
            common = {"interactive": False, "verbosity": verbosity}
            call_command("migrate_schemas", shared=True, **common)
            ensure_public_workspace(settings.ATRIUM_PUBLIC_DOMAINS)
            spares.drop()
            migrate_base_schema(verbosity=verbosity)
            schemas = list(
                Workspace.objects.exclude(schema_name="public")
                .order_by("schema_name")
                .values_list("schema_name", flat=True)
            )
        # Workspaces placed on another database server (docs/deploy.md, "More than one PostgreSQL
        # server") are not migrated by this command yet: named, never reported as broken schemas.
        elsewhere = dict(
            Workspace.objects.filter(schema_name__in=schemas)
            .exclude(database=servers.PRIMARY)
            .values_list("schema_name", "database")
        )
        if elsewhere:
            schemas = [schema for schema in schemas if schema not in elsewhere]
        failed = self.migrate_workspaces(schemas, processes, verbosity)
        if not options["schemas"]:
            spares.fill()
        if elsewhere:
            shown = ", ".join(f"{schema} ({elsewhere[schema]})" for schema in sorted(elsewhere)[:20])
            raise CommandError(
                f"{len(elsewhere)} workspace schema(s) on other database servers were NOT migrated "
                f"(this command migrates the primary's only): {shown}"
                + (" ..." if len(elsewhere) > 20 else "")
                + (f"; and {len(failed)} failed: {', '.join(sorted(failed)[:20])}" if failed else "")
            )
        if failed:
            shown = ", ".join(sorted(failed)[:20]) + (" ..." if len(failed) > 20 else "")
            raise CommandError(
                f"{len(failed)} workspace schema(s) failed and were left as they were: {shown}. "
                "Run the command again to retry them."
            )

    def migrate_workspaces(self, schemas: list[str], processes: int, verbosity: int) -> dict[str, str]:
        def write(line: str) -> None:
            self.stdout.write(line)
            self.stdout.flush()

        if verbosity >= 1:
            write(f"Migrating {len(schemas)} workspace schema(s) with {processes} process(es)")
        progress = migrating.Progress(len(schemas), write, verbosity=verbosity)
        for outcome in migrating.migrate_schemas(
            schemas, processes=processes, chunk=settings.TENANT_MULTIPROCESSING_CHUNKS
        ):
            progress.record(outcome)
        return progress.failed
