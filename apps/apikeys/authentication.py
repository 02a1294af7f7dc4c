"""SPEC 5.2's second scheme: `Authorization: Bearer <personal access token>` + `X-Api-Key`.

`authenticate_token_and_key` is the one check; the MCP endpoint (through
`apps.apikeys.credentials`) and the gateway (through `AccessTokenAndApiKeyAuthentication`) call it.
Its refusals, in the order they are checked (SPEC 7.1):

    401 UNAUTHENTICATED      the access token is missing, malformed, unknown, expired or revoked
    401 INVALID_API_KEY      X-Api-Key is missing, malformed or unknown in this workspace
    403 KEY_OWNER_MISMATCH   the key belongs to someone else than the token's owner
    403 KEY_REVOKED          the key has been revoked
    429 BUDGET_EXCEEDED      the key's budget for the period is spent (details.resets_at, Retry-After)
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone
from rest_framework import authentication
from rest_framework.request import Request

from apps.accounts.authentication import authenticate_access_token, bearer_value
from apps.accounts.models import PersonalAccessToken
from apps.apikeys import errors, selectors, services
from apps.apikeys.models import ApiKey
from apps.core import metrics
from apps.core.errors import AppError, Unauthenticated


@dataclass(frozen=True)
class KeyCredential:
    token: PersonalAccessToken
    key: ApiKey

    @property
    def user(self) -> Any:
        return self.token.user


def _challenged(error: AppError) -> AppError:
    error.headers = {**errors.CHALLENGE, **error.headers}
    return error


def check_budget(*, key: ApiKey, now: datetime | None = None) -> None:
    """429 BUDGET_EXCEEDED when the key's budget for the current period is spent."""
    if key.budget_usd_cents is None:  # an unlimited key needs no look at its spend
        return
    now = now or timezone.now()
    status = selectors.budget_status(key=key, now=now)
    if status.is_spent:
        metrics.budget_event("exceeded")
        raise services.budget_exceeded_error(key=key, status=status, now=now)


def authenticate_token_and_key(
    *,
    authorization: str | None,
    api_key: str | None,
    now: datetime | None = None,
    budget: bool = True,
) -> KeyCredential:
    """The token and key of a request, both good, or the AppError that refuses it. With
    `budget=False` a spent budget is not a refusal (reading what was already paid for: the
    gateway's poll); the caller checks it with `check_budget` where spending starts."""
    raw_token = bearer_value(authorization or "")
    if raw_token is None:
        raise _challenged(Unauthenticated())
    try:
        token = authenticate_access_token(raw_token)
    except Unauthenticated as error:
        raise _challenged(error) from error
    if not api_key or not api_key.strip():
        raise errors.InvalidApiKey()
    key = selectors.api_key_for_secret(api_key)
    if key is None:
        raise errors.InvalidApiKey()
    # Someone else's key says nothing more about itself (revoked or not) than that it is not yours.
    if key.user_id != token.user_id:
        raise errors.KeyOwnerMismatch()
    if key.revoked_at is not None:
        raise errors.KeyRevoked()
    now = now or timezone.now()
    if budget:
        check_budget(key=key, now=now)
    services.api_key_touch(key=key, now=now)
    return KeyCredential(token=token, key=key)


class AccessTokenAndApiKeyAuthentication(authentication.BaseAuthentication):
    """DRF door for endpoints that take both headers (the gateway's `/api/agent`). Without them
    the request is refused, never anonymous: use it with IsAuthenticated."""

    def authenticate(self, request: Request) -> tuple[Any, KeyCredential]:
        credential = authenticate_token_and_key(
            authorization=request.META.get("HTTP_AUTHORIZATION"),
            api_key=request.META.get("HTTP_X_API_KEY"),
        )
        return credential.user, credential

    def authenticate_header(self, request: Request) -> str:
        return errors.CHALLENGE["WWW-Authenticate"]
