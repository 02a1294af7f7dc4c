"""`/api/agent` (SPEC 4.4, 7.1, 8): acceptance, validation, every refusal of this door, idempotency,
polling, listing and cancelling. The agent itself is not run here (the test's transaction never
commits, so nothing is queued); test_agent_runs.py and tests/test_gateway_live.py run it."""

import time
import uuid
from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from apps.accounts.models import PersonalAccessToken
from apps.apikeys import services as apikeys_services
from apps.apikeys.testing import credentials_for
from apps.gateway import backlog
from apps.gateway.models import Conversation, Turn, WebhookDelivery

pytestmark = pytest.mark.django_db


def error_of(response) -> tuple[int, str | None]:
    body = response.json()
    return response.status_code, body.get("error", {}).get("code")


# --- acceptance -------------------------------------------------------------------------------


def test_a_message_is_accepted_with_202_and_written_with_its_first_turn(make_credentials, send):
    mine = make_credentials()

    response = send(
        mine,
        {
            "message": "Find contacts named Ada",
            "context": {"entity_type": "contact", "action": "search", "entity_id": "42"},
            "metadata": {"source": "nightly-report", "ids": [1, 2]},
        },
    )

    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "accepted"
    assert "queued" in body["message"]
    conversation = Conversation.objects.get(uuid=body["conversation_uuid"])
    assert conversation.status == "open"
    assert conversation.user == mine.user and conversation.key_id == mine.key.pk
    assert conversation.expires_at - conversation.created_at == timedelta(hours=24)
    turn = Turn.objects.get(conversation=conversation)
    assert turn.role == "user"
    assert turn.payload == {
        "message": "Find contacts named Ada",
        "context": {"entity_type": "contact", "action": "search", "entity_id": "42"},
        "metadata": {"source": "nightly-report", "ids": [1, 2]},
    }
    assert response["Location"] == f"/api/agent/{conversation.uuid}"


def test_acceptance_queues_the_agent_once_the_conversation_is_committed(
    make_credentials, send, django_capture_on_commit_callbacks, monkeypatch
):
    queued = []
    monkeypatch.setattr(
        "apps.gateway.tasks.run_conversation.apply_async", lambda **options: queued.append(options)
    )
    mine = make_credentials()

    with django_capture_on_commit_callbacks(execute=True):
        response = send(mine, {"message": "Show contact 7"})

    conversation = Conversation.objects.get(uuid=response.json()["conversation_uuid"])
    (options,) = queued
    sent_at = options.pop("headers")[backlog.SENT_AT]
    assert options == {
        "kwargs": {"conversation_id": conversation.pk, "schema_name": "acme"},
        "countdown": None,
    }
    # Sent with when it was sent: the sweeper tells a lost turn from one waiting (apps.gateway.backlog).
    assert abs(sent_at - time.time()) < 60
    assert conversation.enqueue_failed_at is None


def test_a_message_of_exactly_10000_characters_is_accepted(make_credentials, send):
    response = send(make_credentials(), {"message": "a" * 10_000})

    assert response.status_code == 202


def test_a_message_of_10001_characters_is_422_saying_the_limit(make_credentials, send):
    response = send(make_credentials(), {"message": "a" * 10_001})

    assert response.status_code == 422
    error = response.json()["error"]
    assert "10,001 characters" in error["message"] and "10,000" in error["message"]
    assert "message" in error["details"]
    assert not Conversation.objects.exists()


def test_length_counts_characters_not_bytes(make_credentials, send):
    assert send(make_credentials(), {"message": "é" * 10_000}).status_code == 202
    assert send(make_credentials(), {"message": "😀" * 10_001}).status_code == 422


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({}, "message", "required"),
        ({"message": None}, "message", "required"),
        ({"message": 42}, "message", "string"),
        ({"message": "   "}, "message", "empty"),
        ({"message": "hi", "extra": 1}, "extra", "Unknown field"),
        ({"message": "hi", "context": "contact"}, "context", "object"),
        ({"message": "hi", "context": {"entity": "contact"}}, "context.entity", "Unknown field"),
        ({"message": "hi", "context": {"entity_type": "<script>"}}, "context.entity_type", "word"),
        ({"message": "hi", "context": {"action": 3}}, "context.action", "word"),
        ({"message": "hi", "context": {"entity_id": ""}}, "context.entity_id", "printable"),
        ({"message": "hi", "context": {"entity_id": "x" * 101}}, "context.entity_id", "printable"),
        ({"message": "hi", "context": {"entity_id": True}}, "context.entity_id", "string"),
        ({"message": "hi", "metadata": [1, 2]}, "metadata", "object"),
        ({"message": "hi", "metadata": {"blob": "x" * 17_000}}, "metadata", "bytes"),
        ({"message": "hi", "metadata": {f"k{i}": i for i in range(51)}}, "metadata", "keys"),
        ({"message": "hi", "metadata": {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}}, "metadata", "nests"),
    ],
)
def test_invalid_fields_are_422_naming_the_field_and_nothing_is_written(
    make_credentials, send, body, field, words
):
    response = send(make_credentials(), body)

    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert field in error["details"]
    assert words in " ".join(error["details"][field])
    assert field in error["message"]
    assert not Conversation.objects.exists()


def test_every_bad_field_is_reported_at_once(make_credentials, send):
    response = send(make_credentials(), {"message": "", "metadata": 3, "context": {"action": "!"}})

    assert set(response.json()["error"]["details"]) == {"message", "metadata", "context.action"}


def test_a_numeric_entity_id_is_taken_as_its_text(make_credentials, send):
    response = send(make_credentials(), {"message": "show it", "context": {"entity_id": 42}})

    conversation = Conversation.objects.get(uuid=response.json()["conversation_uuid"])
    assert conversation.context == {"entity_id": "42"}


def test_a_body_that_is_not_json_is_400(make_credentials, acme_client):
    response = acme_client.post(
        "/api/agent", data="{not json", content_type="application/json", **make_credentials().headers()
    )

    assert error_of(response) == (400, "BAD_REQUEST")


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        (b'{"message": "hi \\ud800"}', "message", "lone UTF-16 surrogate"),
        (b'{"message": "hi", "metadata": {"a": "x\\u0000"}}', "metadata.a", "NUL"),
        (b'{"message": "hi", "metadata": {"a\\u0000": 1}}', "metadata", "a key contains a NUL"),
        (b'{"message": "hi", "metadata": {"a": [1, 1e400]}}', "metadata.a[1]", "too large"),
        (b'{"message": "hi", "metadata": {"a": -1e400}}', "metadata.a", "too large"),
        (b'{"message": "hi", "metadata": {"a": 99999999999999999999}}', "metadata.a", "64 bits"),
        (
            b'{"message": "hi", "metadata": {"a": ' + b"[" * 5000 + b"]" * 5000 + b"}}",
            "non_field_errors",
            "deeper",
        ),
    ],
)
def test_json_no_store_can_keep_is_422_naming_the_place_and_nothing_is_written(
    make_credentials, acme_client, body, field, words
):
    response = acme_client.post(
        "/api/agent", data=body, content_type="application/json", **make_credentials().headers()
    )

    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert words in " ".join(error["details"][field])
    assert not Conversation.objects.exists()


def test_a_body_of_thousands_of_unknown_fields_is_refused_in_a_few_lines(make_credentials, send):
    response = send(make_credentials(), {"message": "hi", **{f"x{number}": 1 for number in range(10_000)}})

    assert response.status_code == 422
    assert len(response.content) < 5_000
    assert "more fields" in response.json()["error"]["message"]
    assert not Conversation.objects.exists()


def test_a_body_that_is_not_a_json_object_is_422(make_credentials, send):
    assert error_of(send(make_credentials(), ["message"])) == (422, "VALIDATION_ERROR")


def test_a_form_body_is_415(make_credentials, acme_client):
    response = acme_client.post("/api/agent", data={"message": "hi"}, **make_credentials().headers())

    assert error_of(response) == (415, "UNSUPPORTED_MEDIA_TYPE")


def test_a_body_over_256_kib_is_413(make_credentials, acme_client):
    response = acme_client.post(
        "/api/agent",
        data='{"message": "' + "a" * (300 * 1024) + '"}',
        content_type="application/json",
        **make_credentials().headers(),
    )

    assert error_of(response) == (413, "PAYLOAD_TOO_LARGE")


# --- every refusal of SPEC 7.1 for this door -----------------------------------------------------


def test_no_access_token_is_401_unauthenticated(make_credentials, acme_client):
    mine = make_credentials()

    response = acme_client.post(
        "/api/agent", data={"message": "hi"}, content_type="application/json", HTTP_X_API_KEY=mine.raw_key
    )

    assert error_of(response) == (401, "UNAUTHENTICATED")
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_an_expired_access_token_is_401_unauthenticated(make_credentials, send):
    mine = make_credentials()
    PersonalAccessToken.objects.filter(pk=mine.token_id).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )

    assert error_of(send(mine, {"message": "hi"})) == (401, "UNAUTHENTICATED")


def test_no_api_key_is_401_invalid_api_key(make_credentials, acme_client):
    mine = make_credentials()

    response = acme_client.post(
        "/api/agent",
        data={"message": "hi"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {mine.token}",
    )

    assert error_of(response) == (401, "INVALID_API_KEY")


def test_a_made_up_api_key_is_401_invalid_api_key(make_credentials, acme_client):
    mine = make_credentials()

    response = acme_client.post(
        "/api/agent",
        data={"message": "hi"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {mine.token}",
        HTTP_X_API_KEY="atr_" + "x" * 36,
    )

    assert error_of(response) == (401, "INVALID_API_KEY")


def test_someone_elses_key_is_403_key_owner_mismatch(make_credentials, acme_client):
    mine, theirs = make_credentials("member"), make_credentials("viewer")

    response = acme_client.post(
        "/api/agent",
        data={"message": "hi"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {mine.token}",
        HTTP_X_API_KEY=theirs.raw_key,
    )

    assert error_of(response) == (403, "KEY_OWNER_MISMATCH")


def test_a_revoked_key_is_403_key_revoked(make_credentials, send):
    mine = make_credentials()
    apikeys_services.api_key_revoke(actor=mine.user, key=mine.key)

    assert error_of(send(mine, {"message": "hi"})) == (403, "KEY_REVOKED")


def test_a_spent_budget_is_429_budget_exceeded_and_nothing_is_accepted(make_credentials, send):
    mine = make_credentials(budget_usd_cents=1, budget_period="daily")
    reservation = apikeys_services.budget_reserve(key=mine.key, micro_usd=10_000)
    apikeys_services.budget_settle(reservation=reservation, micro_usd=10_000)

    response = send(mine, {"message": "hi"})

    assert error_of(response) == (429, "BUDGET_EXCEEDED")
    assert "budget" in response.json()["error"]["message"]
    assert int(response["Retry-After"]) > 0
    assert not Conversation.objects.exists()


def test_a_spent_budget_still_lets_the_owner_poll_list_and_cancel(make_credentials, send, acme_client):
    mine = make_credentials(budget_usd_cents=1, budget_period="daily")
    accepted = send(mine, {"message": "hi"}).json()
    reservation = apikeys_services.budget_reserve(key=mine.key, micro_usd=10_000)
    apikeys_services.budget_settle(reservation=reservation, micro_usd=10_000)
    stranger = make_credentials("admin", budget_usd_cents=0)

    polled = acme_client.get(f"/api/agent/{accepted['conversation_uuid']}", **mine.headers())
    listed = acme_client.get("/api/agent", **mine.headers())
    cancelled = acme_client.post(f"/api/agent/{accepted['conversation_uuid']}/cancel", **mine.headers())
    refused = send(mine, {"message": "another"})
    not_theirs = acme_client.get(f"/api/agent/{accepted['conversation_uuid']}", **stranger.headers())

    assert polled.status_code == listed.status_code == cancelled.status_code == 200
    assert error_of(refused) == (429, "BUDGET_EXCEEDED")
    assert error_of(not_theirs) == (404, "NOT_FOUND")


def test_polling_checks_the_token_and_key_like_sending(make_credentials, send, acme_client):
    mine, theirs = make_credentials("member"), make_credentials("viewer")
    accepted = send(mine, {"message": "hi"}).json()
    path = f"/api/agent/{accepted['conversation_uuid']}"
    apikeys_services.api_key_revoke(actor=theirs.user, key=theirs.key)

    assert error_of(acme_client.get(path)) == (401, "UNAUTHENTICATED")
    assert error_of(acme_client.get(path, HTTP_AUTHORIZATION=f"Bearer {mine.token}")) == (
        401,
        "INVALID_API_KEY",
    )
    mismatched = acme_client.get(
        path, HTTP_AUTHORIZATION=f"Bearer {mine.token}", HTTP_X_API_KEY=theirs.raw_key
    )
    assert error_of(mismatched) == (403, "KEY_OWNER_MISMATCH")
    assert error_of(acme_client.get(path, **theirs.headers())) == (403, "KEY_REVOKED")


def test_a_budget_of_zero_is_429_budget_exceeded(make_credentials, send):
    assert error_of(send(make_credentials(budget_usd_cents=0), {"message": "hi"})) == (429, "BUDGET_EXCEEDED")


def test_authentication_is_checked_before_the_body(acme_client):
    response = acme_client.post("/api/agent", data={"message": "a" * 20_000}, content_type="application/json")

    assert error_of(response) == (401, "UNAUTHENTICATED")


def test_an_unknown_conversation_is_404_not_found(make_credentials, acme_client):
    mine = make_credentials()

    for wanted in (uuid.uuid4(), "not-a-uuid"):
        response = acme_client.get(f"/api/agent/{wanted}", **mine.headers())
        assert error_of(response) == (404, "NOT_FOUND")


# --- idempotency ----------------------------------------------------------------------------------


def test_a_retried_post_with_the_same_idempotency_key_returns_the_first_answer(make_credentials, send):
    mine = make_credentials()
    body = {"message": "Create a contact Ada Lovelace", "metadata": {"run": 1}}

    first = send(mine, body, HTTP_IDEMPOTENCY_KEY="run-2026-03-10")
    again = send(mine, body, HTTP_IDEMPOTENCY_KEY="run-2026-03-10")

    assert first.status_code == again.status_code == 202
    assert first.json() == again.json()
    assert again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert Conversation.objects.count() == 1


def test_the_same_idempotency_key_with_another_body_is_422(make_credentials, send):
    mine = make_credentials()
    send(mine, {"message": "one"}, HTTP_IDEMPOTENCY_KEY="k1")

    response = send(mine, {"message": "two"}, HTTP_IDEMPOTENCY_KEY="k1")

    assert error_of(response) == (422, "VALIDATION_ERROR")
    assert "Idempotency-Key" in response.json()["error"]["details"]
    assert Conversation.objects.count() == 1


def test_without_an_idempotency_key_each_post_is_a_new_conversation(make_credentials, send):
    mine = make_credentials()

    first, second = send(mine, {"message": "same"}), send(mine, {"message": "same"})

    assert first.json()["conversation_uuid"] != second.json()["conversation_uuid"]


def test_idempotency_keys_are_per_api_key(make_credentials, send):
    mine = make_credentials()
    other_key = credentials_for(mine.user)

    first = send(mine, {"message": "same"}, HTTP_IDEMPOTENCY_KEY="k")
    second = send(other_key, {"message": "same"}, HTTP_IDEMPOTENCY_KEY="k")

    assert first.json()["conversation_uuid"] != second.json()["conversation_uuid"]


def test_an_expired_conversation_frees_its_idempotency_key(make_credentials, send):
    mine = make_credentials()
    first = send(mine, {"message": "same"}, HTTP_IDEMPOTENCY_KEY="k")
    Conversation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    second = send(mine, {"message": "same"}, HTTP_IDEMPOTENCY_KEY="k")

    assert second.status_code == 202 and "Idempotent-Replayed" not in second
    assert second.json()["conversation_uuid"] != first.json()["conversation_uuid"]


@pytest.mark.parametrize("value", ["", " ", "x" * 256, "caf\u00e9"])
def test_a_malformed_idempotency_key_is_422(make_credentials, send, value):
    assert error_of(send(make_credentials(), {"message": "hi"}, HTTP_IDEMPOTENCY_KEY=value)) == (
        422,
        "VALIDATION_ERROR",
    )


# --- polling ----------------------------------------------------------------------------------


def _iso(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    assert parsed.utcoffset() is not None, f"{value} has no offset"
    return parsed


def test_the_poll_answers_the_conversation_of_spec_2_1_with_retry_after_while_open(
    make_credentials, send, acme_client
):
    mine = make_credentials(response_url="http://127.0.0.1:9/hook")
    accepted = send(mine, {"message": "Find Ada"}).json()

    response = acme_client.get(f"/api/agent/{accepted['conversation_uuid']}", **mine.headers())

    assert response.status_code == 200
    body = response.json()
    assert body["conversation_uuid"] == accepted["conversation_uuid"]
    assert body["status"] == "open"
    assert [turn["role"] for turn in body["turns"]] == ["user"]
    assert body["turns"][0]["payload"] == {"message": "Find Ada"}
    assert body["webhook"] == {
        "status": "pending",
        "delivered_at": None,
        "attempts": 0,
        "next_attempt_at": None,
        "last_status_code": None,
    }
    assert body["resolved_at"] is None and body["error"] is None
    assert _iso(body["expires_at"]) - _iso(body["created_at"]) == timedelta(hours=24)
    _iso(body["turns"][0]["timestamp"])
    assert body["cost"] == {"micro_usd": 0, "usd_cents": 0.0, "model_calls": 0, "tool_calls": 0}
    assert response["Retry-After"] == "1"


def test_a_resolved_conversation_has_the_reply_in_its_final_turn_and_no_retry_after(
    make_credentials, send, acme_client
):
    mine = make_credentials()
    accepted = send(mine, {"message": "Find Ada"}).json()
    conversation = Conversation.objects.get(uuid=accepted["conversation_uuid"])
    now = timezone.now()
    Conversation.objects.filter(pk=conversation.pk).update(
        status="resolved", resolved_at=now, cost_micro_usd=12_345
    )
    Turn.objects.create(conversation=conversation, position=1, role="agent", payload={"content": "Found 1."})

    response = acme_client.get(f"/api/agent/{conversation.uuid}", **mine.headers())

    body = response.json()
    assert body["status"] == "resolved"
    assert body["turns"][-1] == {
        "role": "agent",
        "payload": {"content": "Found 1."},
        "timestamp": body["turns"][-1]["timestamp"],
    }
    assert _iso(body["resolved_at"]) == now
    assert body["webhook"]["status"] == "none"
    assert body["cost"]["micro_usd"] == 12_345 and body["cost"]["usd_cents"] == 1.2345
    assert "Retry-After" not in response


def test_another_persons_conversation_is_404(make_credentials, send, acme_client):
    mine, theirs = make_credentials("member"), make_credentials("admin")
    accepted = send(theirs, {"message": "secret"}).json()

    response = acme_client.get(f"/api/agent/{accepted['conversation_uuid']}", **mine.headers())

    assert error_of(response) == (404, "NOT_FOUND")


def test_the_same_persons_other_key_sees_the_conversation(make_credentials, send, acme_client):
    mine = make_credentials()
    other = credentials_for(mine.user)
    accepted = send(mine, {"message": "hi"}).json()

    response = acme_client.get(f"/api/agent/{accepted['conversation_uuid']}", **other.headers())

    assert response.status_code == 200


def test_a_conversation_of_another_workspace_is_404(make_credentials, send, globex):
    mine = make_credentials()
    accepted = send(mine, {"message": "hi"}).json()
    connection.set_schema_to_public()
    with schema_context("globex"):
        from apps.accounts.models import User

        stranger = credentials_for(User.objects.get(email="owner@globex.example"))
    connection.set_schema_to_public()

    response = Client(HTTP_HOST="127.0.0.2").get(
        f"/api/agent/{accepted['conversation_uuid']}", **stranger.headers()
    )
    acme_key_on_globex = Client(HTTP_HOST="127.0.0.2").get(
        f"/api/agent/{accepted['conversation_uuid']}", **mine.headers()
    )

    assert error_of(response) == (404, "NOT_FOUND")
    # Acme's credentials mean nothing on Globex's host.
    assert error_of(acme_key_on_globex) == (401, "UNAUTHENTICATED")


def test_an_expired_conversation_is_404_before_it_is_removed(make_credentials, send, acme_client):
    mine = make_credentials()
    accepted = send(mine, {"message": "hi"}).json()
    Conversation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    response = acme_client.get(f"/api/agent/{accepted['conversation_uuid']}", **mine.headers())

    assert error_of(response) == (404, "NOT_FOUND")


# --- listing ----------------------------------------------------------------------------------


def test_the_list_shows_the_callers_conversations_newest_first_a_page_at_a_time(
    make_credentials, send, acme_client
):
    mine, theirs = make_credentials("member"), make_credentials("admin")
    sent = [send(mine, {"message": f"message {index}"}).json()["conversation_uuid"] for index in range(5)]
    send(theirs, {"message": "not yours"})
    Conversation.objects.filter(uuid=sent[0]).update(status="resolved")

    first = acme_client.get("/api/agent?limit=3", **mine.headers()).json()
    second = acme_client.get(f"/api/agent?limit=3&cursor={first['next_cursor']}", **mine.headers()).json()
    resolved = acme_client.get("/api/agent?status=resolved", **mine.headers()).json()

    assert [item["conversation_uuid"] for item in first["data"] + second["data"]] == list(reversed(sent))
    assert second["next_cursor"] is None
    assert first["data"][0]["message"] == "message 4" and "turns" not in first["data"][0]
    assert [item["conversation_uuid"] for item in resolved["data"]] == [sent[0]]


@pytest.mark.parametrize("query", ["status=done", "limit=0", "limit=101", "limit=x", "cursor=bogus"])
def test_bad_list_parameters_are_422(make_credentials, acme_client, query):
    response = acme_client.get(f"/api/agent?{query}", **make_credentials().headers())

    assert error_of(response) == (422, "VALIDATION_ERROR")


# --- cancelling -------------------------------------------------------------------------------


def test_cancelling_an_open_conversation_fails_it_at_once_and_queues_its_webhook(
    make_credentials, send, acme_client
):
    mine = make_credentials(response_url="http://127.0.0.1:9/hook")
    accepted = send(mine, {"message": "hi"}).json()

    response = acme_client.post(f"/api/agent/{accepted['conversation_uuid']}/cancel", **mine.headers())

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "failed"
    assert body["error"]["code"] == "CANCELLED"
    _iso(body["cancelled_at"])
    assert body["webhook"]["status"] == "pending"
    delivery = WebhookDelivery.objects.get(conversation_uuid=accepted["conversation_uuid"])
    assert delivery.event == "failed"
    assert '"status":"failed"' in delivery.body and "cancelled" in delivery.body


def test_cancelling_twice_answers_the_same_and_a_finished_one_is_409(make_credentials, send, acme_client):
    mine = make_credentials()
    cancelled = send(mine, {"message": "one"}).json()["conversation_uuid"]
    done = send(mine, {"message": "two"}).json()["conversation_uuid"]
    Conversation.objects.filter(uuid=done).update(status="resolved", resolved_at=timezone.now())

    acme_client.post(f"/api/agent/{cancelled}/cancel", **mine.headers())
    again = acme_client.post(f"/api/agent/{cancelled}/cancel", **mine.headers())
    refused = acme_client.post(f"/api/agent/{done}/cancel", **mine.headers())

    assert again.status_code == 200 and again.json()["error"]["code"] == "CANCELLED"
    assert error_of(refused) == (409, "CONVERSATION_FINISHED")


def test_cancelling_someone_elses_conversation_is_404(make_credentials, send, acme_client):
    mine, theirs = make_credentials("member"), make_credentials("admin")
    accepted = send(theirs, {"message": "hi"}).json()

    response = acme_client.post(f"/api/agent/{accepted['conversation_uuid']}/cancel", **mine.headers())

    assert error_of(response) == (404, "NOT_FOUND")
    assert Conversation.objects.get(uuid=accepted["conversation_uuid"]).status == "open"
