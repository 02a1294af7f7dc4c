"""Personal data of API keys: the person's keys and what they spent (docs/privacy.md). The key's
digest and signing secrets are never exported; revoking the keys is the soft delete."""

from django.db.models import QuerySet
from django.utils import timezone

from apps.apikeys.models import ApiKey, Reservation, UsageDay
from apps.core import credentials, privacy


def revoke(keys: QuerySet) -> int:
    live = keys.filter(revoked_at__isnull=True)
    people = list(live.values_list("user_id", flat=True).distinct())
    count = live.update(revoked_at=timezone.now())
    credentials.revoked(user_ids=people)
    return count


privacy.register(
    ApiKey,
    user="user",
    exclude=["digest", "signing_secret_encrypted", "previous_signing_secret_encrypted"],
    soft_delete=revoke,
    # After the usage rows, which its deletion takes along.
    order=50,
)
privacy.register(Reservation, user="key__user")
privacy.register(UsageDay, user="key__user")
