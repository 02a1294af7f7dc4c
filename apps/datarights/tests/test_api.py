"""POST /api/data-request: the secret, the body field by field, storage, duplicates, rate limit."""

import re

import pytest
from django.core import mail

from apps.datarights.models import DataRequest

from .conftest import DATA_TEAM, SECRET, new_address, valid_body

pytestmark = pytest.mark.django_db

REFERENCE = re.compile(r"^DR-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$")


def error_of(response):
    body = response.json()
    assert set(body) == {"error"}, body
    return body["error"]


# --- accepted -------------------------------------------------------------------------------------


def test_a_valid_request_is_accepted_with_a_reference(post):
    response = post()

    assert response.status_code == 202
    body = response.json()
    assert set(body) == {"reference", "status", "message"}
    assert body["status"] == "accepted"
    assert REFERENCE.match(body["reference"])
    stored = DataRequest.objects.get(reference=body["reference"])
    assert (stored.type, stored.name, stored.email, stored.account) == (
        "access",
        "Ada Quillfeather",
        "ada.quillfeather@example.org",
        "acct-93817",
    )
    assert stored.details == "Please send me a copy of everything you hold about me."
    assert (stored.locale, stored.country) == ("en-GB", "GB")
    assert stored.received_at.isoformat() == "2025-03-14T09:26:53+00:00"
    assert stored.status == DataRequest.Status.RECEIVED


def test_the_request_records_the_workspace_host_that_received_it(post):
    acme = post(host="127.0.0.1").json()["reference"]
    globex = post(valid_body(type="delete"), host="127.0.0.2").json()["reference"]

    assert (
        DataRequest.objects.get(reference=acme).host,
        DataRequest.objects.get(reference=acme).workspace.schema_name,
    ) == (
        "127.0.0.1",
        "acme",
    )
    assert DataRequest.objects.get(reference=globex).host == "127.0.0.2"
    assert DataRequest.objects.get(reference=globex).workspace.schema_name == "globex"


def test_the_data_team_is_emailed_once_the_request_is_stored(post):
    reference = post().json()["reference"]

    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [DATA_TEAM]
    assert reference in message.subject and reference in message.body
    assert "127.0.0.1" in message.body and "/admin/datarights/datarequest/" in message.body
    # The requester's identity stays in the admin; mailboxes get the reference and a link.
    for personal in ("Ada Quillfeather", "ada.quillfeather@example.org", "acct-93817", "copy of everything"):
        assert personal not in message.body and personal not in message.subject
    stored = DataRequest.objects.get(reference=reference)
    assert stored.notification == DataRequest.Notification.SENT
    assert stored.notified_at is not None and stored.notification_attempts == 1


def test_the_response_never_reveals_the_data_teams_address(post):
    responses = [post(), post(secret="wrong"), post(valid_body(email="nope"))]

    for response in responses:
        assert DATA_TEAM not in response.content.decode()
        assert all(DATA_TEAM not in value for value in response.headers.values())


def test_values_are_normalised(post):
    body = valid_body(
        email="  Ada.Quillfeather@Example.ORG ",
        locale="en-gb",
        country="gb",
        received_at="2025-03-14T09:26:53+00:00",
    )

    stored = DataRequest.objects.get(reference=post(body).json()["reference"])

    assert (stored.email, stored.locale, stored.country) == ("ada.quillfeather@example.org", "en-GB", "GB")


def test_name_account_and_details_may_be_left_out(post):
    body = valid_body(name=..., account=..., details=...)

    response = post(body)

    assert response.status_code == 202
    stored = DataRequest.objects.get(reference=response.json()["reference"])
    assert (stored.name, stored.account, stored.details) == ("", "", "")


@pytest.mark.parametrize("locale", ["pt-BR", "zh-Hant-TW", "yue-HK", "sr-Latn-RS"])
def test_language_region_tags_from_the_iso_lists_are_accepted(post, locale):
    assert post(valid_body(locale=locale)).status_code == 202


# --- the secret -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "",
        "Bearer",
        "Bearer ",
        "Bearer wrong-secret",
        f"Bearer {SECRET}x",
        f"Bearer {SECRET[:-1]}",
        f"Basic {SECRET}",
        SECRET,
        f"Token {SECRET}",
    ],
)
def test_a_missing_or_wrong_secret_is_401(post, authorization):
    response = post(secret=None, authorization=authorization)

    assert response.status_code == 401
    assert error_of(response) == {
        "code": "UNAUTHENTICATED",
        "message": "The data-request secret is missing or invalid.",
    }
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert not DataRequest.objects.exists()
    assert mail.outbox == []


def test_the_secret_is_checked_before_the_body(post):
    response = post({"kind": "nonsense"}, secret="wrong")

    assert response.status_code == 401


def test_the_bearer_scheme_is_case_insensitive(post):
    assert post(secret=None, authorization=f"bearer {SECRET}").status_code == 202


@pytest.mark.parametrize("presented", ["", "anything", SECRET])
def test_with_no_secret_configured_every_request_is_refused(post, settings, presented):
    settings.DATA_REQUEST_SHARED_SECRET = ""

    response = post(secret=None, authorization=f"Bearer {presented}")

    assert response.status_code == 401
    assert error_of(response)["code"] == "UNAUTHENTICATED"
    assert not DataRequest.objects.exists()


# --- the body, field by field ---------------------------------------------------------------------


INVALID = [
    # (field, value; ... removes the field)
    ("kind", ...),
    ("kind", "data_request"),
    ("kind", ""),
    ("kind", None),
    ("type", ...),
    ("type", "erase"),
    ("type", "ACCESS"),
    ("type", 3),
    ("name", "x" * 201),
    ("name", 42),
    ("name", "Ada\x00Quillfeather"),
    ("email", ...),
    ("email", ""),
    ("email", "not-an-address"),
    ("email", "ada@"),
    ("email", "a" * 250 + "@example.org"),
    ("email", ["ada@example.org"]),
    ("account", "a" * 201),
    ("account", False),
    ("details", "d" * 5001),
    ("details", {"text": "hi"}),
    ("locale", ...),
    ("locale", "en"),
    ("locale", "en_GB"),
    ("locale", "english-GB"),
    ("locale", "xx-GB"),
    ("locale", "eng-GB"),
    ("locale", "en-XX"),
    ("locale", "en-GBR"),
    ("locale", "zh-Hanx-TW"),
    ("locale", "en-GB-x-private"),
    ("country", ...),
    ("country", "XX"),
    ("country", "GBR"),
    ("country", "G"),
    ("country", "UK"),
    ("country", "12"),
    ("country", 44),
    ("received_at", ...),
    ("received_at", "yesterday"),
    ("received_at", "2025-03-14"),
    ("received_at", "2025-03-14T09:26:53"),
    ("received_at", "2025-03-14T09:26:53+02:00"),
    ("received_at", "2025-13-14T09:26:53Z"),
    ("received_at", "2999-01-01T00:00:00Z"),
    ("received_at", 1741944413),
]


@pytest.mark.parametrize(("field", "value"), INVALID, ids=[f"{f}={v!r}"[:60] for f, v in INVALID])
def test_an_invalid_field_is_422_naming_it(post, field, value):
    response = post(valid_body(**{field: value}))

    assert response.status_code == 422, response.content
    error = error_of(response)
    assert error["code"] == "VALIDATION_ERROR"
    assert list(error["details"]) == [field]
    assert error["message"].startswith(f"{field}: ")
    assert not DataRequest.objects.exists()
    assert mail.outbox == []


def test_details_up_to_the_limit_are_accepted(post):
    assert post(valid_body(details="d" * 5000)).status_code == 202


def test_every_invalid_field_is_named_at_once(post):
    response = post(valid_body(type="wish", email="nobody", country="ZZ", locale="klingon"))

    assert response.status_code == 422
    assert set(error_of(response)["details"]) == {"type", "email", "country", "locale"}


def test_an_unknown_field_is_named_not_dropped(post):
    response = post(valid_body(phone="+44 20 7946 0000"))

    assert response.status_code == 422
    assert error_of(response)["details"] == {"phone": ["Unknown field."]}


def test_a_body_that_is_not_an_object_is_422(post):
    response = post(raw="[1, 2]")

    assert response.status_code == 422
    assert "non_field_errors" in error_of(response)["details"]


def test_malformed_json_is_400(post):
    response = post(raw='{"kind": ')

    assert response.status_code == 400
    assert error_of(response)["code"] == "BAD_REQUEST"


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (b'{"kind": ' + b"[" * 5000 + b"]" * 5000 + b"}", "non_field_errors"),
        (b'{"kind": "data_rights_request", "details": "\\ud800"}', "details"),
        (b'{"kind": "data_rights_request", "country": 1e400}', "country"),
    ],
)
def test_json_no_store_can_keep_is_422_and_nothing_is_stored(post, raw, field):
    response = post(raw=raw)

    assert response.status_code == 422, response.content
    assert field in error_of(response)["details"]
    assert not DataRequest.objects.exists()


def test_a_body_that_is_not_json_is_415(post):
    response = post(raw="kind=data_rights_request", content_type="application/x-www-form-urlencoded")

    assert response.status_code == 415
    assert error_of(response)["code"] == "UNSUPPORTED_MEDIA_TYPE"


def test_an_oversized_body_is_413(post):
    response = post(raw='{"details": "' + "d" * 70_000 + '"}')

    assert response.status_code == 413
    assert error_of(response)["code"] == "PAYLOAD_TOO_LARGE"


def test_other_methods_are_405(db, configured):
    from django.test import Client

    response = Client(HTTP_HOST="127.0.0.1").get("/api/data-request", HTTP_AUTHORIZATION=f"Bearer {SECRET}")

    assert response.status_code == 405
    assert error_of(response)["code"] == "METHOD_NOT_ALLOWED"


def test_the_public_site_does_not_serve_the_endpoint(post):
    response = post(host="admin.localhost")

    assert response.status_code == 404
    assert not DataRequest.objects.exists()


# --- the same request twice -----------------------------------------------------------------------


def test_the_same_request_sent_again_is_recognised_and_not_notified_twice(post):
    first = post().json()["reference"]
    again = post(valid_body(received_at="2025-03-14T09:27:10Z"))

    assert again.status_code == 202
    assert again.json()["reference"] == first
    assert DataRequest.objects.count() == 1
    assert DataRequest.objects.get().duplicates == 1
    assert len(mail.outbox) == 1


def test_a_different_request_from_the_same_person_is_a_new_one(post):
    first = post().json()["reference"]
    second = post(valid_body(type="delete")).json()["reference"]

    assert first != second
    assert len(mail.outbox) == 2


def test_the_same_request_after_the_window_is_a_new_one(post, settings):
    settings.DATA_REQUEST_DUPLICATE_WINDOW_SECONDS = 0

    first = post().json()["reference"]
    second = post().json()["reference"]

    assert first != second
    assert len(mail.outbox) == 2


def test_the_same_request_at_another_workspace_is_a_new_one(post):
    assert post(host="127.0.0.1").json()["reference"] != post(host="127.0.0.2").json()["reference"]


# --- rate limit -----------------------------------------------------------------------------------


def test_requests_are_rate_limited_per_client_address(post, settings):
    settings.DATA_REQUEST_RATE_LIMIT = 3
    responses = [post(valid_body(type=kind)) for kind in ("access", "delete", "export")]
    # Wrong secrets count too: the limit is what stops guessing.
    refused = post(secret="guess")

    assert [response.status_code for response in responses] == [202, 202, 202]
    assert refused.status_code == 429
    assert error_of(refused)["code"] == "RATE_LIMITED"
    assert 1 <= int(refused.headers["Retry-After"]) <= settings.DATA_REQUEST_RATE_WINDOW_SECONDS
    # Another address is not held back.
    assert post(valid_body(type="object"), remote_addr=new_address()).status_code == 202
