"""What the accounts app does when other apps tell it something."""

from typing import Any

from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest

from apps.accounts import services, throttle
from apps.tenancy.signals import workspace_created


@receiver(workspace_created)
def create_owner(sender: Any, *, owner_email: str, owner_password_hash: str | None, **kwargs: Any) -> None:
    """A new workspace's first person, its owner (in the workspace's schema, in its transaction),
    with the password the workspace's creator hashed already (or none: an unusable one)."""
    services.user_create_owner(email=owner_email, password_hash=owner_password_hash)


@receiver(user_login_failed)
def count_wrong_password(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    """Wrong passwords for one address, from any client address (apps.accounts.throttle)."""
    throttle.counted_failure(request)
