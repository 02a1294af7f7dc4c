"""What the accounts app does when other apps tell it something."""

from typing import Any

from django.dispatch import receiver

from apps.accounts import services
from apps.tenancy.signals import workspace_created


@receiver(workspace_created)
def create_owner(sender: Any, *, owner_email: str, owner_password_hash: str | None, **kwargs: Any) -> None:
    """A new workspace's first person, its owner (in the workspace's schema, in its transaction),
    with the password the workspace's creator hashed already (or none: an unusable one)."""
    services.user_create_owner(email=owner_email, password_hash=owner_password_hash)
