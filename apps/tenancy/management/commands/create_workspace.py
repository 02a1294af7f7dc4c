"""Creates a workspace for an operator: `manage.py create_workspace --name Initech
--domain initech.example.com --owner-email ceo@initech.example`."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils.crypto import get_random_string

from apps.core.errors import AppError
from apps.tenancy.services import workspace_create


class Command(BaseCommand):
    help = "Create a workspace (cloned from the template schema) with its domain and owner."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--name", required=True)
        parser.add_argument(
            "--domain",
            action="append",
            required=True,
            dest="domains",
            help="host name of the workspace; repeat for more than one",
        )
        parser.add_argument("--owner-email", required=True)
        parser.add_argument("--schema", help="schema name (default: derived from the name)")
        parser.add_argument("--brand", help="brand name shown to MCP clients (default: the name)")
        parser.add_argument("--time-zone", default="UTC")
        parser.add_argument(
            "--owner-password", help="initial password of the owner (default: a random one, printed once)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        password = options["owner_password"] or get_random_string(20)
        try:
            workspace = workspace_create(
                name=options["name"],
                domains=options["domains"],
                owner_email=options["owner_email"],
                schema_name=options["schema"],
                brand_name=options["brand"],
                time_zone=options["time_zone"],
                owner_password=password,
            )
        except AppError as error:
            raise CommandError(error.message) from error
        self.stdout.write(f"Created workspace {workspace.name} (schema {workspace.schema_name}).")
        if not options["owner_password"]:
            self.stdout.write(f"Owner {options['owner_email']} signs in with: {password}")
