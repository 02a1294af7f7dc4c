#!/usr/bin/env python3
"""Atrium's management commands: `python3 manage.py <command>` from the checkout.

Started by any Python, it re-executes itself with the project's virtualenv (.venv, which `make up`
creates) when there is one. With DATABASE_URL / REDIS_URL unset, it uses the embedded PostgreSQL
and Redis that are running (bootstrap.py records where they listen, under .data/); when they are
not running, a command that needs them says so in one line instead of a traceback. An image
(deploy/) has no .venv and sets DATABASE_URL: none of this applies there.

This part runs before the virtualenv: standard library only, and any Python 3.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
# Set for the re-executed process only, which then never re-executes again.
REEXECUTED = "ATRIUM_MANAGE_REEXECUTED"


def stop(message: str) -> NoReturn:
    print(f"manage.py: {message}", file=sys.stderr)
    sys.exit(1)


def use_project_python() -> None:
    """Runs this under .venv's Python (which has Django) when another one started it."""
    reexecuted = os.environ.pop(REEXECUTED, None)
    python = VENV / "bin" / "python"
    if reexecuted or not python.exists() or Path(sys.prefix).resolve() == VENV.resolve():
        return
    os.environ[REEXECUTED] = "1"
    try:
        os.execv(str(python), [str(python), str(ROOT / "manage.py"), *sys.argv[1:]])  # noqa: S606  (our own .venv)
    except OSError as error:
        stop(f"cannot run {python} ({error.strerror}); `make up` recreates .venv")


def use_embedded_services() -> dict[str, bool]:
    """Names the running embedded servers in DATABASE_URL / REDIS_URL when the environment does
    not. Returns, per variable this filled in or left unset, whether its server was found."""
    missing = [name for name in ("DATABASE_URL", "REDIS_URL") if not os.environ.get(name)]
    if not missing:
        return {}
    try:
        import bootstrap
    except ImportError:  # a copy of the project without bootstrap.py
        return dict.fromkeys(missing, False)
    running = bootstrap.running_services_env()
    # The local mail server's address and password (apps/mail), when it runs and none is named.
    if not os.environ.get("ATRIUM_MAIL_LOCAL_IMAP"):
        for name in bootstrap.MAIL_ENV:
            if name in running:
                os.environ[name] = running[name]
    found = {}
    for name in missing:
        found[name] = name in running
        if found[name]:
            os.environ[name] = running[name]
    return found


def unreachable(error: BaseException, found: dict[str, bool]) -> str | None:
    """The one line to print when `error` is a failure to reach an embedded server that is not
    running, else None (any other error keeps its traceback)."""
    kinds: dict[str, tuple[type[BaseException], ...]] = {"DATABASE_URL": (), "REDIS_URL": ()}
    from django.db.utils import OperationalError

    kinds["DATABASE_URL"] += (OperationalError,)
    try:
        import psycopg

        kinds["DATABASE_URL"] += (psycopg.OperationalError,)
    except ImportError:
        pass
    try:
        import redis

        kinds["REDIS_URL"] += (redis.exceptions.ConnectionError,)
    except ImportError:
        pass
    try:
        import kombu.exceptions

        kinds["REDIS_URL"] += (kombu.exceptions.OperationalError,)
    except ImportError:
        pass
    servers = {"DATABASE_URL": "PostgreSQL", "REDIS_URL": "Redis"}
    seen: BaseException | None = error
    while seen is not None:
        for name, classes in kinds.items():
            if name in found and not found[name] and isinstance(seen, classes):
                return (
                    f"the service is not running ({name} is unset and the embedded {servers[name]} "
                    "is stopped): start it with `make up`, then run this again"
                )
        seen = seen.__cause__ or seen.__context__
    return None


def main() -> None:
    use_project_python()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    found = use_embedded_services()
    try:
        from django.core.management import execute_from_command_line
    except ImportError:
        stop(
            f"Django is not installed for {sys.executable} and there is no {VENV}: "
            "`make up` creates it (or install requirements/dev.txt into your own virtualenv)"
        )
    try:
        execute_from_command_line(sys.argv)
    except Exception as error:
        message = unreachable(error, found)
        if message is None:
            raise
        stop(message)


if __name__ == "__main__":
    main()
