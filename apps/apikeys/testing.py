"""Test helpers for whatever needs a person's personal access token and API key as raw secrets
(the API-key, gateway and task tests)."""

from dataclasses import dataclass
from typing import Any

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
    token, raw = access_token_create(user=user, name="tests")
    return Credentials(
        user=user, token=raw, token_id=token.pk, created=api_key_create(user=user, **key_fields)
    )
