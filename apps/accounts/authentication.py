"""Personal access tokens as credentials: the core check, and its DRF adapter.

`authenticate_access_token` is the one check; every door that takes a personal access token
(DRF APIs here, the MCP endpoint and the gateway later) calls it.
"""

from typing import Any

from django.conf import settings
from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from apps.accounts import errors
from apps.accounts.models import PersonalAccessToken
from apps.core import credentials, secrets


def authenticate_access_token(raw: str) -> PersonalAccessToken:
    """The active token `raw` stands for, in the current workspace, or an Unauthenticated error."""
    raw = raw.strip()
    if not secrets.is_well_formed(raw, settings.ACCESS_TOKEN_PREFIX):
        raise errors.InvalidAccessToken()
    token = (
        PersonalAccessToken.objects.select_related("user", "user__role")
        .filter(digest=secrets.digest(raw))
        .first()
    )
    if token is None or not token.user.is_active or token.user.is_portal:
        raise errors.InvalidAccessToken()
    if token.revoked_at is not None:
        raise errors.AccessTokenRevoked()
    now = timezone.now()
    if token.expires_at <= now:
        raise errors.AccessTokenExpired()
    if token.last_used_at is None or now - token.last_used_at > credentials.LAST_USED_EVERY:
        PersonalAccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def bearer_value(authorization: str) -> str | None:
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


class AccessTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <personal access token>` for the JSON APIs."""

    def authenticate(self, request: Request) -> tuple[Any, PersonalAccessToken] | None:
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        value = bearer_value(header)
        if value is None:
            raise exceptions.AuthenticationFailed(str(errors.InvalidAccessToken.message))
        try:
            token = authenticate_access_token(value)
        except errors.InvalidAccessToken as error:
            raise exceptions.AuthenticationFailed(str(error.message)) from error
        except (errors.AccessTokenExpired, errors.AccessTokenRevoked) as error:
            raise exceptions.AuthenticationFailed(str(error.message)) from error
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="atrium"'
