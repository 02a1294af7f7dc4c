"""The "Send test event" button of an API key's page, against a real receiver on loopback: the
event goes the way replies go (a delivery row, the `deliver_webhook` task, the same signatures),
is marked as a test, is logged with the body sent and the answer, and is tried once. Refused
with a clear message for a key without a webhook URL and for a revoked key. Tasks run eagerly
here (the on-commit queue hop), as in test_webhooks.py."""

import json

import pytest

from apps.apikeys import services as apikeys_services
from apps.gateway.models import WebhookAttempt, WebhookDelivery
from apps.gateway.templatetags.gateway import http_status_class

from .servers import Receiver
from .test_webhooks import example

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _eager_tasks(settings):
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    settings.GATEWAY_WEBHOOK_RETRY_SCHEDULE = [60, 120]
    settings.GATEWAY_WEBHOOK_JITTER = 0
    settings.GATEWAY_WEBHOOK_TIMEOUT_SECONDS = 2
    settings.GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS = 1
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def receiver():
    started = []

    def start(*args, **kwargs) -> Receiver:
        server = Receiver(*args, **kwargs).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def press(client, key_id: int, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """The button: POST, with the on-commit work (queueing the attempt) run as a commit would."""
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(f"/settings/api-keys/{key_id}/test-event/")


def test_a_signed_test_event_reaches_the_receiver_and_is_logged_as_a_test(
    make_credentials, receiver, acme_client, django_capture_on_commit_callbacks
):
    hook = receiver([200], answer=b'{"received": "yes"}')
    mine = make_credentials(response_url=hook.url)
    acme_client.force_login(mine.user)

    response = press(acme_client, mine.key.pk, django_capture_on_commit_callbacks)

    assert response.status_code == 302
    assert response["Location"] == f"/settings/api-keys/{mine.key.pk}/#webhook-deliveries"
    (arrived,) = hook.wait_for(1)
    body = json.loads(arrived.body)
    assert body["test"] is True and body["status"] == "resolved"
    assert "Acme" in body["response"]
    assert arrived.headers["x-conversation-uuid"] == body["conversation_uuid"]
    # The same signatures as every webhook: the documented example receiver accepts it.
    assert example.verify(mine.secret, arrived.body, arrived.headers)
    delivery = WebhookDelivery.objects.get(key=mine.key)
    assert delivery.is_test and delivery.conversation is None
    assert delivery.status == "delivered" and delivery.attempts == 1
    assert arrived.headers["webhook-id"] == delivery.webhook_id
    attempt = WebhookAttempt.objects.get(delivery=delivery)
    assert (attempt.outcome, attempt.status_code, attempt.response_excerpt) == (
        "delivered",
        200,
        '{"received": "yes"}',
    )

    page = acme_client.get(response["Location"]).content.decode()
    assert "A test event is on its way" in page
    assert '<span class="badge test">test</span>' in page
    assert '<span class="badge success" data-testid="last-status">HTTP 200</span>' in page
    assert "Request body" in page and "&quot;test&quot;:true" in page
    assert "Response body" in page and "{&quot;received&quot;: &quot;yes&quot;}" in page
    assert mine.secret not in page  # the log shows bodies, never the signing secret


def test_a_failed_test_event_is_shown_red_and_not_retried(
    make_credentials, receiver, acme_client, django_capture_on_commit_callbacks
):
    hook = receiver([500], answer=b"receiver broke")
    mine = make_credentials(response_url=hook.url)
    acme_client.force_login(mine.user)

    press(acme_client, mine.key.pk, django_capture_on_commit_callbacks)

    hook.wait_for(1)
    delivery = WebhookDelivery.objects.get(key=mine.key)
    assert delivery.status == "failed" and delivery.next_attempt_at is None and delivery.attempts == 1
    assert "tried once" in delivery.failed_reason and "500" in delivery.failed_reason
    page = acme_client.get(f"/settings/api-keys/{mine.key.pk}/").content.decode()
    assert '<span class="badge failure" data-testid="last-status">HTTP 500</span>' in page
    assert "receiver broke" in page
    # Another press sends another test at once.
    press(acme_client, mine.key.pk, django_capture_on_commit_callbacks)
    hook.wait_for(2)
    assert WebhookDelivery.objects.filter(key=mine.key, is_test=True).count() == 2


def test_a_key_without_a_webhook_url_is_refused_with_a_clear_message(
    make_credentials, acme_client, django_capture_on_commit_callbacks
):
    mine = make_credentials()
    acme_client.force_login(mine.user)
    before = acme_client.get(f"/settings/api-keys/{mine.key.pk}/").content.decode()
    assert "Add a webhook URL to the key to send a test event." in before
    assert 'disabled aria-describedby="test-event-help"' in before

    response = press(acme_client, mine.key.pk, django_capture_on_commit_callbacks)

    assert response.status_code == 302
    page = acme_client.get(response["Location"]).content.decode()
    assert "This key has no webhook URL, so there is nowhere to send a test event" in page
    assert not WebhookDelivery.objects.filter(key=mine.key).exists()


def test_a_revoked_key_sends_no_test_event(
    make_credentials, receiver, acme_client, django_capture_on_commit_callbacks
):
    hook = receiver([200])
    mine = make_credentials(response_url=hook.url)
    apikeys_services.api_key_revoke(actor=mine.user, key=mine.key)
    acme_client.force_login(mine.user)

    response = press(acme_client, mine.key.pk, django_capture_on_commit_callbacks)

    page = acme_client.get(response["Location"]).content.decode()
    assert "This key has been revoked: it sends no webhooks any more." in page
    assert "Send test event" not in page
    assert not WebhookDelivery.objects.filter(key=mine.key).exists()
    assert hook.received == []


def test_a_test_event_under_way_is_not_sent_twice(make_credentials, receiver, acme_client):
    hook = receiver([200])
    mine = make_credentials(response_url=hook.url)
    acme_client.force_login(mine.user)

    # Without the commit callbacks the first one stays pending, as if its worker had not started.
    acme_client.post(f"/settings/api-keys/{mine.key.pk}/test-event/")
    response = acme_client.post(f"/settings/api-keys/{mine.key.pk}/test-event/")

    page = acme_client.get(response["Location"]).content.decode()
    assert "still being sent" in page
    assert WebhookDelivery.objects.filter(key=mine.key, is_test=True).count() == 1


def test_another_persons_key_is_not_found_and_the_button_takes_only_posts(
    make_credentials, receiver, acme_client, people
):
    hook = receiver([200])
    theirs = make_credentials("admin", response_url=hook.url)
    acme_client.force_login(people["member"])

    assert acme_client.post(f"/settings/api-keys/{theirs.key.pk}/test-event/").status_code == 404
    assert acme_client.get(f"/settings/api-keys/{theirs.key.pk}/test-event/").status_code == 405
    assert not WebhookDelivery.objects.filter(key=theirs.key).exists()


@pytest.mark.parametrize(
    ("code", "css"),
    [
        (None, "neutral"),
        (200, "success"),
        (204, "success"),
        (301, "neutral"),
        (404, "failure"),
        (503, "failure"),
    ],
)
def test_http_statuses_are_colour_coded(code, css):
    assert http_status_class(code) == css
