"""A person's connections to outside services by OAuth 2.0 (connectIntegration,
listConnectedIntegrations, disconnectIntegration), with authlib.

1. `start`: a grant (`IntegrationGrant`) with a random `state` and a PKCE code verifier, good for
   ATRIUM_INTEGRATION_GRANT_SECONDS; the answer is the provider's authorization URL, which the
   person opens in their browser.
2. The provider sends the browser back to the callback page of the workspace
   (`platform:integration-callback`, signed in): `complete` takes the grant of that `state` only
   for the person it was made for, once, before it expires (it is spent before the code is
   exchanged, so a replay gets nothing), exchanges the code at the token endpoint with the
   verifier, and keeps the tokens encrypted (`IntegrationConnection`, one per person and provider).
3. `fresh`: the connection with an access token that is still good, refreshed first when it has
   expired (or is about to); a refused refresh is kept as `last_error` and answered.
4. `disconnect`: the token revoked at the provider's RFC 7009 endpoint when it has one (what the
   provider answers is reported, never a reason to keep the connection), then the row deleted.
"""

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx2
from authlib.common.security import generate_token
from authlib.integrations.base_client import OAuthError
from authlib.integrations.httpx_client import OAuth2Client
from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from apps.core import encryption
from apps.core.actors import Actor, require
from apps.platform import errors, providers
from apps.platform.models import IntegrationConnection, IntegrationGrant
from apps.platform.permissions import PlatformPerm
from apps.platform.providers import Provider
from apps.tenancy import links

logger = logging.getLogger(__name__)

# An access token this close to its expiry is refreshed before use.
REFRESH_MARGIN = timedelta(seconds=60)


def _client(provider: Provider, **kwargs: Any) -> OAuth2Client:
    return OAuth2Client(
        client_id=provider.client_id,
        client_secret=provider.client_secret or None,
        code_challenge_method="S256",
        timeout=settings.ATRIUM_INTEGRATION_TIMEOUT_SECONDS,
        trust_env=False,
        follow_redirects=False,
        **kwargs,
    )


def _configured(key: str) -> Provider:
    provider = providers.get(key)
    if not provider.configured:
        raise errors.IntegrationNotConfigured(provider=provider.name)
    return provider


def callback_url() -> str:
    return links.page("platform:integration-callback")


@dataclass(frozen=True)
class Started:
    provider: Provider
    url: str
    expires_at: datetime


def start(*, actor: Actor, provider_key: str) -> Started:
    """A grant for `actor` and the URL at which they authorize it (module docstring, 1)."""
    require(actor, PlatformPerm.INTEGRATE)
    provider = _configured(provider_key)
    state = secrets.token_urlsafe(32)
    verifier = generate_token(64)
    redirect_uri = callback_url()
    with _client(provider, scope=" ".join(provider.scopes), redirect_uri=redirect_uri) as client:
        url, _state = client.create_authorization_url(
            provider.authorize_url, state=state, code_verifier=verifier, **provider.authorize_params
        )
    expires_at = timezone.now() + timedelta(seconds=settings.ATRIUM_INTEGRATION_GRANT_SECONDS)
    IntegrationGrant.objects.create(
        state=state,
        user_id=actor.pk,
        provider=provider.key,
        scopes=list(provider.scopes),
        verifier_encrypted=encryption.encrypt(verifier),
        redirect_uri=redirect_uri,
        expires_at=expires_at,
    )
    return Started(provider=provider, url=url, expires_at=expires_at)


def _spend(*, actor: Actor, state: str) -> IntegrationGrant:
    """The grant of `state`, made for `actor`, unspent and unexpired: spent now, committed."""
    with transaction.atomic():
        grant = IntegrationGrant.objects.select_for_update().filter(state=state).first()
        if grant is None or grant.user_id != actor.pk or grant.used_at is not None:
            raise errors.IntegrationGrantInvalid()
        if grant.expires_at <= timezone.now():
            raise errors.IntegrationGrantInvalid()
        grant.used_at = timezone.now()
        grant.save(update_fields=["used_at"])
    return grant


def _expiry(token: dict[str, Any]) -> datetime | None:
    if token.get("expires_at"):
        return datetime.fromtimestamp(float(token["expires_at"]), tz=timezone.get_current_timezone())
    if token.get("expires_in"):
        return timezone.now() + timedelta(seconds=float(token["expires_in"]))
    return None


def _keep(connection: IntegrationConnection, token: dict[str, Any]) -> None:
    connection.access_token_encrypted = encryption.encrypt(str(token["access_token"]))
    if token.get("refresh_token"):
        connection.refresh_token_encrypted = encryption.encrypt(str(token["refresh_token"]))
    connection.token_type = str(token.get("token_type", ""))[:40]
    connection.expires_at = _expiry(token)
    if token.get("scope"):
        scope = token["scope"]
        connection.scopes = scope.split() if isinstance(scope, str) else list(scope)
    connection.last_error = ""


def _refused(provider: Provider, error: Exception) -> errors.IntegrationRefused:
    """What the provider said (its OAuth error code), or that it did not answer."""
    if isinstance(error, OAuthError) and error.error:
        return errors.IntegrationRefused(provider=provider.name, problem=str(error.error)[:200])
    return errors.IntegrationNoAnswer(provider=provider.name, kind=type(error).__name__)


def complete(*, actor: Actor, state: str, code: str, error: str = "") -> IntegrationConnection:
    """The callback's work (module docstring, 2)."""
    require(actor, PlatformPerm.INTEGRATE)
    grant = _spend(actor=actor, state=state)
    provider = _configured(grant.provider)
    if error:
        raise errors.IntegrationRefused(provider=provider.name, problem=error[:200])
    if not code:
        raise errors.IntegrationNoCode(provider=provider.name)
    verifier = encryption.decrypt(grant.verifier_encrypted)
    try:
        with _client(provider, redirect_uri=grant.redirect_uri) as client:
            token = client.fetch_token(
                provider.token_url, grant_type="authorization_code", code=code, code_verifier=verifier
            )
    except (OAuthError, httpx2.HTTPError, ValueError) as failure:
        raise _refused(provider, failure) from None
    if not token.get("access_token"):
        raise errors.IntegrationNoToken(provider=provider.name)
    connection = IntegrationConnection.objects.filter(
        user_id=actor.pk, provider=provider.key
    ).first() or IntegrationConnection(user_id=actor.pk, provider=provider.key, scopes=grant.scopes)
    connection.refresh_token_encrypted = ""
    _keep(connection, token)
    connection.refreshed_at = None
    connection.save()
    return connection


def connections_of(actor: Actor) -> list[IntegrationConnection]:
    require(actor, PlatformPerm.INTEGRATE)
    return list(IntegrationConnection.objects.filter(user_id=actor.pk).order_by("provider", "id"))


def connection_of(actor: Actor, provider_key: str) -> IntegrationConnection:
    provider = providers.get(provider_key)
    found = IntegrationConnection.objects.filter(user_id=actor.pk, provider=provider.key).first()
    if found is None:
        raise errors.IntegrationNotConnected(provider=provider.name)
    return found


def expired(connection: IntegrationConnection) -> bool:
    return connection.expires_at is not None and connection.expires_at <= timezone.now() + REFRESH_MARGIN


def fresh(connection: IntegrationConnection) -> IntegrationConnection:
    """`connection` with a usable access token: refreshed first if it expired (module docstring, 3).
    A refresh the provider refuses is kept as `last_error` (and the row saved) before it is raised."""
    if not expired(connection):
        return connection
    provider = _configured(connection.provider)
    if not connection.refresh_token_encrypted:
        expired_error = errors.IntegrationExpired(provider=provider.name)
        connection.last_error = str(expired_error.message)[:300]
        connection.save(update_fields=["last_error"])
        raise expired_error
    try:
        with _client(provider) as client:
            token = client.refresh_token(
                provider.token_url, refresh_token=encryption.decrypt(connection.refresh_token_encrypted)
            )
    except (OAuthError, httpx2.HTTPError, ValueError, encryption.DecryptionFailed) as failure:
        refused = _refused(provider, failure)
        connection.last_error = str(refused.message)[:300]
        connection.save(update_fields=["last_error"])
        raise refused from None
    _keep(connection, token)
    connection.refreshed_at = timezone.now()
    connection.save()
    return connection


def access_token(connection: IntegrationConnection) -> str:
    """The access token of a connection, refreshed when needed: for the service's own calls to the
    provider (never to be returned to a person or an agent)."""
    return encryption.decrypt(fresh(connection).access_token_encrypted)


def disconnect(*, actor: Actor, connection: IntegrationConnection) -> bool | None:
    """Revokes (when the provider can) and deletes; whether the provider confirmed the revocation
    (None: it has no revocation endpoint)."""
    require(actor, PlatformPerm.INTEGRATE)
    revoke = _revocation(connection)
    connection.delete()
    return revoke() if revoke is not None else None


def _revocation(connection: IntegrationConnection) -> Callable[[], bool] | None:
    """What revokes the connection's token at its provider (RFC 7009: the refresh token when
    there is one), called later: whether the provider confirmed. None when the provider has no
    revocation endpoint, or is no longer offered here."""
    try:
        provider = providers.get(connection.provider)
    except errors.UnknownIntegration:
        return None
    if not (provider.revoke_url and provider.configured):
        return None
    refresh = connection.refresh_token_encrypted
    kept = refresh or connection.access_token_encrypted

    def revoke() -> bool:
        try:
            with _client(provider) as client:
                answer = client.revoke_token(
                    provider.revoke_url,
                    token=encryption.decrypt(kept),
                    token_type_hint="refresh_token" if refresh else "access_token",
                )
        except (OAuthError, httpx2.HTTPError, ValueError, encryption.DecryptionFailed):
            return False
        return answer.status_code == 200

    return revoke


def end_all(rows: QuerySet[IntegrationConnection]) -> int:
    """A person deactivated (apps.accounts.services.user_set_active, through
    apps.core.privacy.revoke_credentials) or erased: their connections are deleted at once, in the
    caller's transaction, and each token is revoked at its provider once that commits (a provider
    that does not answer changes nothing: the service keeps no token to use). Their unfinished
    grants go too. Returns how many connections were deleted."""
    found = list(rows)
    revocations = [revoke for connection in found if (revoke := _revocation(connection)) is not None]
    IntegrationGrant.objects.filter(user_id__in={connection.user_id for connection in found}).delete()
    deleted, _kinds = IntegrationConnection.objects.filter(pk__in=[c.pk for c in found]).delete()

    def revoke_all() -> None:
        for revoke in revocations:
            if not revoke():
                logger.info("an integration token of an ended connection was not confirmed revoked")

    if revocations:
        transaction.on_commit(revoke_all)
    return deleted


def forget_old_grants(*, older_than: timedelta = timedelta(days=1)) -> int:
    """Deletes grants expired for more than `older_than`."""
    deleted, _ = IntegrationGrant.objects.filter(expires_at__lt=timezone.now() - older_than).delete()
    return deleted
