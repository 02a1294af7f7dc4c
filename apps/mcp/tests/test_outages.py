"""The endpoint when PostgreSQL is out of reach or was restarted since a worker thread's last
request (in-process, on the test database; tests/test_faults.py restarts the real services under
load)."""

import time

import psycopg
import pytest
from django.db import OperationalError, connection

from apps.core.testing import database_url, free_port
from apps.mcp.handlers import Request, _fresh_connection, _server_closed, serve

PING = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'


def test_a_connection_postgresql_closed_is_replaced_before_the_next_request(django_db_setup, committed):
    connection.ensure_connection()
    backend = connection.connection.info.backend_pid
    # What a restart does to every open session (here only to this thread's).
    with psycopg.connect(database_url(), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [backend])
    deadline = time.monotonic() + 5
    while not _server_closed(connection.connection) and time.monotonic() < deadline:
        time.sleep(0.01)

    _fresh_connection()  # what serve() does first

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != backend


def test_a_connection_that_already_failed_on_a_lost_server_is_replaced_too(django_db_setup, committed):
    connection.close()
    connection.ensure_connection()
    backend = connection.connection.info.backend_pid
    with psycopg.connect(database_url(), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [backend])
    time.sleep(0.2)
    # A request that was running then failed on it: the driver now calls it lost.
    with pytest.raises(OperationalError), connection.cursor() as cursor:
        cursor.execute("SELECT 1")

    _fresh_connection()

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_an_idle_healthy_connection_is_kept(django_db_setup, committed):
    connection.close()
    connection.ensure_connection()
    backend = connection.connection.info.backend_pid

    _fresh_connection()

    assert connection.connection is not None
    assert connection.connection.info.backend_pid == backend


def test_without_the_database_a_request_is_a_503_in_spec_format_not_an_internal_error(
    django_db_setup, committed
):
    port = connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["PORT"] = str(free_port())  # nothing listens there
    try:
        reply = serve(
            Request(
                "POST",
                "http",
                "127.0.0.1",
                {"accept": "application/json, text/event-stream", "content-type": "application/json"},
                {},
                PING,
            )
        )
    finally:
        connection.settings_dict["PORT"] = port
        connection.close()

    assert reply.status == 503
    assert reply.body == {
        "error": {
            "code": "UNAVAILABLE",
            "message": "The service is temporarily unavailable; try again shortly.",
        }
    }
    assert reply.headers == {"Retry-After": "5"}
