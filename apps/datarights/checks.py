"""`manage.py check --deploy`: what a production set-up of the data-rights door must not lack."""

from typing import Any

from django.conf import settings
from django.core import checks

MIN_SECRET_LENGTH = 32


@checks.register(checks.Tags.security, deploy=True)
def check_data_request_settings(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    problems: list[checks.CheckMessage] = []
    secret = settings.DATA_REQUEST_SHARED_SECRET
    if not secret:
        problems.append(
            checks.Warning(
                "DATA_REQUEST_SHARED_SECRET is not set: POST /api/data-request refuses every request.",
                id="datarights.W001",
            )
        )
    elif len(secret) < MIN_SECRET_LENGTH:
        problems.append(
            checks.Warning(
                f"DATA_REQUEST_SHARED_SECRET is shorter than {MIN_SECRET_LENGTH} characters.",
                hint="Use a random value: python -c 'import secrets; print(secrets.token_urlsafe(32))'",
                id="datarights.W002",
            )
        )
    if not settings.DATA_TEAM_EMAIL:
        problems.append(
            checks.Warning(
                "DATA_TEAM_EMAIL is not set: data-rights requests are stored but nobody is told.",
                id="datarights.W003",
            )
        )
    return problems
