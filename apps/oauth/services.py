"""Writes of the OAuth app: connections (the "Connected apps" page) and the periodic clean-up."""

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import (
    clear_expired,
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_refresh_token_model,
)

from apps.accounts.models import User
from apps.core.actors import Actor
from apps.core.errors import NotFound
from apps.oauth.models import Connection, SpentCode

logger = logging.getLogger(__name__)

# A replayed code is recognised for this long after it was spent.
SPENT_CODE_MEMORY = timedelta(days=1)


def connection_record(*, user: User, application: Any, scope: str) -> Connection:
    """A token was issued to `application` for `user`: create or refresh their connection."""
    now = timezone.now()
    connection, _created = Connection.objects.update_or_create(
        user=user,
        application=application,
        defaults={"scope": scope, "last_used_at": now, "revoked_at": None},
    )
    return connection


def connection_touch(*, user_id: int, application_id: int) -> None:
    """The connection was just used (its token opened the MCP endpoint)."""
    Connection.objects.filter(user_id=user_id, application_id=application_id).update(
        last_used_at=timezone.now()
    )


def connection_revoke(*, actor: Actor, connection: Connection) -> Connection:
    """Disconnects a client from a person: every token and pending code it holds for them ends now.

    Refresh tokens are marked revoked (so a later use is recognised as one); access tokens and
    codes are deleted, which the MCP door sees on the very next request.
    """
    if connection.user_id != actor.pk:
        raise NotFound()
    now = timezone.now()
    with transaction.atomic():
        owned = {"user_id": connection.user_id, "application_id": connection.application_id}
        get_refresh_token_model().objects.filter(revoked__isnull=True, **owned).update(
            revoked=now, updated=now, access_token=None
        )
        get_access_token_model().objects.filter(**owned).delete()
        get_grant_model().objects.filter(**owned).delete()
        connection.revoked_at = now
        connection.save(update_fields=["revoked_at"])
    logger.info("connection %s revoked by its person", connection.pk)
    return connection


def unused_clients_delete(*, older_than: timedelta | None = None) -> int:
    """Removes dynamically registered clients that never obtained a token (no connection ever)."""
    if older_than is None:
        older_than = timedelta(hours=settings.OAUTH_UNUSED_CLIENT_HOURS)
    application_model = get_application_model()
    unused = application_model.objects.filter(
        registration_source=application_model.RegistrationSource.DCR,
        created__lt=timezone.now() - older_than,
        connections__isnull=True,
    )
    deleted = 0
    for pk in list(unused.values_list("pk", flat=True)[:10_000]):
        # One by one: each cascades to its registration token and any stale grant.
        count, _ = application_model.objects.filter(pk=pk, connections__isnull=True).delete()
        deleted += 1 if count else 0
    return deleted


def oauth_sweep() -> dict[str, int]:
    """Periodic clean-up inside one workspace: expired tokens and codes (the toolkit's own
    `clear_expired`), codes spent long ago, and clients that registered but never got a token."""
    clear_expired()
    spent, _ = SpentCode.objects.filter(created_at__lt=timezone.now() - SPENT_CODE_MEMORY).delete()
    clients = unused_clients_delete()
    if spent or clients:
        logger.info("oauth sweep: %s spent codes, %s unused clients removed", spent, clients)
    return {"spent_codes": spent, "clients": clients}
