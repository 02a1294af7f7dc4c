"""`/api/api-keys`: create, list, details, update, revoke, roll the signing secret (SPEC 4.5)."""

import json

import pytest

from apps.apikeys.models import ApiKey
from apps.core import encryption, secrets

pytestmark = pytest.mark.django_db


def post(client, path, body, **headers):
    return client.post(path, data=json.dumps(body), content_type="application/json", **headers)


def put(client, path, body, **headers):
    return client.put(path, data=json.dumps(body), content_type="application/json", **headers)


def test_creating_a_key_with_no_fields_gives_the_key_and_secret_once(acme_client, bearer):
    response = post(acme_client, "/api/api-keys", {}, **bearer())

    assert response.status_code == 201
    body = response.json()
    assert body["key"].startswith("atr_") and secrets.is_well_formed(body["key"], "atr")
    assert body["signing_secret"].startswith("atw_")
    assert body["label"] == "API key"
    assert body["status"] == "active"
    assert body["budget_usd_cents"] is None and body["budget_period"] == "monthly"
    assert body["response_url"] is None
    assert body["last_four"] == body["key"][-4:]
    assert response["Cache-Control"] == "no-store"

    again = acme_client.get(f"/api/api-keys/{body['id']}", **bearer()).json()
    assert "key" not in again and "signing_secret" not in again
    assert body["key"] not in json.dumps(again)


def test_a_key_is_pinned_to_a_profile_and_unpinned_by_null(acme_client, bearer):
    body = post(acme_client, "/api/api-keys", {"profile": "sales"}, **bearer()).json()
    assert body["profile"] == "sales"

    unknown = put(acme_client, f"/api/api-keys/{body['id']}", {"profile": "everything"}, **bearer())
    assert unknown.status_code == 422 and "operations" in json.dumps(unknown.json())
    assert ApiKey.objects.get(pk=body["id"]).profile == "sales"

    cleared = put(acme_client, f"/api/api-keys/{body['id']}", {"profile": None}, **bearer()).json()
    assert cleared["profile"] is None and ApiKey.objects.get(pk=body["id"]).profile == ""


def test_the_key_is_stored_only_as_a_digest_and_the_secret_only_encrypted(acme_client, bearer):
    body = post(acme_client, "/api/api-keys", {"label": "stored"}, **bearer()).json()

    stored = ApiKey.objects.filter(pk=body["id"]).values().get()
    as_text = json.dumps(stored, default=str)
    assert body["key"] not in as_text
    assert body["signing_secret"] not in as_text
    assert stored["digest"] == secrets.digest(body["key"])
    assert encryption.decrypt(stored["signing_secret_encrypted"]) == body["signing_secret"]


def test_all_fields_are_taken_on_create(acme_client, bearer):
    response = post(
        acme_client,
        "/api/api-keys",
        {
            "label": "Nightly report",
            "response_url": "http://127.0.0.1:9999/hook",
            "budget_usd_cents": 500,
            "budget_period": "daily",
        },
        **bearer(),
    )

    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["label"], body["response_url"], body["budget_usd_cents"], body["budget_period"]) == (
        "Nightly report",
        "http://127.0.0.1:9999/hook",
        500,
        "daily",
    )
    assert body["usage"]["period"]["remaining_micro_usd"] == 5_000_000
    assert body["usage"]["period"]["resets_at"] is not None


def test_the_list_holds_only_the_callers_keys(acme_client, bearer):
    mine = post(acme_client, "/api/api-keys", {"label": "mine"}, **bearer("member")).json()
    post(acme_client, "/api/api-keys", {"label": "theirs"}, **bearer("admin"))

    listed = acme_client.get("/api/api-keys", **bearer("member")).json()["data"]

    assert [key["id"] for key in listed] == [mine["id"]]
    assert "key" not in listed[0]


def test_another_persons_key_is_not_found_for_every_method(acme_client, bearer):
    theirs = post(acme_client, "/api/api-keys", {"label": "theirs"}, **bearer("owner")).json()
    path = f"/api/api-keys/{theirs['id']}"
    me = bearer("admin")

    responses = [
        acme_client.get(path, **me),
        put(acme_client, path, {"label": "taken"}, **me),
        acme_client.delete(path, **me),
        post(acme_client, f"{path}/roll-signing-secret", {}, **me),
    ]

    assert [r.status_code for r in responses] == [404, 404, 404, 404]
    assert all(r.json()["error"]["code"] == "NOT_FOUND" for r in responses)
    assert ApiKey.objects.get(pk=theirs["id"]).label == "theirs"
    assert ApiKey.objects.get(pk=theirs["id"]).revoked_at is None


def test_an_acme_key_id_is_not_found_at_globex(acme_client, globex_client, bearer):
    from django_tenants.utils import schema_context

    from apps.accounts.models import User
    from apps.accounts.services import access_token_create

    mine = post(acme_client, "/api/api-keys", {}, **bearer("owner")).json()
    with schema_context("globex"):
        _token, raw = access_token_create(user=User.objects.get(email="owner@globex.example"), name="t")

    response = globex_client.get(f"/api/api-keys/{mine['id']}", HTTP_AUTHORIZATION=f"Bearer {raw}")

    assert response.status_code == 404


def test_details_carry_usage_and_thirty_days(acme_client, bearer):
    created = post(acme_client, "/api/api-keys", {"budget_usd_cents": 1000}, **bearer()).json()

    body = acme_client.get(f"/api/api-keys/{created['id']}", **bearer()).json()

    assert set(body["usage"]) == {
        "period",
        "spent_today_micro_usd",
        "spent_total_micro_usd",
        "conversations_today",
        "conversations_total",
        "calls_total",
        "last_used_at",
    }
    assert body["usage"]["period"]["budget_used_percent"] == 0.0
    assert len(body["daily_usage"]) == 30
    assert body["daily_usage"][-1]["spent_micro_usd"] == 0


def test_update_changes_only_what_is_sent(acme_client, bearer):
    me = bearer()
    created = post(
        acme_client, "/api/api-keys", {"label": "a", "budget_usd_cents": 100, "budget_period": "daily"}, **me
    ).json()

    response = put(acme_client, f"/api/api-keys/{created['id']}", {"budget_usd_cents": 250}, **me)

    assert response.status_code == 200
    body = response.json()
    assert (body["label"], body["budget_usd_cents"], body["budget_period"]) == ("a", 250, "daily")


def test_update_can_clear_the_budget_and_the_webhook(acme_client, bearer):
    me = bearer()
    created = post(
        acme_client,
        "/api/api-keys",
        {"response_url": "http://localhost:8080/x", "budget_usd_cents": 100},
        **me,
    ).json()

    body = put(
        acme_client, f"/api/api-keys/{created['id']}", {"response_url": None, "budget_usd_cents": None}, **me
    ).json()

    assert body["response_url"] is None and body["budget_usd_cents"] is None
    assert body["usage"]["period"]["remaining_micro_usd"] is None


def test_patch_is_accepted_like_put(acme_client, bearer):
    me = bearer()
    created = post(acme_client, "/api/api-keys", {}, **me).json()

    response = acme_client.patch(
        f"/api/api-keys/{created['id']}",
        data=json.dumps({"label": "patched"}),
        content_type="application/json",
        **me,
    )

    assert response.status_code == 200 and response.json()["label"] == "patched"


def test_delete_revokes_and_keeps_the_key_for_its_history(acme_client, bearer):
    me = bearer()
    created = post(acme_client, "/api/api-keys", {"label": "gone"}, **me).json()

    response = acme_client.delete(f"/api/api-keys/{created['id']}", **me)

    assert response.status_code == 200
    assert response.json()["status"] == "revoked" and response.json()["revoked_at"]
    assert acme_client.get(f"/api/api-keys/{created['id']}", **me).json()["status"] == "revoked"
    assert acme_client.delete(f"/api/api-keys/{created['id']}", **me).status_code == 200
    listed = acme_client.get("/api/api-keys?status=revoked", **me).json()["data"]
    assert [key["id"] for key in listed] == [created["id"]]
    assert acme_client.get("/api/api-keys?status=active", **me).json()["data"] == []


def test_a_revoked_key_cannot_be_changed(acme_client, bearer):
    me = bearer()
    created = post(acme_client, "/api/api-keys", {}, **me).json()
    acme_client.delete(f"/api/api-keys/{created['id']}", **me)

    response = put(acme_client, f"/api/api-keys/{created['id']}", {"label": "back"}, **me)
    rolled = post(acme_client, f"/api/api-keys/{created['id']}/roll-signing-secret", {}, **me)

    assert response.status_code == 403 and response.json()["error"]["code"] == "KEY_REVOKED"
    assert rolled.status_code == 403 and rolled.json()["error"]["code"] == "KEY_REVOKED"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"budget_usd_cents": -1}, "budget_usd_cents"),
        ({"budget_usd_cents": "500"}, "budget_usd_cents"),
        ({"budget_usd_cents": 1.5}, "budget_usd_cents"),
        ({"budget_usd_cents": True}, "budget_usd_cents"),
        ({"budget_usd_cents": 10**11}, "budget_usd_cents"),
        ({"budget_period": "weekly"}, "budget_period"),
        ({"label": "x" * 101}, "label"),
        ({"label": 12}, "label"),
        ({"response_url": "ftp://example.com/"}, "response_url"),
        ({"response_url": "http://93.184.215.14/hook"}, "response_url"),
        ({"response_url": "https://10.0.0.5/hook"}, "response_url"),
        ({"response_url": "https://169.254.169.254/latest/meta-data"}, "response_url"),
        ({"response_url": "not a url"}, "response_url"),
        ({"budget_cents": 5}, "budget_cents"),
    ],
)
def test_invalid_fields_are_422_naming_the_field_and_nothing_is_created(acme_client, bearer, body, field):
    before = ApiKey.objects.count()

    response = post(acme_client, "/api/api-keys", body, **bearer())

    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert field in error["details"]
    assert error["message"]
    assert ApiKey.objects.count() == before


@pytest.mark.parametrize("raw", ["[1, 2]", '"text"', "42"])
def test_a_body_that_is_not_an_object_is_422(acme_client, bearer, raw):
    response = acme_client.post("/api/api-keys", data=raw, content_type="application/json", **bearer())

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


DEEP = b"[" * 5000 + b"]" * 5000


@pytest.mark.parametrize(
    ("raw", "field", "words"),
    [
        (b'{"budget_usd_cents": 1e400}', "budget_usd_cents", "too large"),
        (b'{"budget_usd_cents": -1e400}', "budget_usd_cents", "too large"),
        (b'{"label": "a\\ud800"}', "label", "surrogate"),
        (b'{"label": ' + DEEP + b"}", "non_field_errors", "deeper"),
        (DEEP, "non_field_errors", "deeper"),
    ],
)
def test_json_no_store_can_keep_is_422_naming_the_place_and_creates_nothing(
    acme_client, bearer, raw, field, words
):
    before = ApiKey.objects.count()
    response = acme_client.post("/api/api-keys", data=raw, content_type="application/json", **bearer())

    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert words in " ".join(error["details"][field])
    assert ApiKey.objects.count() == before


def test_an_update_nested_thousands_deep_is_422_and_changes_nothing(acme_client, bearer):
    me = bearer()
    key = post(acme_client, "/api/api-keys", {"label": "kept"}, **me).json()

    response = acme_client.put(
        f"/api/api-keys/{key['id']}", data=b'{"label": ' + DEEP + b"}", content_type="application/json", **me
    )

    assert response.status_code == 422 and response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert ApiKey.objects.get(pk=key["id"]).label == "kept"


def test_a_body_of_thousands_of_unknown_fields_is_refused_in_a_few_lines(acme_client, bearer):
    body = {f"unknown{number}": number for number in range(20_000)}

    response = post(acme_client, "/api/api-keys", body, **bearer())

    assert response.status_code == 422
    assert len(response.content) < 5_000
    assert response.json()["error"]["message"].endswith("more fields.)")


def test_broken_json_is_400(acme_client, bearer):
    response = acme_client.post("/api/api-keys", data="{nope", content_type="application/json", **bearer())

    assert response.status_code == 400 and response.json()["error"]["code"] == "BAD_REQUEST"


def test_an_unknown_status_filter_is_422(acme_client, bearer):
    response = acme_client.get("/api/api-keys?status=deleted", **bearer())

    assert response.status_code == 422 and "status" in response.json()["error"]["details"]


def test_without_a_token_it_is_401_unauthenticated_with_a_challenge(acme_client):
    response = acme_client.get("/api/api-keys")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHENTICATED"
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_bad_token_is_401_unauthenticated(acme_client):
    response = acme_client.get("/api/api-keys", HTTP_AUTHORIZATION="Bearer atp_" + "x" * 36)

    assert response.status_code == 401 and response.json()["error"]["code"] == "UNAUTHENTICATED"


def test_the_signed_in_session_works_with_csrf(people):
    from django.test import Client

    browser = Client(HTTP_HOST="127.0.0.1", enforce_csrf_checks=True)
    browser.force_login(people["viewer"])

    listed = browser.get("/api/api-keys")
    refused = browser.post("/api/api-keys", data="{}", content_type="application/json")
    browser.get("/settings/api-keys/")  # sets the CSRF cookie
    created = browser.post(
        "/api/api-keys",
        data="{}",
        content_type="application/json",
        HTTP_X_CSRFTOKEN=browser.cookies["atrium_csrf"].value,
    )

    assert listed.status_code == 200 and listed.json() == {"data": []}
    assert refused.status_code == 403
    assert created.status_code == 201


def test_rolling_the_signing_secret_returns_the_new_one_once(acme_client, bearer):
    me = bearer()
    created = post(acme_client, "/api/api-keys", {}, **me).json()

    response = post(
        acme_client, f"/api/api-keys/{created['id']}/roll-signing-secret", {"overlap_hours": 2}, **me
    )

    assert response.status_code == 200
    body = response.json()
    assert body["signing_secret"].startswith("atw_") and body["signing_secret"] != created["signing_secret"]
    assert body["previous_signing_secret_expires_at"] is not None
    assert response["Cache-Control"] == "no-store"


@pytest.mark.parametrize("overlap", [-1, 169, "24"])
def test_a_bad_overlap_is_422(acme_client, bearer, overlap):
    me = bearer()
    created = post(acme_client, "/api/api-keys", {}, **me).json()

    response = post(
        acme_client, f"/api/api-keys/{created['id']}/roll-signing-secret", {"overlap_hours": overlap}, **me
    )

    assert response.status_code == 422 and "overlap_hours" in response.json()["error"]["details"]


def test_the_page_says_a_zero_budget_pauses_the_key_and_states_the_limits_in_dollars(people):
    from django.test import Client

    from apps.apikeys.forms import ApiKeyForm

    browser = Client(HTTP_HOST="127.0.0.1")
    browser.force_login(people["viewer"])
    browser.post("/settings/api-keys/", {"label": "Paused key", "budget_usd": "0", "budget_period": "daily"})

    listed = browser.get("/settings/api-keys/").content.decode()
    too_much = ApiKeyForm({"label": "x", "budget_usd": "100000000.01", "budget_period": "daily"})
    negative = ApiKeyForm({"label": "x", "budget_usd": "-5", "budget_period": "daily"})

    assert "paused: nothing may be spent" in listed and "<progress" not in listed
    assert too_much.errors["budget_usd"] == ["The budget is at most $100,000,000.00."]
    assert negative.errors["budget_usd"] == ["The budget cannot be negative."]
