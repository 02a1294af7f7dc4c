"""Request ids, JSON logs and HTTP metrics, through a real web process on loopback."""

import json
import logging
import os
import time

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from apps.core.observability import (
    ConsoleFormatter,
    JsonFormatter,
    RequestContextFilter,
    accept_request_id,
    current_request_id,
    request_context,
)
from apps.core.testing import database_url, start_web

TOKEN = "observability-test-token"


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, tmp_path_factory):
    """The web process as production logs: JSON lines, one access line per request."""
    with django_db_blocker.unblock():
        url = database_url()
    log = tmp_path_factory.mktemp("observability") / "web.log"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "ATRIUM_METRICS_TOKEN": TOKEN,
        "ATRIUM_LOG_FORMAT": "json",
        "ATRIUM_LOG_LEVEL": "INFO",
        "ATRIUM_ACCESS_LOG": "true",
    }
    running = start_web(env, log=log)
    yield running
    running.stop()


def log_lines(server) -> list[dict]:
    return [json.loads(line) for line in server.log.read_text().splitlines() if line.startswith("{")]


def counted(server, **labels: str) -> float:
    text = httpx.get(f"{server.url()}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "atrium_http_requests_total" and sample.labels == labels:
                return sample.value
    return 0.0


@pytest.mark.live
def test_a_well_formed_request_id_is_reused_and_returned(server):
    response = server.client().get("/healthz", headers={"X-Request-ID": "4bf92f3577b34da6a3ce929d0e0e4736"})

    assert response.headers["X-Request-ID"] == "4bf92f3577b34da6a3ce929d0e0e4736"


@pytest.mark.live
@pytest.mark.parametrize("sent", [None, "short", "has spaces in it", "x" * 200, "<script>alert(1)</script>"])
def test_a_missing_or_malformed_request_id_is_replaced(server, sent):
    headers = {"X-Request-ID": sent} if sent else {}
    first = server.client().get("/healthz", headers=headers).headers["X-Request-ID"]
    second = server.client().get("/healthz", headers=headers).headers["X-Request-ID"]

    assert first != sent and len(first) == 32 and int(first, 16) >= 0
    assert first != second


@pytest.mark.live
def test_the_access_line_is_json_and_carries_no_query_string_and_no_address(server):
    server.client("127.0.0.2").get(
        "/api/me?access_token=atp_secret-in-the-query", headers={"X-Request-ID": "access-line-check-1"}
    )

    def access_lines() -> list[dict]:
        return [
            line
            for line in log_lines(server)
            if line.get("request_id") == "access-line-check-1" and line["logger"] == "atrium.access"
        ]

    # The line is written once the response is complete, just after the client has it.
    deadline = time.monotonic() + 5
    while not access_lines() and time.monotonic() < deadline:
        time.sleep(0.05)
    access = access_lines()
    assert len(access) == 1
    assert access[0]["path"] == "/api/me" and access[0]["status"] == 401
    assert access[0]["route"] == "api/me" and access[0]["workspace"] == "globex"
    assert access[0]["level"] == "INFO" and "timestamp" in access[0]
    assert "secret-in-the-query" not in server.log.read_text()
    # The client's address is nowhere in what this request logged (django.request warns too).
    mine = json.dumps([line for line in log_lines(server) if line.get("request_id") == "access-line-check-1"])
    assert "django.request" in mine and "127.0.0." not in mine


@pytest.mark.live
def test_requests_are_counted_by_route_pattern_never_by_path(server):
    before_me = counted(server, method="GET", route="api/me", status="401")
    before_nowhere = counted(server, method="GET", route="unmatched", status="404")

    server.client().get("/api/me")
    server.client().get("/no/such/page/12345")
    server.client().get("/no/such/page/67890")

    assert counted(server, method="GET", route="api/me", status="401") == before_me + 1
    assert counted(server, method="GET", route="unmatched", status="404") == before_nowhere + 2
    scrape = httpx.get(f"{server.url()}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text
    # No label carries the path (a sample's value may well contain the digits 12345).
    labels = {
        value
        for family in text_string_to_metric_families(scrape)
        for sample in family.samples
        for value in sample.labels.values()
    }
    assert not [value for value in labels if "12345" in value or "/no/such" in value]


def test_request_context_nests_and_restores():
    assert current_request_id() is None
    with request_context("outer-request-1") as outer:
        assert current_request_id() == "outer-request-1" == outer.request_id
        with request_context(None) as inner:
            assert current_request_id() == inner.request_id != "outer-request-1"
        assert current_request_id() == "outer-request-1"
    assert current_request_id() is None
    assert accept_request_id("bad id") != "bad id"


def make_record(message: str, **extra) -> logging.LogRecord:
    record = logging.LogRecord("atrium.test", logging.WARNING, __file__, 1, message, (), None)
    record.__dict__.update(extra)
    RequestContextFilter().filter(record)
    return record


def test_json_lines_carry_the_request_id_and_leave_out_the_request_object():
    class Request:
        def __repr__(self) -> str:
            return "<ASGIRequest: GET '/oauth/authorize?code=secret-code'>"

    with request_context("json-line-check-1", workspace="acme"):
        record = make_record("Not Found: /oauth/authorize", request=Request(), status_code=404)
    line = json.loads(JsonFormatter().format(record))

    assert line["request_id"] == "json-line-check-1" and line["workspace"] == "acme"
    assert line["message"] == "Not Found: /oauth/authorize" and line["status_code"] == 404
    assert line["level"] == "WARNING" and line["logger"] == "atrium.test"
    assert "secret-code" not in json.dumps(line)


def test_the_console_line_stays_readable():
    with request_context("console-check-1", workspace="globex"):
        inside = ConsoleFormatter().format(make_record("hello"))
    outside = ConsoleFormatter().format(make_record("hello"))

    assert inside.endswith("WARNING atrium.test [globex console-check-1] hello")
    assert outside.endswith("WARNING atrium.test hello")


# --- what a line may say of an exception ----------------------------------------------------------

ADDRESS = "sentinel-formatter@example.org"


def raised(error: BaseException) -> BaseException:
    try:
        raise error
    except BaseException as caught:
        return caught


def both_formats(record: logging.LogRecord) -> list[str]:
    return [ConsoleFormatter().format(record), JsonFormatter().format(record)]


def test_a_traceback_keeps_its_frames_and_leaves_out_each_exceptions_text():
    def handle_input() -> None:
        try:
            raise ValueError(f"not a date: {ADDRESS}")
        except ValueError as error:
            raise RuntimeError(f"could not read {ADDRESS}") from error

    error = raised_by(handle_input)
    record = logging.LogRecord(
        "atrium.test", logging.ERROR, __file__, 1, "failed", (), (type(error), error, None)
    )

    for line in both_formats(record):
        assert ADDRESS not in line
        assert "ValueError (its text is not logged)" in line
        assert "RuntimeError (its text is not logged)" in line
        assert "direct cause of the following exception" in line
        assert "in handle_input" in line  # where, still
    # Formatting lent nothing to the record: another handler sees it as it was logged.
    assert record.exc_text is None and record.exc_info[1] is error


def raised_by(function) -> BaseException:  # type: ignore[no-untyped-def]
    try:
        function()
    except BaseException as error:
        return error
    raise AssertionError("nothing raised")


def test_a_database_error_shows_its_sqlstate_and_constraint_never_its_detail(acme):
    from django.db import IntegrityError, transaction

    from apps.accounts.models import User
    from apps.core.observability import describe_error

    User.objects.create_user(email=ADDRESS)
    with pytest.raises(IntegrityError) as caught, transaction.atomic():
        User.objects.create_user(email=ADDRESS)
    error = caught.value
    assert ADDRESS in str(error)  # PostgreSQL's DETAIL: Key (email)=(...) already exists.
    record = logging.LogRecord(
        "atrium.test", logging.ERROR, __file__, 1, "insert failed: %s", (error,), (type(error), error, None)
    )

    assert describe_error(error) == "IntegrityError (SQLSTATE 23505, constraint accounts_user_email_key)"
    for line in both_formats(record):
        assert ADDRESS not in line and "DETAIL" not in line
        assert "insert failed: IntegrityError (SQLSTATE 23505, constraint accounts_user_email_key)" in line
        assert "psycopg.errors.UniqueViolation (SQLSTATE 23505, constraint accounts_user_email_key)" in line


def test_errors_about_code_and_connections_keep_their_text():
    import psycopg
    import redis.exceptions

    from apps.core.observability import describe_error

    assert describe_error(AttributeError("'NoneType' object has no attribute 'pk'")) == (
        "AttributeError: 'NoneType' object has no attribute 'pk'"
    )
    assert describe_error(ConnectionRefusedError(111, "Connection refused")) == (
        "ConnectionRefusedError: [Errno 111] Connection refused"
    )
    assert describe_error(redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379.")) == (
        "ConnectionError: Error 111 connecting to 127.0.0.1:6379."
    )
    # Refused on the way to the server: the driver's message says where, and no row.
    refused = psycopg.OperationalError(
        'connection failed: connection to server at "127.0.0.1", port 5432 failed'
    )
    assert describe_error(refused).startswith("OperationalError: connection failed: connection to server")
    assert describe_error(KeyError(ADDRESS)) == "KeyError (its text is not logged)"


def test_celerys_task_failure_line_carries_neither_the_exceptions_text_nor_its_traceback():
    error = raised(ValueError(f"bad address {ADDRESS}"))
    context = {
        "id": "0f1e",
        "name": "apps.gateway.tasks.deliver_webhook",
        "exc": repr(error),
        "traceback": f"Traceback ...\nValueError: bad address {ADDRESS}",
        "args": "()",
        "kwargs": "{'delivery_id': 3}",
        "description": "raised unexpected",
    }
    record = logging.LogRecord(
        "celery.app.trace",
        logging.ERROR,
        __file__,
        1,
        "Task %(name)s[%(id)s] %(description)s: %(exc)s",
        (context,),
        (type(error), error, None),
    )
    record.data = context

    console, json_line = both_formats(record)

    assert "raised unexpected: ValueError (its text is not logged)" in console
    line = json.loads(json_line)
    assert ADDRESS not in json_line
    assert "traceback" not in line["data"] and line["data"]["exc"] == "ValueError (its text is not logged)"
    assert record.data is context and context["exc"] == repr(error)  # the record is left as it was


@pytest.mark.live
@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/accounts/invitation/MQ/secret-invite-4f1a/", "/accounts/invitation/<uidb64>/<token>/"),
        ("/accounts/password-reset/MQ/secret-reset-4f1a/", "/accounts/password-reset/<uidb64>/<token>/"),
        ("/accounts/sign-in-link/MQ/secret-signin-4f1a/", "/accounts/sign-in-link/<uidb64>/<token>/"),
        ("/files/download/secret-download-4f1a", "/files/download/<token>"),
        ("/calendars/rsvp/secret-rsvp-4f1a", "/calendars/rsvp/<token>"),
        ("/mail/unsubscribe/secret-unsubscribe-4f1a", "/mail/unsubscribe/<token>"),
    ],
)
def test_a_links_token_is_not_in_the_log(server, path, shown):
    request_id = f"token-redaction-{abs(hash(path)):x}"
    server.client().get(path, headers={"X-Request-ID": request_id})

    def access_lines() -> list[dict]:
        return [
            line
            for line in log_lines(server)
            if line.get("request_id") == request_id and line["logger"] == "atrium.access"
        ]

    deadline = time.monotonic() + 5
    while not access_lines() and time.monotonic() < deadline:
        time.sleep(0.05)
    access = access_lines()
    assert len(access) == 1
    assert access[0]["path"] == shown
    assert "secret-" not in json.dumps(
        [line for line in log_lines(server) if line.get("request_id") == request_id]
    )


def test_redact_path_replaces_only_the_secret_segments():
    from apps.core.observability import redact_path

    assert redact_path("/accounts/invitation/MQ/abc-123/", {"uidb64": "MQ", "token": "abc-123"}) == (
        "/accounts/invitation/<uidb64>/<token>/"
    )
    assert redact_path("/settings/people/12/", {"user_id": 12}) == "/settings/people/12/"
