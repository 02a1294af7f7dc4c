"""Shared fixtures.

Workspaces are made once per test session (cloning a schema is DDL, and a schema per test
would make the suite crawl): `seed_demo` creates Acme (localhost, 127.0.0.1) and Globex
(127.0.0.2) with one person per built-in role, exactly like `make run`. Each test then runs in
a transaction that is rolled back (pytest-django's `db`), inside the workspace it asks for.

Tests whose server runs in another process (the `live_http` fixture: a web process on loopback)
cannot see uncommitted rows, so they use `committed` instead of `db`, and create what they
need with unique names.
"""

import contextlib
import faulthandler
import functools
import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from apps.core.testing import CHROMIUM, CHROMIUM_ARGS, LiveServer, database_url, start_web

ROLES = ("owner", "admin", "member", "viewer")


@pytest.fixture(scope="session")
def django_db_setup(request, django_test_environment, django_db_modify_db_settings, django_db_blocker):  # type: ignore[no-untyped-def]
    """The test database, always (pytest-django would skip it when the selected tests only use
    the live server), with the public site, the workspace template and the demo workspaces: a copy
    of the template database the first process to need one built (tests/database.py). Under
    pytest-xdist each worker has its own (`django_db_modify_db_settings` names it after the worker)."""
    from tests import database

    original = connection.settings_dict["NAME"]
    name = connection.settings_dict["TEST"]["NAME"] or f"test_{original}"
    family = f"test_{original}_base_"
    verbosity = max(request.config.option.verbose - 1, 0)
    with django_db_blocker.unblock(), _untimed(SET_UP_LIMIT):
        database.provide(
            name,
            template=family + database.build_key(),
            family=family,
            build=functools.partial(database.seed, verbosity=verbosity),
        )
        database.use(name)
    yield
    from apps.core import kept

    kept.later_stop()  # its connection to the database about to go
    with django_db_blocker.unblock():
        database.use(original)
        database.drop(name)


@pytest.fixture(scope="session", autouse=True)
def _no_browser_left() -> Iterator[None]:
    """The Chromiums this process started and no ended session stopped (a session made by a test
    whose rows were rolled back), stopped when the process ends: its folder is its own
    (config/settings/test.py)."""
    yield
    from apps.browser import engine

    engine.sweep(0)


# The database set-up (the template database built, or waited for, then copied) runs once per
# worker, inside whichever test comes first: it is not that test's time. It has its own limit.
SET_UP_LIMIT = 1800


@contextlib.contextmanager
def _untimed(limit: float) -> Iterator[None]:
    """Holds pytest-timeout's alarm for the running test (its signal method) while the block
    runs, under a limit of its own (`limit` seconds: then every thread's stack and exit), and
    gives the test the time it had left afterwards."""
    left, _interval = signal.setitimer(signal.ITIMER_REAL, 0)
    faulthandler.dump_traceback_later(limit, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        if left:
            signal.setitimer(signal.ITIMER_REAL, left)


@pytest.fixture(autouse=True)
def _fresh_routes() -> Iterator[None]:
    """Rolled-back rows must not survive in the per-process host cache."""
    from apps.tenancy import routing

    routing.forget()
    yield
    routing.forget()
    connection.set_schema_to_public()


def _workspace(schema_name: str):  # type: ignore[no-untyped-def]
    from apps.tenancy.models import Workspace

    return Workspace.objects.get(schema_name=schema_name)


@pytest.fixture
def acme(db):  # type: ignore[no-untyped-def]
    """Acme, activated: ORM queries in the test body go to its schema."""
    workspace = _workspace("acme")
    connection.set_tenant(workspace)
    yield workspace
    connection.set_schema_to_public()


@pytest.fixture
def globex(db):  # type: ignore[no-untyped-def]
    """Globex, not activated (use `with schema_context("globex")` or `in_workspace`)."""
    return _workspace("globex")


@pytest.fixture
def people(acme):  # type: ignore[no-untyped-def]
    """Acme's demo people by role key: people["viewer"] is viewer@acme.example."""
    from apps.accounts.models import User

    return {role: User.objects.select_related("role").get(email=f"{role}@acme.example") for role in ROLES}


@pytest.fixture
def nora(acme):  # type: ignore[no-untyped-def]
    """A second member of Acme's team (nora.vale@acme.example), beside people["member"]."""
    from apps.accounts.models import Role, User

    return User.objects.create_user(
        email="nora.vale@acme.example", password=None, role=Role.objects.get(key="member")
    )


@pytest.fixture
def acme_client() -> Client:
    return Client(HTTP_HOST="127.0.0.1")


@pytest.fixture
def globex_client() -> Client:
    return Client(HTTP_HOST="127.0.0.2")


@pytest.fixture
def public_client() -> Client:
    return Client(HTTP_HOST=settings.ATRIUM_PUBLIC_DOMAINS[0])


@pytest.fixture
def committed(django_db_setup, django_db_blocker) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """Database access that commits, for tests talking to the live server. On the test database
    even when no test before it asked for one (without `django_db_setup`, a test run alone would
    reach the database of DATABASE_URL itself)."""
    with django_db_blocker.unblock():
        yield
        connection.set_schema_to_public()


@pytest.fixture(scope="session")
def live_http(django_db_setup, django_db_blocker) -> Iterator[LiveServer]:  # type: ignore[no-untyped-def]
    """config.serve (uvicorn) serving config.asgi on 127.0.0.1 and 127.0.0.2, on the test database."""
    with django_db_blocker.unblock():
        url = database_url()
    server = start_web({**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings.test"})
    yield server
    server.stop()


@pytest.fixture
def browser(monkeypatch):  # type: ignore[no-untyped-def]
    """A real headless Chromium (Debian's), driven by Playwright, for one test.

    Playwright's sync API keeps an event loop in this thread, which Django's async-safety check
    mistakes for async code calling the ORM; the test's own ORM calls are synchronous, so the
    check is relaxed for browser tests only (and only while they run).
    """
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, live_http):  # type: ignore[no-untyped-def]
    """A fresh browser context (no cookies, clipboard allowed) and one page in it. The live
    server is started first, before Playwright's event loop exists."""
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "early_modules",
        "test modules pytest-xdist hands out before any other (tests/distribution.py)",
        type="linelist",
        default=[],
    )


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadfile`, tests/distribution.py's scheduler: a test over a tool goes with
    its module's tests of the same area, and the early modules go first."""
    if config.getvalue("dist") != "loadfile":
        return None
    from apps.catalogue import registry
    from tests.distribution import ByModuleAndArea

    tool_areas = {spec.name: spec.area for spec in registry.all_tools()}
    return ByModuleAndArea(config, log, tool_areas=tool_areas, early=config.getini("early_modules"))
