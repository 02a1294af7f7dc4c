"""The reference's `webhooks` entry says what the gateway really sends: a delivery through the
real path (signed during a secret roll, so every signature header is there) reaches a receiver on
loopback, and its headers and body are checked against the schema the server publishes."""

import json
from datetime import timedelta

import jsonschema
import pytest

from apps.apikeys import services as apikeys_services
from apps.gateway.agent import runner

from .servers import Receiver

# What HTTP itself adds to any request; the schema describes the gateway's own headers.
TRANSPORT = {"host", "content-length", "content-type", "accept", "accept-encoding", "connection"}


@pytest.fixture(autouse=True)
def _eager_tasks(settings):
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    settings.GATEWAY_MODEL_BACKEND = ""
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def webhook(db, acme_client) -> dict:
    document = acme_client.get("/api/schema/", headers={"Accept": "application/json"}).json()
    return document["webhooks"]["conversationEnded"]["post"]


def test_the_webhooks_entry_names_the_signature_headers(webhook):
    headers = {
        parameter["name"]: parameter for parameter in webhook["parameters"] if parameter["in"] == "header"
    }

    for name in (
        "X-Signature",
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
        "X-Conversation-UUID",
    ):
        assert headers[name]["required"] is True, name
    assert headers["X-Signature-Previous"]["required"] is False
    assert "HMAC-SHA256" in headers["X-Signature"]["description"]


def test_a_real_delivery_sends_exactly_the_documented_headers_and_body(
    webhook, make_credentials, conversation_of
):
    receiver = Receiver([200]).start()
    try:
        mine = make_credentials(response_url=receiver.url)
        apikeys_services.signing_secret_roll(actor=mine.user, key=mine.key, overlap=timedelta(hours=1))
        conversation = conversation_of(mine, "List contacts")
        runner.run_conversation(conversation.pk)
        (arrived,) = receiver.wait_for(1)
    finally:
        receiver.stop()

    documented = {
        parameter["name"].lower(): parameter
        for parameter in webhook["parameters"]
        if parameter["in"] == "header"
    }
    sent = {name.lower(): value for name, value in arrived.headers.items()}
    own = set(sent) - TRANSPORT
    assert own <= set(documented), own - set(documented)
    required = {name for name, parameter in documented.items() if parameter["required"]}
    assert required <= own, required - own
    for name in own:
        pattern = documented[name]["schema"].get("pattern")
        if pattern:
            jsonschema.validate(sent[name], documented[name]["schema"])
    body = webhook["requestBody"]["content"]["application/json"]["schema"]
    jsonschema.Draft202012Validator(body).validate(json.loads(arrived.body))
    assert sent["content-type"] == "application/json"
