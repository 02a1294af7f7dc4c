"""Makes a database server ready to hold workspaces: `manage.py prepare_database_server <server>`
(its public schema migrated, the template schema made; docs/deploy.md). Run it again after each
release's migrations, for every server besides the primary."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from apps.core import servers
from apps.tenancy import services


class Command(BaseCommand):
    help = "Migrate a database server's public schema and template schema (ATRIUM_DATABASE_SERVERS)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("server", help="the server's key in ATRIUM_DATABASE_SERVERS")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["server"] not in servers.known():
            raise CommandError(
                f"{options['server']} is not a database server of this installation "
                f"(known: {', '.join(servers.known())})."
            )
        services.prepare_server(options["server"], verbosity=max(options["verbosity"] - 1, 0))
        self.stdout.write(f"Database server {options['server']} is ready.")
