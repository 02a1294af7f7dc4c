"""Reads of the OAuth app."""

import hashlib

from django.db.models import QuerySet
from oauth2_provider.models import AbstractAccessToken, get_access_token_model

from apps.accounts.models import User
from apps.core.errors import or_not_found
from apps.oauth.models import Connection


def connection_list(*, user: User) -> QuerySet[Connection]:
    """The clients `user` has connected and not disconnected."""
    return Connection.objects.filter(user=user, revoked_at__isnull=True).select_related("application")


def connection_get(*, user: User, connection_id: int) -> Connection:
    return or_not_found(connection_list(user=user).filter(pk=connection_id).first())


def access_token_by_value(raw: str) -> AbstractAccessToken | None:
    """The stored access token `raw` stands for (only its checksum is stored), with its client,
    person and role."""
    return (
        get_access_token_model()
        .objects.select_related("application", "user", "user__role")
        .filter(token_checksum=_checksum(raw))
        .first()
    )


def _checksum(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()
