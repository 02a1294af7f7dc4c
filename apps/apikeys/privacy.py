"""Personal data of API keys: the person's keys and what they spent (docs/privacy.md). The key's
digest and signing secrets are never exported; revoking the keys is the soft delete."""

from apps.apikeys.models import ApiKey, Reservation, UsageDay
from apps.core import credentials, privacy

privacy.register(
    ApiKey,
    user="user",
    exclude=["digest", "signing_secret_encrypted", "previous_signing_secret_encrypted"],
    soft_delete=credentials.revoke_all,
    credential=True,
    # After the usage rows, which its deletion takes along.
    order=50,
)
privacy.register(Reservation, user="key__user")
privacy.register(UsageDay, user="key__user")
