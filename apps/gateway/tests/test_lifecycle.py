"""The conversation's states and who moves them: the worker's lease and its fencing, cancelling
while the agent works, the sweeper that recovers conversations of workers that died, expiry, and
the API key's page that shows deliveries with a redeliver button."""

from datetime import timedelta

import pytest
from django.db import InterfaceError, OperationalError
from django.test import Client
from django.utils import timezone

from apps.apikeys import services as apikeys_services
from apps.apikeys.models import ApiKey
from apps.gateway import backlog, errors, services
from apps.gateway.agent import runner
from apps.gateway.models import AgentStep, Conversation, Turn, WebhookDelivery

from .conftest import reply_of

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_model(settings):
    settings.GATEWAY_MODEL_BACKEND = ""


def test_a_claimed_conversation_is_processing_and_cannot_be_claimed_twice(make_credentials, conversation_of):
    conversation = conversation_of(make_credentials(), "List contacts")

    claim = services.conversation_claim(conversation_id=conversation.pk, seconds=60)

    assert claim is not None and claim.first_run
    current = Conversation.objects.get(pk=conversation.pk)
    assert current.status == "processing" and current.attempts == 1 and current.started_at is not None
    assert services.conversation_claim(conversation_id=conversation.pk, seconds=60) is None


def test_a_worker_that_lost_its_lease_cannot_write(make_credentials, conversation_of):
    conversation = conversation_of(make_credentials(), "List contacts")
    claim = services.conversation_claim(conversation_id=conversation.pk, seconds=60)

    with pytest.raises(services.LeaseLost), services.locked(conversation.pk, "another-token"):
        pass
    Conversation.objects.filter(pk=conversation.pk).update(lease_token="taken-over")
    with pytest.raises(services.LeaseLost):
        services.conversation_finish(
            conversation_id=conversation.pk, token=claim.token, status="resolved", reply="late"
        )
    assert not Turn.objects.filter(conversation=conversation, role="agent").exists()


def test_the_first_run_counts_the_conversation_on_the_keys_usage(make_credentials, conversation_of):
    mine = make_credentials()
    conversation = conversation_of(mine, "List contacts")

    runner.run_conversation(conversation.pk)

    usage = apikeys_services.selectors.key_usage(key=ApiKey.objects.get(pk=mine.key.pk))
    assert usage.conversations_today == 1


def test_cancelling_while_the_agent_works_stops_it_at_its_next_step(make_credentials, conversation_of):
    mine = make_credentials()
    conversation = conversation_of(mine, "List contacts")
    claim = services.conversation_claim(conversation_id=conversation.pk, seconds=60)

    services.conversation_cancel(conversation=conversation)

    with pytest.raises(services.LeaseLost):
        services.lease_extend(conversation_id=conversation.pk, token=claim.token, seconds=60)
    current = Conversation.objects.get(pk=conversation.pk)
    assert current.status == "failed" and current.error_code == errors.CANCELLED
    assert current.cancelled_at is not None and current.failed_at is not None


def test_a_cancelled_conversation_is_not_run(make_credentials, conversation_of):
    conversation = conversation_of(make_credentials(), "List contacts")
    services.conversation_cancel(conversation=conversation)

    assert runner.run_conversation(conversation.pk) is None
    assert not AgentStep.objects.filter(conversation=conversation).exists()


def test_the_sweeper_queues_again_a_conversation_whose_worker_died(make_credentials, conversation_of):
    conversation = conversation_of(make_credentials(), "List contacts")
    services.conversation_claim(conversation_id=conversation.pk, seconds=60)
    Conversation.objects.filter(pk=conversation.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )

    assert services.conversations_recover() == 1

    current = Conversation.objects.get(pk=conversation.pk)
    assert current.status == "open" and current.lease_token == ""
    assert runner.run_conversation(conversation.pk) == "resolved"
    assert Conversation.objects.get(pk=conversation.pk).attempts == 2


def in_a_model_call(make_credentials, conversation_of):  # type: ignore[no-untyped-def]
    """A conversation claimed by a worker that is inside a model call: its reservation is open."""
    credentials = make_credentials()
    conversation = conversation_of(credentials, "List contacts")
    claim = services.conversation_claim(conversation_id=conversation.pk, seconds=60)
    reservation = apikeys_services.budget_reserve(key=credentials.key.pk, micro_usd=5_000)
    services.lease_extend(
        conversation_id=conversation.pk, token=claim.token, seconds=60, reservation_id=reservation.pk
    )
    return conversation, claim, reservation


def test_handing_a_conversation_back_frees_the_reservation_it_held(make_credentials, conversation_of):
    conversation, claim, reservation = in_a_model_call(make_credentials, conversation_of)

    assert services.lease_release(conversation_id=conversation.pk, token=claim.token)

    reservation.refresh_from_db()
    assert reservation.state == "released"
    current = Conversation.objects.get(pk=conversation.pk)
    assert current.status == "open" and current.open_reservation_id is None


def test_a_stale_worker_cannot_hand_back_nor_free_the_reservation_of_the_run_holding_it(
    make_credentials, conversation_of
):
    conversation, _claim, reservation = in_a_model_call(make_credentials, conversation_of)

    assert not services.lease_release(conversation_id=conversation.pk, token="a-stale-token")

    reservation.refresh_from_db()
    assert reservation.state == "reserved"
    assert Conversation.objects.get(pk=conversation.pk).open_reservation_id == reservation.pk


def test_a_worker_waits_for_the_database_to_answer_before_claiming(
    make_credentials, conversation_of, monkeypatch
):
    conversation = conversation_of(make_credentials(), "List contacts")
    really_claim = services.conversation_claim
    outage = [OperationalError("connection refused"), InterfaceError("connection already closed")]

    def claim(**kwargs):  # type: ignore[no-untyped-def]
        if outage:
            raise outage.pop(0)
        return really_claim(**kwargs)

    monkeypatch.setattr(services, "conversation_claim", claim)
    paused: list[float] = []
    monkeypatch.setattr(runner.time, "sleep", paused.append)

    assert runner.run_conversation(conversation.pk) == "resolved"
    assert paused == list(runner.CLAIM_PAUSES[:2])


def test_a_worker_leaves_the_turn_queued_for_the_sweeper_when_the_database_stays_away(
    make_credentials, conversation_of, monkeypatch
):
    conversation = conversation_of(make_credentials(), "List contacts")

    def claim(**kwargs):  # type: ignore[no-untyped-def]
        raise OperationalError("connection refused")

    monkeypatch.setattr(services, "conversation_claim", claim)
    paused: list[float] = []
    monkeypatch.setattr(runner.time, "sleep", paused.append)

    with pytest.raises(OperationalError):
        runner.run_conversation(conversation.pk)
    assert paused == list(runner.CLAIM_PAUSES)
    current = Conversation.objects.get(pk=conversation.pk)
    assert current.status == "open" and current.attempts == 0


def test_a_live_lease_is_left_alone(make_credentials, conversation_of):
    conversation = conversation_of(make_credentials(), "List contacts")
    services.conversation_claim(conversation_id=conversation.pk, seconds=60)

    assert services.conversations_recover() == 0
    assert Conversation.objects.get(pk=conversation.pk).status == "processing"


def test_a_conversation_whose_workers_keep_dying_fails_with_a_generic_error(
    make_credentials, conversation_of, settings
):
    settings.GATEWAY_AGENT_MAX_ATTEMPTS = 2
    hook_key = make_credentials(response_url="http://127.0.0.1:9/hook")
    conversation = conversation_of(hook_key, "List contacts")
    for _ in range(2):
        services.conversation_claim(conversation_id=conversation.pk, seconds=60)
        Conversation.objects.filter(pk=conversation.pk).update(
            lease_expires_at=timezone.now() - timedelta(seconds=1)
        )
        services.conversations_recover()

    current = Conversation.objects.get(pk=conversation.pk)
    assert current.status == "failed" and current.error_code == errors.AGENT_ERROR
    assert current.error_message == services.generic_failure()
    assert WebhookDelivery.objects.get(conversation_uuid=conversation.uuid).event == "failed"


def test_an_open_conversation_whose_task_never_started_is_queued_again(
    make_credentials, conversation_of, monkeypatch, settings
):
    queued = []
    monkeypatch.setattr(
        services, "enqueue", lambda conversation_id, countdown=None: queued.append(conversation_id)
    )
    conversation = conversation_of(make_credentials(), "List contacts")
    Conversation.objects.filter(pk=conversation.pk).update(
        queued_at=timezone.now() - timedelta(seconds=settings.GATEWAY_REQUEUE_AFTER_SECONDS + 1)
    )
    nothing_waits = backlog.Backlog(known=True, oldest=None)

    assert services.conversations_recover(waiting=nothing_waits) == 1
    assert queued == [conversation.pk]
    assert services.conversations_recover(waiting=nothing_waits) == 0


def test_an_unexpected_error_hands_the_conversation_back_then_fails_it(
    make_credentials, conversation_of, monkeypatch, settings
):
    settings.GATEWAY_AGENT_MAX_ATTEMPTS = 2
    from apps.gateway.agent.builtin import BuiltinAgent

    def broken(self, run):
        raise RuntimeError("a bug")

    monkeypatch.setattr(BuiltinAgent, "run", broken)
    conversation = conversation_of(make_credentials(), "List contacts")

    assert runner.run_conversation(conversation.pk) is None
    assert Conversation.objects.get(pk=conversation.pk).status == "open"
    assert runner.run_conversation(conversation.pk) == "failed"

    current = Conversation.objects.get(pk=conversation.pk)
    assert current.error_code == errors.AGENT_ERROR and "a bug" not in current.error_message


def test_a_key_revoked_before_the_agent_ran_fails_the_conversation(make_credentials, conversation_of):
    mine = make_credentials()
    conversation = conversation_of(mine, "List contacts")
    apikeys_services.api_key_revoke(actor=mine.user, key=mine.key)

    assert runner.run_conversation(conversation.pk) == "failed"
    assert Conversation.objects.get(pk=conversation.pk).error_code == errors.KEY_REVOKED


def test_expired_conversations_are_removed_and_their_deliveries_kept(make_credentials, conversation_of):
    mine = make_credentials(response_url="http://127.0.0.1:9/hook")
    old = conversation_of(mine, "List contacts")
    runner.run_conversation(old.pk)
    fresh = conversation_of(mine, "List contacts")
    Conversation.objects.filter(pk=old.pk).update(expires_at=timezone.now() - timedelta(seconds=1))

    assert services.conversations_remove_expired() == 1

    assert list(Conversation.objects.values_list("pk", flat=True)) == [fresh.pk]
    assert not Turn.objects.filter(conversation_id=old.pk).exists()
    delivery = WebhookDelivery.objects.get(conversation_uuid=old.uuid)
    assert delivery.conversation_id is None and delivery.body


def test_the_api_keys_page_lists_deliveries_and_redelivers(
    make_credentials, conversation_of, django_capture_on_commit_callbacks
):
    from config.celery import app

    mine = make_credentials(response_url="http://127.0.0.1:9/hook")
    conversation = conversation_of(mine, "List contacts")
    runner.run_conversation(conversation.pk)
    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
    assert reply_of(Conversation.objects.get(pk=conversation.pk))
    browser = Client(HTTP_HOST="127.0.0.1")
    browser.force_login(mine.user)

    page = browser.get(f"/settings/api-keys/{mine.key.pk}/")

    text = page.content.decode()
    assert page.status_code == 200
    assert str(conversation.uuid) in text and delivery.webhook_id in text
    assert "could not connect" in text
    assert f"/settings/api-keys/{mine.key.pk}/deliveries/{delivery.pk}/redeliver/" in text

    app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            answer = browser.post(f"/settings/api-keys/{mine.key.pk}/deliveries/{delivery.pk}/redeliver/")
    finally:
        app.conf.task_always_eager = False
    assert answer.status_code == 302 and answer["Location"].endswith("#webhook-deliveries")
    delivery.refresh_from_db()
    # Sent again at once (nothing listens on port 9, so it is retrying again).
    assert (delivery.status, delivery.attempts) == ("retrying", 2)


def test_someone_elses_delivery_cannot_be_redelivered(make_credentials, conversation_of):
    mine, theirs = (
        make_credentials("member"),
        make_credentials("admin", response_url="http://127.0.0.1:9/hook"),
    )
    conversation = conversation_of(theirs, "List contacts")
    runner.run_conversation(conversation.pk)
    delivery = WebhookDelivery.objects.get(conversation_uuid=conversation.uuid)
    browser = Client(HTTP_HOST="127.0.0.1")
    browser.force_login(mine.user)

    answer = browser.post(f"/settings/api-keys/{theirs.key.pk}/deliveries/{delivery.pk}/redeliver/")

    assert answer.status_code == 404
