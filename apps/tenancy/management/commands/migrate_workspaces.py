"""Brings every schema up to date, in the order that is safe:

1. the public schema (shared apps),
2. the public site's tenant row and host names,
3. the base schema new workspaces are cloned from (spare copies of the old one are dropped),
4. every workspace schema,
5. the pool of spare copies filled again.

Extra options (for example `--executor=multiprocessing`) go to django-tenants' migrate_schemas.
"""

from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from apps.tenancy import spares
from apps.tenancy.services import ensure_public_workspace, migrate_base_schema


class Command(BaseCommand):
    help = "Migrate the public schema, the workspace template schema and every workspace."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--executor", default="standard", choices=["standard", "multiprocessing"])

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = options["verbosity"]
        common = {"interactive": False, "verbosity": verbosity, "executor": options["executor"]}
        call_command("migrate_schemas", shared=True, **common)
        ensure_public_workspace(settings.ATRIUM_PUBLIC_DOMAINS)
        spares.drop()
        migrate_base_schema(verbosity=verbosity)
        call_command("migrate_schemas", tenant=True, **common)
        spares.fill()
