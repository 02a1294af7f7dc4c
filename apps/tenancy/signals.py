from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from apps.tenancy import routing
from apps.tenancy.models import Domain, Workspace


@receiver([post_save, post_delete], sender=Domain)
@receiver([post_save, post_delete], sender=Workspace)
def forget_routes(sender: Any, **kwargs: Any) -> None:
    routing.forget()
