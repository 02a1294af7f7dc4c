"""Helpers of the gateway's tests: a person's token and key, the client's headers, conversations."""

from dataclasses import dataclass
from typing import Any

import pytest

from apps.accounts.services import access_token_create
from apps.apikeys.services import CreatedKey, api_key_create


@dataclass
class Credentials:
    user: Any
    token: str
    token_id: int
    created: CreatedKey

    @property
    def key(self) -> Any:
        return self.created.key

    @property
    def raw_key(self) -> str:
        return self.created.raw_key

    @property
    def secret(self) -> str:
        return self.created.signing_secret

    def headers(self) -> dict[str, str]:
        """For Django's test client."""
        return {"HTTP_AUTHORIZATION": f"Bearer {self.token}", "HTTP_X_API_KEY": self.raw_key}

    def http_headers(self) -> dict[str, str]:
        """For a real HTTP client."""
        return {"Authorization": f"Bearer {self.token}", "X-Api-Key": self.raw_key}


def credentials_for(user: Any, **key_fields: Any) -> Credentials:
    token, raw = access_token_create(user=user, name="gateway tests")
    return Credentials(
        user=user, token=raw, token_id=token.pk, created=api_key_create(user=user, **key_fields)
    )


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
