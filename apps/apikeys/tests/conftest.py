"""Helpers of the API-key tests: a person's token and key, as raw secrets."""

from typing import Any

import pytest

from apps.accounts.services import access_token_create
from apps.apikeys.testing import Credentials, credentials_for


@pytest.fixture
def make_credentials(people):  # type: ignore[no-untyped-def]
    def make(role: str = "member", **key_fields: Any) -> Credentials:
        return credentials_for(people[role], **key_fields)

    return make


@pytest.fixture
def bearer(people):  # type: ignore[no-untyped-def]
    """A fresh personal access token of a role, as the Authorization header of Django's client."""

    def make(role: str = "member") -> dict[str, str]:
        _token, raw = access_token_create(user=people[role], name="tests")
        return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}

    return make
