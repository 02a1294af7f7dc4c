"""Helpers of the API-key tests: a person's token and key, as raw secrets."""

from dataclasses import dataclass
from typing import Any

import pytest

from apps.accounts.services import access_token_create
from apps.apikeys.services import CreatedKey, api_key_create


@dataclass
class Credentials:
    user: Any
    token: str
    created: CreatedKey

    @property
    def key(self) -> Any:
        return self.created.key

    @property
    def raw_key(self) -> str:
        return self.created.raw_key

    def headers(self) -> dict[str, str]:
        """For Django's test client."""
        return {"HTTP_AUTHORIZATION": f"Bearer {self.token}", "HTTP_X_API_KEY": self.raw_key}


@pytest.fixture
def make_credentials(people):  # type: ignore[no-untyped-def]
    def make(role: str = "member", **key_fields: Any) -> Credentials:
        user = people[role]
        _token, raw = access_token_create(user=user, name="tests")
        return Credentials(user=user, token=raw, created=api_key_create(user=user, **key_fields))

    return make


@pytest.fixture
def bearer(people):  # type: ignore[no-untyped-def]
    """A fresh personal access token of a role, as the Authorization header of Django's client."""

    def make(role: str = "member") -> dict[str, str]:
        _token, raw = access_token_create(user=people[role], name="tests")
        return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}

    return make
