"""Moves a workspace's schema to another database server: `manage.py move_workspace <schema>
<server>` (docs/deploy.md, "More than one PostgreSQL server"). `--cancel` undoes an interrupted
move instead."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import AppError
from apps.tenancy import moving


class Command(BaseCommand):
    help = "Move a workspace's schema to another database server (a short pause: copy, switch, drop)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("schema", help="the workspace's schema name")
        parser.add_argument("server", nargs="?", help='the server\'s key ("default": the primary)')
        parser.add_argument(
            "--pause", type=float, default=0.0, help="seconds between the pause and the copy (default 0)"
        )
        parser.add_argument("--cancel", action="store_true", help="undo an interrupted move")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            if options["cancel"]:
                stays = moving.cancel_move(options["schema"])
                self.stdout.write(f"Workspace {options['schema']} stays on {stays}.")
                return
            if not options["server"]:
                raise CommandError("Name the server to move to (or give --cancel).")
            moved = moving.move_workspace(
                options["schema"], options["server"], pause_seconds=options["pause"]
            )
        except AppError as error:
            raise CommandError(error.message) from error
        if moved.leftovers_dropped:
            self.stdout.write(
                f"Workspace {moved.schema_name} is on {moved.target}; its leftover copy dropped on "
                + ", ".join(moved.leftovers_dropped)
                + "."
            )
            return
        self.stdout.write(
            f"Moved workspace {moved.schema_name} from {moved.source} to {moved.target}: "
            f"{moved.tables} tables, {moved.rows} rows, {moved.seconds:.1f} s."
        )
