"""A dependency out of reach (PostgreSQL restarting, Redis or the broker gone) is SPEC 7.1's
503 UNAVAILABLE with Retry-After, from the JSON APIs and from the error pages alike; any other
failure stays a 500. (tests/test_faults.py restarts the real services under load.)"""

import json

import pytest
import redis
from django.db import OperationalError, ProgrammingError
from django.test import RequestFactory
from kombu.exceptions import OperationalError as BrokerError

from apps.core import errors
from apps.core.tests.test_errors import call, view_raising
from apps.core.views import server_error

UNAVAILABLE = {
    "error": {"code": "UNAVAILABLE", "message": "The service is temporarily unavailable; try again shortly."}
}


@pytest.mark.parametrize(
    "error",
    [
        OperationalError("server closed the connection unexpectedly"),
        redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379"),
        redis.exceptions.TimeoutError("Timeout reading from socket"),
        BrokerError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
    ],
)
def test_an_unreachable_dependency_is_503_unavailable_with_retry_after(error):
    outage = errors.unavailable(error)

    assert outage is not None
    assert (outage.http_status, outage.as_body()) == (503, UNAVAILABLE)
    assert outage.headers == {"Retry-After": str(errors.RETRY_AFTER_SECONDS)}


def test_an_error_caused_by_an_outage_is_one_and_other_errors_are_not():
    try:
        try:
            raise OperationalError("connection refused")
        except OperationalError as cause:
            raise RuntimeError("the session could not be read") from cause
    except RuntimeError as wrapped:
        assert errors.unavailable(wrapped) is not None

    assert errors.unavailable(ProgrammingError('relation "x" does not exist')) is None
    assert errors.unavailable(ValueError("a bug")) is None
    assert errors.unavailable(None) is None


def test_a_json_api_answers_503_while_the_database_is_unreachable():
    response = call(view_raising(OperationalError("could not connect to server")))

    assert response.status_code == 503
    assert response.data == UNAVAILABLE
    assert response["Retry-After"] == "5"


def test_a_json_api_still_answers_500_for_a_bug():
    response = call(view_raising(ProgrammingError("syntax error")))

    assert response.status_code == 500
    assert response.data["error"]["code"] == "INTERNAL_ERROR"


def handled(request, error: Exception):  # type: ignore[no-untyped-def]
    """What Django's handler500 answers while `error` is being handled."""
    try:
        raise error
    except Exception:
        return server_error(request)


def test_the_error_handler_answers_503_in_json_for_apis_and_clients_that_do_not_ask_for_html():
    factory = RequestFactory()
    outage = OperationalError("the database system is shutting down")

    for request in (
        factory.get("/api/me"),
        factory.post("/oauth/token", HTTP_ACCEPT="application/json"),
        factory.post("/oauth/token"),
    ):
        response = handled(request, outage)
        assert response.status_code == 503, request.path
        assert response["Content-Type"] == "application/json"
        assert response["Retry-After"] == "5"
        assert json.loads(response.content) == UNAVAILABLE


def test_the_error_handler_answers_a_page_that_needs_no_database_to_a_browser():
    request = RequestFactory().get("/settings/people/", HTTP_ACCEPT="text/html,application/xhtml+xml")

    response = handled(request, redis.exceptions.ConnectionError("Connection refused"))

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert b"Back in a moment" in response.content


def test_the_error_handler_still_answers_500_for_a_bug():
    response = handled(RequestFactory().get("/api/me"), ValueError("a bug"))

    assert response.status_code == 500
