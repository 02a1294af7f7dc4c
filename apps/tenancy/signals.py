from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import Signal, receiver

from apps.tenancy import routing
from apps.tenancy.models import Domain, Workspace

# Sent inside the transaction that creates a workspace, with its schema active: `workspace`,
# `owner_email` and `owner_password` (None: no usable password). The accounts app makes the
# owner (tenancy knows workspaces, not people); a receiver's error undoes the whole creation.
workspace_created = Signal()


@receiver([post_save, post_delete], sender=Domain)
@receiver([post_save, post_delete], sender=Workspace)
def forget_routes(sender: Any, **kwargs: Any) -> None:
    routing.forget()
