"""Personal data of OAuth: the person's connected apps, and the toolkit's tokens, codes and the
clients they registered (docs/privacy.md). Secrets (tokens, codes, client secrets) are never
exported; disabling them is the soft delete, deleting them the erasure."""

from django.utils import timezone
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_id_token_model,
    get_refresh_token_model,
)

from apps.core import privacy
from apps.oauth.models import Connection, SpentCode

expire_now = {"expires": timezone.now}

privacy.register(Connection, user="user", soft_delete="revoked_at", credential=True)
privacy.not_personal(
    SpentCode, reason="digests of exchanged authorization codes, tied to a client, kept to detect replays"
)
privacy.register(
    get_access_token_model(),
    user="user",
    exclude=["token", "token_checksum"],
    soft_delete=expire_now,
    credential=True,
)
privacy.register(
    get_refresh_token_model(),
    user="user",
    exclude=["token", "token_checksum"],
    soft_delete="revoked",
    credential=True,
)
privacy.register(
    get_grant_model(),
    user="user",
    exclude=["code", "code_challenge", "nonce"],
    soft_delete=expire_now,
    credential=True,
)
privacy.register(get_id_token_model(), user="user", exclude=["jti"], soft_delete=expire_now)
privacy.register(get_application_model(), user="user", exclude=["client_secret"])
