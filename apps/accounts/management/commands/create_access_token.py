"""Issues a personal access token for scripts and operators; prints the token alone."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django_tenants.utils import schema_context

from apps.accounts.models import User
from apps.accounts.services import access_token_create
from apps.core.errors import AppError
from apps.tenancy.models import Workspace


class Command(BaseCommand):
    help = "Create a personal access token for a person of a workspace and print it."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--workspace", required=True, help="schema name of the workspace")
        parser.add_argument("--email", required=True)
        parser.add_argument("--name", default="command line")

    def handle(self, *args: Any, **options: Any) -> None:
        if (
            not Workspace.objects.filter(schema_name=options["workspace"])
            .exclude(schema_name="public")
            .exists()
        ):
            raise CommandError(f"No workspace with the schema name {options['workspace']!r}.")
        with schema_context(options["workspace"]):
            user = User.objects.filter(email=options["email"].strip().lower(), is_active=True).first()
            if user is None:
                raise CommandError("No active person with that e-mail address in this workspace.")
            try:
                _token, raw = access_token_create(user=user, name=options["name"])
            except AppError as error:
                raise CommandError(str(error.message)) from error
        self.stdout.write(raw)
