"""Every JSON API error has SPEC 7.1's body, made by the one exception handler."""

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers
from rest_framework.exceptions import Throttled
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from apps.core import errors


class Payload(serializers.Serializer):
    message = serializers.CharField(max_length=10)


def view_raising(exc: Exception | None = None, *, validate: bool = False):
    class Probe(APIView):
        permission_classes = [AllowAny]
        authentication_classes = []

        def post(self, request):
            if validate:
                Payload(data=request.data).is_valid(raise_exception=True)
            if exc is not None:
                raise exc
            return Response({"ok": True})

    return Probe.as_view()


def call(view, data=None, **extra):
    request = APIRequestFactory().post("/api/probe", data if data is not None else {}, format="json", **extra)
    return view(request)


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (errors.Unauthenticated(), 401, "UNAUTHENTICATED"),
        (errors.NotFound(), 404, "NOT_FOUND"),
        (errors.Forbidden(), 403, "FORBIDDEN"),
        (errors.ServiceUnavailable(), 503, "UNAVAILABLE"),
        (Http404(), 404, "NOT_FOUND"),
        (PermissionDenied(), 403, "FORBIDDEN"),
        (Throttled(wait=7), 429, "RATE_LIMITED"),
    ],
)
def test_errors_have_the_spec_body(exc, status, code):
    response = call(view_raising(exc))

    assert response.status_code == status
    assert set(response.data) == {"error"}
    assert response.data["error"]["code"] == code
    assert isinstance(response.data["error"]["message"], str) and response.data["error"]["message"]


class BudgetSpent(errors.AppError):
    code = "BUDGET_EXCEEDED"
    http_status = 429
    data_fields = ("when",)
    msg_format = "Budget spent; resets at {when}."


def test_an_app_error_keeps_its_message_and_headers():
    exc = BudgetSpent(when="midnight", headers={"Retry-After": "3600"})

    response = call(view_raising(exc))

    assert response.status_code == 429
    assert response.data == {
        "error": {"code": "BUDGET_EXCEEDED", "message": "Budget spent; resets at midnight."}
    }
    assert response["Retry-After"] == "3600"


def test_validation_errors_are_422_and_the_message_names_the_field():
    response = call(view_raising(validate=True), {"message": "x" * 11})

    assert response.status_code == 422
    error = response.data["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert error["message"].startswith("message: ")
    assert "10 characters" in error["message"]
    assert "message" in error["details"]


def test_a_missing_field_is_named_too():
    response = call(view_raising(validate=True), {})

    assert response.status_code == 422
    assert response.data["error"]["message"] == "message: This field is required."


def test_an_error_naming_thousands_of_fields_stays_short_and_says_how_many_more():
    problems = {f"field{number}" * 10: ["Unknown field."] for number in range(5_000)}
    exc = errors.FieldsInvalid.of(problems)

    response = call(view_raising(exc))

    error = response.data["error"]
    assert response.status_code == 422
    assert len(error["details"]) == 20
    assert all(len(name) <= 82 for name in error["details"])
    assert len(error["message"]) < 2_100
    assert error["message"].endswith("(And 4,980 more fields.)")


def test_a_long_list_inside_the_details_is_cut_and_counted():
    exc = errors.FieldsInvalid.of({"tags": [f"item {number} is bad" for number in range(500)]})

    details = call(view_raising(exc)).data["error"]["details"]

    assert details["tags"][:2] == ["item 0 is bad", "item 1 is bad"]
    assert details["tags"][-1] == "… and 480 more"
    assert len(details["tags"]) == 21


def test_malformed_json_is_a_400_in_the_same_format():
    request = APIRequestFactory().post("/api/probe", b"{not json", content_type="application/json")

    response = view_raising(validate=True)(request)

    assert response.status_code == 400
    assert response.data["error"]["code"] == "BAD_REQUEST"


def test_an_unexpected_exception_is_a_500_without_details(caplog):
    response = call(view_raising(RuntimeError("secret internals")))

    assert response.status_code == 500
    assert response.data == {
        "error": {"code": "INTERNAL_ERROR", "message": "Internal error; it has been logged."}
    }
    assert "secret internals" in caplog.text  # logged for operators, not shown to callers


@pytest.mark.django_db
def test_unknown_api_paths_answer_json(acme_client):
    response = acme_client.get("/api/does-not-exist")

    assert response.status_code == 404
    assert response.json() == {"error": {"code": "NOT_FOUND", "message": "No such endpoint."}}


@pytest.mark.django_db
def test_unknown_api_paths_answer_json_for_writes_too_not_a_csrf_page():
    from django.test import Client

    client = Client(HTTP_HOST="127.0.0.1", enforce_csrf_checks=True)

    response = client.put("/api/api-keys/-5", data="{}", content_type="application/json")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


@pytest.mark.django_db
def test_a_wrong_method_is_405_in_the_same_format(acme_client, people):
    acme_client.force_login(people["viewer"])

    response = acme_client.delete("/api/me")

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


@pytest.mark.django_db
def test_no_credential_is_401_with_a_bearer_challenge(acme_client):
    response = acme_client.get("/api/me")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHENTICATED"
    assert response["WWW-Authenticate"] == 'Bearer realm="atrium"'


@pytest.mark.django_db
def test_a_post_to_an_unknown_api_path_is_a_json_404_not_a_csrf_page(acme_client):
    client = acme_client.__class__(HTTP_HOST="127.0.0.1", enforce_csrf_checks=True)

    response = client.post("/api/nothing-here", {"a": 1}, content_type="application/json")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


@pytest.mark.django_db
def test_a_cross_site_post_to_a_session_api_is_refused_in_json(acme_client, people):
    client = acme_client.__class__(HTTP_HOST="127.0.0.1", enforce_csrf_checks=True)
    client.force_login(people["owner"])

    response = client.post("/api/api-keys", {"label": "x"}, content_type="application/json")

    assert response.status_code == 403
    assert response.json()["error"]["code"] in {"CSRF_FAILED", "FORBIDDEN"}


def unique_violation(people) -> Exception:
    """A real one: PostgreSQL refusing a second person with the same address."""
    from django.db import IntegrityError, transaction

    from apps.accounts.models import User

    taken = people["member"]
    try:
        with transaction.atomic():
            User.objects.create(email=taken.email, full_name="Someone Else", role=taken.role)
    except IntegrityError as error:
        return error
    raise AssertionError("the database accepted a second person with the same address")


@pytest.mark.django_db
def test_a_write_that_lost_a_race_to_a_unique_key_is_a_409_conflict_not_a_500(people, caplog):
    response = call(view_raising(unique_violation(people)))

    assert response.status_code == 409
    assert response.data["error"]["code"] == "CONFLICT"
    assert "try again" in response.data["error"]["message"]
    assert people["member"].email not in caplog.text


def database_error(sqlstate: str) -> Exception:
    """What Django raises when PostgreSQL refuses a statement with `sqlstate` (psycopg's class for
    it, wrapped in Django's)."""
    from django.db import DatabaseError, connection, transaction

    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("DO $$ BEGIN RAISE EXCEPTION 'refused' USING ERRCODE = %s; END $$", [sqlstate])
    except DatabaseError as error:
        return error
    raise AssertionError(f"PostgreSQL raised nothing for {sqlstate}")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("sqlstate", "race"),
    [
        ("23505", True),  # unique violation: a concurrent insert of the same key
        ("23P01", True),  # exclusion violation: a concurrent booking of the same time
        ("40P01", True),  # deadlock: PostgreSQL gave this transaction up
        ("40001", True),  # serialization failure
        ("23502", False),  # NOT NULL: this write's own mistake
        ("23503", False),  # foreign key: likewise
        ("23514", False),  # check constraint
    ],
)
def test_one_rule_says_which_refusals_are_lost_races(sqlstate, race):
    error = database_error(sqlstate)

    assert (errors.concurrent_conflict(error) is not None) is race
    response = call(view_raising(error)) if race else None
    if response is not None:
        assert (response.status_code, response.data["error"]["code"]) == (409, "CONFLICT")


@pytest.mark.django_db
@pytest.mark.parametrize("sqlstate", ["40P01", "40001"])
def test_a_deadlock_is_never_the_service_being_unavailable(sqlstate):
    from django.db import OperationalError

    error = database_error(sqlstate)

    assert isinstance(error, OperationalError)  # the class Django gives outages too
    assert errors.unavailable(error) is None
    assert errors.concurrent_conflict(error) is not None


@pytest.mark.django_db
def test_a_page_whose_write_lost_a_race_sends_the_person_back_with_the_conflict(people):
    from django.contrib.messages import get_messages
    from django.contrib.messages.storage.fallback import FallbackStorage
    from django.test import RequestFactory

    from apps.core.pages import page

    error = unique_violation(people)

    @page()
    def probe(request):
        raise error

    request = RequestFactory().post("/settings/probe/", HTTP_REFERER="http://testserver/settings/probe/")
    request.user = people["owner"]
    request.session = {}
    request._messages = FallbackStorage(request)

    response = probe(request)

    assert (response.status_code, response["Location"]) == (302, "http://testserver/settings/probe/")
    assert ["try again" in str(message) for message in get_messages(request)] == [True]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("methods", "location"),
    [
        (("POST",), "/settings/"),
        (None, "/settings/probe/?tab=2"),
        (("GET", "POST"), "/settings/probe/?tab=2"),
    ],
)
def test_a_refused_form_without_a_referer_goes_back_to_a_page_that_shows_something(people, methods, location):
    from django.contrib.messages.storage.fallback import FallbackStorage
    from django.test import RequestFactory

    from apps.core.errors import invalid
    from apps.core.pages import page

    @page(methods=methods)
    def probe(request):
        raise invalid("name", "is taken")

    request = RequestFactory().post("/settings/probe/?tab=2")
    request.user = people["owner"]
    request.session = {}
    request._messages = FallbackStorage(request)

    response = probe(request)

    assert (response.status_code, response["Location"]) == (302, location)


# --- the registry of codes (errors.check_declarations, the system check atrium.E020-E024) ---------


def declared(name, *bases, module="apps.probe.tests.errors", **attributes):
    """An error class as an app's errors module would declare it (in a tests package: the real
    registry, `errors.error_classes()`, leaves it out)."""
    return type(name, bases, {"__module__": module, **attributes})


def problems_of(*classes):
    return [(problem.id, problem.obj.__name__) for problem in errors.check_declarations(classes)]


def test_every_error_the_apps_declare_passes_the_check():
    declared_here = errors.error_classes()

    assert errors.check_declarations(declared_here) == []
    assert errors.codes()["NO_EXCHANGE_RATE"] is errors.NoExchangeRate
    assert len(errors.codes()) == len({cls.code for cls in declared_here})


def test_a_code_declared_twice_fails_the_check():
    first = declared("TicketGone", errors.Conflict, code="GONE", message="Ticket gone.")
    second = declared("FileGone", errors.NotFound, code="GONE", message="File gone.")

    assert problems_of(first, second) == [("atrium.E021", "FileGone")]


def test_a_variant_inherits_its_failures_code_and_is_no_duplicate():
    family = declared("Gone", errors.Conflict, code="GONE", message="Gone.")
    variant = declared("TicketGone", family, data_fields=("id",), msg_format="Ticket {id} is gone.")

    assert problems_of(family, variant) == []
    assert variant(id=4).code == "GONE" and variant(id=4).message == "Ticket 4 is gone."


def test_a_class_without_a_message_of_its_own_fails_the_check():
    # It would answer Conflict's "The request conflicts with the current state.": untemplated.
    bare = declared("TicketClosed", errors.Conflict, code="TICKET_CLOSED")
    nothing = declared("Broken", errors.AppError, code="BROKEN")
    # A family whose variants have the words is fine; a template naming facts is made to share.
    family = declared("Clash", errors.Conflict, code="CLASH")
    room = declared("RoomTaken", family, data_fields=("room",), msg_format="Room {room} is taken.")
    archived = declared("ContactArchived", errors.InTrash, code="CONTACT_ARCHIVED")

    assert problems_of(bare, nothing, family, room, archived) == [
        ("atrium.E022", "TicketClosed"),
        ("atrium.E022", "Broken"),
    ]


def test_a_class_without_a_code_fails_the_check():
    assert problems_of(declared("Nameless", errors.AppError, message="Something.")) == [
        ("atrium.E020", "Nameless")
    ]


def test_a_templates_facts_are_read_from_its_words_in_the_source_language():
    late = declared(
        "Late", errors.Conflict, code="LATE", msg_format=_("Task {id!r} is late by {days:>3} days.")
    )
    excused = declared("Excused", late, msg_format="Task {id} is excused: {reason.text}.")

    assert late.data_fields == ("days", "id") and excused.data_fields == ("id", "reason")
    assert late(id=4, days=2).message == "Task 4 is late by   2 days."
    with pytest.raises(TypeError, match="Late needs days"):
        late(id=4)
    with pytest.raises(TypeError, match="Excused takes no days"):
        excused(id=4, reason=None, days=2)
    assert problems_of(late, excused) == []


def test_a_template_names_exactly_its_data_fields():
    loose = declared(
        "Late", errors.Conflict, code="LATE", data_fields=("id", "day"), msg_format="Task {id!r} is late."
    )
    strict = declared(
        "Early", errors.Conflict, code="EARLY", data_fields=("id", "day"), msg_format="{id:>3} by {day.year}."
    )

    assert problems_of(loose, strict) == [("atrium.E023", "Late")]


def test_an_error_declared_outside_an_errors_module_fails_the_check():
    stray = declared(
        "Stray", errors.Conflict, code="STRAY", message="Stray.", module="apps.probe.tests.services"
    )

    assert problems_of(stray) == [("atrium.E024", "Stray")]


def test_the_check_runs_with_djangos_system_checks(monkeypatch):
    from django.core import checks

    twice = [
        declared("TicketGone", errors.Conflict, code="GONE", message="Ticket gone."),
        declared("FileGone", errors.NotFound, code="GONE", message="File gone."),
    ]
    monkeypatch.setattr(errors, "error_classes", lambda: twice)

    assert "atrium.E021" in [problem.id for problem in checks.run_checks()]


def test_a_template_refuses_facts_it_does_not_name_and_needs_those_it_does():
    with pytest.raises(TypeError, match="takes no colour"):
        errors.ReadOnly(label="task", id=1, colour="red")
    with pytest.raises(TypeError, match="needs id"):
        errors.ReadOnly(label="task")
