"""No log line carries personal data, whatever a request provokes (CONVENTIONS.md, docs/deploy.md
"Logs"): neither Atrium's own log (a web process on loopback, at the production level INFO, with
its access log) nor the log of the embedded PostgreSQL (bootstrap.py starts it with the settings
of `POSTGRES_LOG_SETTINGS`).

Each case sends a sentinel address (`sentinel-<random>@example.org`) through a real request that
ends in a database error or a malformed body, then looks for it in both files. Each also checks
that the file did record the event, without the address: a log that was not written would hide
nothing.

- Eight calls adding the same attendee (updateCalendarEvent over MCP), ten posts adding the same
  person (`POST /settings/people/`), all at the same moment: another transaction holds the row
  while every request waits on it, so each of them meets the unique constraint in the database,
  not the check made before the insert. Each answers a clear error: a conflict tool error, the
  people page's "already in the workspace".
- `POST /api/agent` with a lone surrogate in the message (whatever it is answered: the status is
  another part's business, the logs are this test's).
"""

import os
import secrets
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.conf import settings
from django.db import connection, transaction
from django_tenants.utils import schema_context

from apps.core.testing import LiveServer, database_url, start_web, wait_for
from apps.mcp.testing import McpHttp

pytestmark = pytest.mark.live

PASSWORD = "atrium-demo"


def sentinel() -> str:
    return f"sentinel-{secrets.token_hex(6)}@example.org"


@pytest.fixture(scope="module")
def web(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[LiveServer]:
    """A web process logging as production does: INFO, one access line per request."""
    with django_db_blocker.unblock():
        url = database_url()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "ATRIUM_LOG_LEVEL": "INFO",
        "ATRIUM_ACCESS_LOG": "true",
    }
    server = start_web(env, log=tmp_path_factory.mktemp("log-privacy") / "atrium.log")
    yield server
    server.stop()


class Log:
    """A log file, and where it stood when the test began."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.start = path.stat().st_size

    def text(self) -> str:
        return self.path.read_text(errors="replace")

    def since_start(self) -> str:
        with open(self.path, "rb") as handle:
            handle.seek(self.start)
            return handle.read().decode(errors="replace")


@pytest.fixture
def postgres_log(committed) -> Log:
    """The log of bootstrap.py's embedded PostgreSQL, the server the test database is on."""
    run = Path(settings.DATA_DIR)
    try:
        port = int((run / "postgres" / "postmaster.pid").read_text().splitlines()[3])
    except (FileNotFoundError, IndexError, ValueError):
        pytest.skip("the test database is not on bootstrap.py's embedded PostgreSQL")
    if str(port) != str(connection.settings_dict["PORT"]):
        pytest.skip("the test database is not on bootstrap.py's embedded PostgreSQL")
    return Log(run / "logs" / "postgres.log")


@pytest.fixture
def atrium_log(web) -> Log:  # type: ignore[no-untyped-def]
    assert web.log is not None
    return Log(web.log)


def assert_nowhere(address: str, *logs: Log) -> None:
    for log in logs:
        text = log.text()
        assert address not in text, f"{address} is in {log.path}"
        # However PostgreSQL or Python would have quoted it.
        assert address.split("@")[0] not in text, f"{address} is in {log.path}"


def lock_waiters() -> int:
    """Backends of the test database waiting for a lock another transaction holds."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


class Holder:
    """Writes a row in a transaction of its own thread and keeps it open until `commit()`: the
    requests sent meanwhile do not see the row, insert the same key, and wait on it."""

    def __init__(self, write: Callable[[], Any]) -> None:
        self._write = write
        self._written = threading.Event()
        self._release = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            with schema_context("acme"), transaction.atomic():
                self._write()
                self._written.set()
                self._release.wait(60)
        except BaseException as error:  # reported by commit()
            self._error = error
            self._written.set()
        finally:
            connection.close()

    def __enter__(self) -> "Holder":
        self._thread.start()
        assert self._written.wait(30)
        assert self._error is None, self._error
        return self

    def commit(self) -> None:
        self._release.set()
        self._thread.join(30)
        assert self._error is None, self._error

    def __exit__(self, *exc: Any) -> None:
        self._release.set()
        self._thread.join(30)


# --- the same attendee added by eight calls at once (updateCalendarEvent over MCP) ----------------


@pytest.fixture
def organiser(committed):  # type: ignore[no-untyped-def]
    from apps.accounts.models import Role, User

    with schema_context("acme"):
        user = User.objects.create_user(
            email=f"logs-{secrets.token_hex(4)}@acme.example", role=Role.objects.get(key="member")
        )
    yield user
    with schema_context("acme"):
        user.delete()


def test_the_same_attendee_added_by_eight_calls_at_once_is_a_conflict_and_logged_without_the_address(
    web, organiser, atrium_log, postgres_log
):
    from apps.calendars import services
    from apps.calendars.models import Attendee
    from apps.mcp.testing import pat_and_key

    address = sentinel()
    with schema_context("acme"):
        event = services.event_create(
            actor=organiser,
            calendar=services.default_calendar(actor=organiser),
            fields={"title": "Planning", "start": "2030-01-07T10:00"},
            attendees=[],
        )
    credentials = pat_and_key(organiser.email)
    clients = [McpHttp(web.url(), credentials) for _ in range(8)]
    for client in clients:
        client.initialize()
        client.result("getCalendarSummary")  # the calendars' mandatory first call

    def add(client: McpHttp) -> httpx.Response:
        attendee = {"email": address, "name": "Sentinel"}
        return client.call("updateCalendarEvent", {"eventId": event.pk, "addAttendees": [attendee]})

    try:
        holding = Holder(lambda: Attendee.objects.create(event_id=event.pk, email=address))
        with holding as holder, ThreadPoolExecutor(len(clients)) as pool:
            answers = [pool.submit(add, client) for client in clients]
            wait_for(lambda: lock_waiters() >= len(clients), timeout=20, what="every call waiting on the row")
            holder.commit()
            results = [answer.result(timeout=30) for answer in answers]
    finally:
        for client in clients:
            client.close()

    for answer in results:
        assert answer.status_code == 200, answer.text
        result = answer.json()["result"]
        text = result["content"][0]["text"]
        assert result["isError"] is True, text
        assert "conflicts with data saved at the same moment" in text
        assert "Internal error" not in text and "reference" not in text
    with schema_context("acme"):
        assert Attendee.objects.filter(event_id=event.pk).count() == 1

    # Both logs recorded the conflicts, by the constraint's name only.
    postgres_lines = wait_for(
        lambda: "calendars_attendee_once" in (text := postgres_log.since_start()) and text,
        timeout=10,
        what="PostgreSQL to log the unique violations",
    )
    assert "DETAIL" not in postgres_lines and "STATEMENT" not in postgres_lines
    constraint = "IntegrityError (SQLSTATE 23505, constraint calendars_attendee_once)"
    logged = f"updateCalendarEvent answered CONFLICT: {constraint}"
    wait_for(
        lambda: logged in atrium_log.since_start(),
        timeout=10,
        what="the web process to log the conflicts",
    )
    assert_nowhere(address, atrium_log, postgres_log)


# --- the same person added by ten posts at once (/settings/people/) -------------------------------


def signed_in(server: LiveServer) -> httpx.Client:
    browser = httpx.Client(base_url=server.url(), timeout=30)
    browser.get("/accounts/sign-in/")
    answer = browser.post(
        "/accounts/sign-in/",
        data={
            "username": "admin@acme.example",
            "password": PASSWORD,
            "csrfmiddlewaretoken": browser.cookies["atrium_csrf"],
        },
        headers={"Referer": f"{server.url()}/accounts/sign-in/"},
    )
    assert answer.status_code == 302, answer.text
    return browser


def test_the_same_person_added_by_ten_posts_at_once_is_already_there_and_logged_without_the_address(
    web, committed, atrium_log, postgres_log
):
    from apps.accounts.models import Role, User

    address = sentinel()
    name = f"Sentinel {secrets.token_hex(4)}"
    with schema_context("acme"):
        member_role = Role.objects.get(key="member").pk
    browsers = [signed_in(web) for _ in range(10)]

    def add(browser: httpx.Client) -> httpx.Response:
        return browser.post(
            "/settings/people/",
            data={
                "email": address,
                "full_name": name,
                "role": member_role,
                "password": "a long enough Passw0rd",
                "csrfmiddlewaretoken": browser.cookies["atrium_csrf"],
            },
            headers={"Referer": f"{web.url()}/settings/people/"},
        )

    try:
        holding = Holder(lambda: User.objects.create_user(email=address, role_id=member_role))
        with holding as holder, ThreadPoolExecutor(len(browsers)) as pool:
            answers = [pool.submit(add, browser) for browser in browsers]
            wait_for(
                lambda: lock_waiters() >= len(browsers), timeout=20, what="every post waiting on the row"
            )
            holder.commit()
            posted = [answer.result(timeout=30) for answer in answers]
        pages = []
        for browser, answer in zip(browsers, posted, strict=True):
            assert answer.status_code == 302, answer.text
            pages.append(browser.get(answer.headers["location"]).text)
    finally:
        for browser in browsers:
            browser.close()
        with schema_context("acme"):
            User.objects.filter(email=address).delete()

    for page in pages:
        assert "Someone with this e-mail address is already in the workspace." in page
    postgres_lines = wait_for(
        lambda: "accounts_user_email_key" in (text := postgres_log.since_start()) and text,
        timeout=10,
        what="PostgreSQL to log the unique violations",
    )
    assert "DETAIL" not in postgres_lines and "STATEMENT" not in postgres_lines
    assert_nowhere(address, atrium_log, postgres_log)
    assert_nowhere(name, atrium_log, postgres_log)


# --- a message with a lone surrogate (/api/agent) -------------------------------------------------


def test_a_message_with_a_lone_surrogate_leaves_no_trace_of_itself_in_the_logs(
    web, committed, atrium_log, postgres_log
):
    from apps.accounts.models import Role, User
    from apps.apikeys.testing import credentials_for

    address = sentinel()
    with schema_context("acme"):
        person = User.objects.create_user(
            email=f"logs-{secrets.token_hex(4)}@acme.example", role=Role.objects.get(key="member")
        )
        credentials = credentials_for(person)
    request_id = f"surrogate-{secrets.token_hex(8)}"
    # The JSON escape of a lone high surrogate: valid JSON text, no valid Unicode string.
    body = ('{"message": "Invite ' + address + ' to lunch \\ud800"}').encode()
    try:
        with web.client() as client:
            answer = client.post(
                "/api/agent",
                content=body,
                headers={
                    **credentials.http_headers(),
                    "Content-Type": "application/json",
                    "X-Request-ID": request_id,
                },
            )
    finally:
        with schema_context("acme"):
            person.delete()

    assert answer.headers["x-request-id"] == request_id
    # The request was logged (its access line), and nothing of its message was.
    wait_for(lambda: request_id in atrium_log.since_start(), timeout=10, what="the access line")
    assert_nowhere(address, atrium_log, postgres_log)
