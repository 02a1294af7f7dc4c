"""The OAuth scheme of the MCP door: `Authorization: Bearer <access token>` issued by this
workspace's authorization server (see docs/architecture.md, "Credentials")."""

import threading
import time
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils.translation import gettext_lazy as _
from oauth2_provider.models import get_access_token_model

from apps.accounts.authentication import bearer_value
from apps.core import credentials
from apps.core.credentials import CredentialRequest, Principal
from apps.core.db import connection as db_connection
from apps.oauth import errors, resource, scopes, selectors, services

_touched: dict[tuple[str, int], float] = {}
_touched_lock = threading.Lock()


@credentials.register(order=10)
def oauth_bearer(request: CredentialRequest) -> Principal | None:
    value = bearer_value(request.headers.get("authorization", ""))
    # Personal access tokens ("atp_…") belong to the other scheme: not ours to judge.
    if value is None or value.startswith(f"{settings.ACCESS_TOKEN_PREFIX}_"):
        return None
    base_url = request.base_url
    token = selectors.access_token_by_value(value)
    try:
        if token is None:
            raise errors.UnknownOAuthToken()
        if token.is_expired():
            raise errors.ExpiredOAuthToken()
        # Bound to this workspace's MCP endpoint, as reached at this origin (RFC 8707). Tokens
        # of another workspace are not even found: each workspace keeps its own.
        if list(token.resource or []) != [resource.resource_for(base_url)]:
            raise errors.OAuthTokenForAnotherResource()
        granted = scopes.mcp_scopes(token.scope.split())
        if not granted:
            raise errors.OAuthTokenWithoutMcpScope()
        user = token.user
        if user is None or not user.is_active or getattr(user, "role", None) is None:
            raise errors.OAuthTokenWithoutPerson()
    except errors.InvalidOAuthToken as error:
        error.headers["WWW-Authenticate"] = resource.challenge(
            base_url, error=error.oauth_error, description=str(error.message)
        )
        raise
    _touch(token.user_id, token.application_id, token.pk)
    application = token.application
    return Principal(
        user=user,
        scheme="oauth",
        scopes=granted,
        credential=f"oauth:{token.pk}",
        client=(application.name or application.client_id) if application is not None else "",
        profile=scopes.profile_of(token.scope.split()),
        good_until=token.expires.timestamp(),
    )


def _touch(user_id: int, application_id: int | None, token_id: int) -> None:
    if application_id is None:
        return
    key = (db_connection.schema_name, token_id)
    now = time.monotonic()
    with _touched_lock:
        every = credentials.LAST_USED_EVERY.total_seconds()
        if now - _touched.get(key, -every) < every:
            return
        if len(_touched) > 10_000:
            _touched.clear()
        _touched[key] = now
    services.connection_touch(user_id=user_id, application_id=application_id)


@receiver(post_delete, sender=get_access_token_model(), dispatch_uid="apps.oauth.access_token_deleted")
def _access_token_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    # Revoked (RFC 7009), replaced by a refresh, or its client disconnected: each deletes the
    # token. An expired one (the nightly purge) was refused already.
    if not instance.is_expired():
        credentials.revoked(user_ids=[instance.user_id])


@credentials.namer("oauth", kind=_("connected app"))
def connected_app_names(ids: list[str]) -> Mapping[str, str]:
    """The client names of the OAuth access tokens the audit log identifies as `oauth:<pk>`
    (tokens are short-lived: the log keeps the client's name too, for those removed since)."""
    wanted = [int(ident) for ident in ids if ident.isascii() and ident.isdigit()]
    tokens = get_access_token_model().objects.filter(pk__in=wanted).select_related("application")
    return {
        str(token.pk): (token.application.name or token.application.client_id)
        for token in tokens
        if token.application is not None
    }
