"""Creates a workspace for an operator: `manage.py create_workspace --name Initech
--owner-email ceo@initech.example [--domain initech.example.com]`. Without `--domain` the
workspace answers at `<name>.localhost`, which a browser on this machine opens as it is."""

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils.crypto import get_random_string
from django.utils.text import slugify

from apps.core.errors import AppError
from apps.tenancy.services import workspace_create


class Command(BaseCommand):
    help = "Create a workspace (cloned from the template schema) with its domain and owner."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--name", required=True)
        parser.add_argument(
            "--domain",
            action="append",
            dest="domains",
            help="host name of the workspace; repeat for more than one (default: <name>.localhost)",
        )
        parser.add_argument("--owner-email", required=True)
        parser.add_argument("--schema", help="schema name (default: derived from the name)")
        parser.add_argument("--brand", help="brand name shown to MCP clients (default: the name)")
        parser.add_argument("--time-zone", default="UTC")
        parser.add_argument(
            "--database", help="the database server of its schema (default: the least loaded; docs/deploy.md)"
        )
        parser.add_argument(
            "--owner-password", help="initial password of the owner (default: a random one, printed once)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        password = options["owner_password"] or get_random_string(20)
        domains = options["domains"] or [f"{slugify(options['name']) or 'workspace'}.localhost"]
        try:
            workspace = workspace_create(
                name=options["name"],
                domains=domains,
                owner_email=options["owner_email"],
                schema_name=options["schema"],
                brand_name=options["brand"],
                time_zone=options["time_zone"],
                owner_password=password,
                database=options["database"],
            )
        except AppError as error:
            raise CommandError(error.message) from error
        self.stdout.write(f"Created workspace {workspace.name} (schema {workspace.schema_name}).")
        if workspace.database != "default":
            self.stdout.write(f"Its schema is on the database server {workspace.database}.")
        for domain in domains:
            if domain == "localhost" or domain.endswith(".localhost"):
                port = os.environ.get("ATRIUM_PORT") or os.environ.get("PORT") or "8000"
                self.stdout.write(f"Open http://{domain}:{port}/ (on this machine).")
            else:
                self.stdout.write(f"Open https://{domain}/ once its DNS points at this service.")
        if not options["owner_password"]:
            self.stdout.write(f"Owner {options['owner_email']} signs in with: {password}")
