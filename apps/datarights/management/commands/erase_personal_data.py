"""Erases a person's data from a workspace: soft-delete first, then erase (docs/privacy.md)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.core.errors import AppError
from apps.datarights.personal_data import personal_data_erase

from . import _personal_data


class Command(BaseCommand):
    help = "Erase a person's data from a workspace, in every app. It cannot be undone: export first."

    def add_arguments(self, parser: CommandParser) -> None:
        _personal_data.add_arguments(parser)
        parser.add_argument("--yes", action="store_true", help="Confirm: nothing is erased without it.")

    def handle(self, *args: Any, **options: Any) -> None:
        workspace, data_request = _personal_data.resolve(options)
        if not options["yes"]:
            raise CommandError("Erasure cannot be undone: add --yes to confirm (export_personal_data first).")
        try:
            counts = personal_data_erase(
                workspace=workspace, email=options["email"], performed_by="command", data_request=data_request
            )
        except AppError as error:
            raise CommandError(str(error.message)) from None
        if not counts:
            self.stdout.write(f"Nothing of this person's was found in workspace {workspace.schema_name}.")
            return
        for label, count in counts.items():
            self.stdout.write(f"{label}: {count}")
        self.stdout.write(f"Erased {sum(counts.values())} records in workspace {workspace.schema_name}.")
