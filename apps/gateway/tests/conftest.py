"""Helpers of the gateway's tests: a person's token and key, the client's headers, conversations."""

from typing import Any

import pytest

from apps.apikeys.testing import Credentials, credentials_for


@pytest.fixture
def make_credentials(people):  # type: ignore[no-untyped-def]
    def make(role: str = "member", **key_fields: Any) -> Credentials:
        return credentials_for(people[role], **key_fields)

    return make


@pytest.fixture
def send(acme_client):  # type: ignore[no-untyped-def]
    """POST /api/agent on Acme with a body and credentials."""

    def post(credentials: Credentials | None, body: Any, **headers: str) -> Any:
        extra = credentials.headers() if credentials else {}
        return acme_client.post("/api/agent", data=body, content_type="application/json", **extra, **headers)

    return post


@pytest.fixture
def conversation_of():  # type: ignore[no-untyped-def]
    """A conversation accepted for `credentials` (as POST /api/agent would), not yet run."""
    from apps.accounts.models import PersonalAccessToken
    from apps.apikeys.authentication import KeyCredential
    from apps.gateway import services
    from apps.gateway.validation import AgentRequest

    def make(
        credentials: Credentials, message: str, *, context: dict | None = None, metadata: dict | None = None
    ):  # type: ignore[no-untyped-def]
        credential = KeyCredential(
            token=PersonalAccessToken.objects.get(pk=credentials.token_id), key=credentials.key
        )
        accepted = services.conversation_accept(
            credential=credential,
            request=AgentRequest(message=message, context=context or {}, metadata=metadata or {}),
        )
        return accepted.conversation

    return make


def reply_of(conversation) -> str:  # type: ignore[no-untyped-def]
    from apps.gateway.models import Turn

    turn = Turn.objects.filter(conversation=conversation, role="agent").order_by("-position").first()
    return turn.payload["content"] if turn else ""


@pytest.fixture
def model_servers(settings):  # type: ignore[no-untyped-def]
    """Starts model servers on loopback, `start(protocol, responder, name=, prices=, **settings)`,
    points the settings at the latest (plus any GATEWAY_* given), and stops them all after."""
    from .servers import ModelServer

    started = []

    def start(protocol: str, responder, *, name: str, prices: dict, **more):  # type: ignore[no-untyped-def]
        server = ModelServer(protocol, responder).start()
        started.append(server)
        settings.GATEWAY_MODEL_BACKEND = protocol
        settings.GATEWAY_MODEL_URL = server.url
        settings.GATEWAY_MODEL_NAME = name
        settings.GATEWAY_MODEL_API_KEY = server.api_key
        settings.GATEWAY_MODEL_PRICES = prices
        settings.GATEWAY_MODEL_MAX_TOKENS = 1000
        settings.GATEWAY_MODEL_RETRY_BASE_SECONDS = 0.01
        for key, value in more.items():
            setattr(settings, key, value)
        return server

    yield start
    for server in started:
        server.stop()
