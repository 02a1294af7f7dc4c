"""Exports everything a workspace holds about a person (SPEC 10.3; docs/privacy.md)."""

import os
import tempfile
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.core.errors import AppError
from apps.datarights.personal_data import personal_data_export

from . import _personal_data


class Command(BaseCommand):
    help = (
        "Export a person's data from a workspace: a JSON document, or a zip of it and the person's "
        "files when there are any."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        _personal_data.add_arguments(parser)
        parser.add_argument(
            "--output",
            default="-",
            help="File to write (created readable by its owner only); '-' (the default) prints the JSON.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        workspace, data_request = _personal_data.resolve(options)
        output = options["output"]
        with tempfile.TemporaryFile() as out:
            try:
                summary = personal_data_export(
                    workspace=workspace,
                    email=options["email"],
                    out=out,
                    performed_by="command",
                    data_request=data_request,
                )
            except AppError as error:
                raise CommandError(str(error.message)) from None
            out.seek(0)
            if not any(summary.counts.values()) and not summary.files:
                # Nobody by that address here (or nothing left of them): say so, write nothing.
                raise CommandError(
                    f"Nothing in workspace {workspace.schema_name} is about {options['email']}: "
                    "no person, no record; nothing written."
                )
            if output == "-":
                if summary.format != "json":
                    raise CommandError("The export holds files: give --output PATH.zip to write the zip.")
                self.stdout.write(out.read().decode(), ending="\n")
                return
            # Personal data on disk: readable by its owner only, from the first byte.
            descriptor = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "wb") as target:
                while chunk := out.read(1 << 20):
                    target.write(chunk)
        total = sum(summary.counts.values())
        self.stderr.write(
            f"Wrote {summary.format} to {output}: {total} records, {summary.files} files "
            f"(operation {summary.operation_id})."
        )
