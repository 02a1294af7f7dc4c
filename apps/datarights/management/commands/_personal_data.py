"""What the two personal-data commands share."""

from typing import Any

from django.core.management.base import CommandError, CommandParser

from apps.core.errors import AppError
from apps.datarights.models import DataRequest
from apps.datarights.personal_data import workspace_get
from apps.tenancy.models import Workspace


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--workspace", required=True, help="The workspace's schema name or one of its hosts.")
    parser.add_argument("--email", required=True, help="The person's e-mail address.")
    parser.add_argument("--request", help="The reference of the data-rights request this answers (DR-…).")


def resolve(options: dict[str, Any]) -> tuple[Workspace, DataRequest | None]:
    try:
        workspace = workspace_get(options["workspace"])
    except AppError as error:
        raise CommandError(str(error.message)) from None
    data_request = None
    if options.get("request"):
        data_request = DataRequest.objects.filter(reference=options["request"].strip().upper()).first()
        if data_request is None:
            raise CommandError(f"No data-rights request has the reference {options['request']}.")
    return workspace, data_request
