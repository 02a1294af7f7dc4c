"""Telling the doors that someone's tool list changed.

`tool_list_changed` is sent (in the process that made the change) when a role's permissions
change, a person gets another role or is (de)activated, or a workspace's installed areas
change. Receivers get `schema_name` and `user_ids` (None: everyone in that workspace). The MCP
transport listens to send `notifications/tools/list_changed` on the open streams.

The per-role caches of `apps.catalogue.dispatch` do not depend on these signals for
correctness (their keys change with the data); they are cleared here only to free memory.
"""

from typing import Any

from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import Signal, receiver

from apps.accounts.models import Role, User
from apps.core.db import connection
from apps.tenancy.models import Workspace

tool_list_changed = Signal()

_WATCHED_USER_FIELDS = ("role", "role_id", "is_active")


def _send(schema_name: str, user_ids: list[int] | None) -> None:
    from apps.catalogue.dispatch import forget_cached_lists

    forget_cached_lists()
    if schema_name and schema_name != "public":
        tool_list_changed.send(sender=None, schema_name=schema_name, user_ids=user_ids)


@receiver([post_save, post_delete], sender=Role)
def _role_changed(sender: Any, instance: Role, **kwargs: Any) -> None:
    if kwargs.get("created"):
        return
    user_ids = list(User.objects.filter(role_id=instance.pk).values_list("pk", flat=True))
    _send(connection.schema_name, user_ids)


@receiver(pre_save, sender=User)
def _remember_user_access(sender: Any, instance: User, **kwargs: Any) -> None:
    update_fields = kwargs.get("update_fields")
    if instance.pk is None or (
        update_fields is not None and not set(update_fields) & set(_WATCHED_USER_FIELDS)
    ):
        instance._atrium_access_before = None  # type: ignore[attr-defined]
        return
    instance._atrium_access_before = (  # type: ignore[attr-defined]
        User.objects.filter(pk=instance.pk).values_list("role_id", "is_active").first()
    )


@receiver(post_save, sender=User)
def _user_changed(sender: Any, instance: User, **kwargs: Any) -> None:
    before = getattr(instance, "_atrium_access_before", None)
    if before is not None and before != (instance.role_id, instance.is_active):
        _send(connection.schema_name, [instance.pk])


@receiver(pre_save, sender=Workspace)
def _remember_areas(sender: Any, instance: Workspace, **kwargs: Any) -> None:
    update_fields = kwargs.get("update_fields")
    if instance.pk is None or (update_fields is not None and "installed_areas" not in update_fields):
        instance._atrium_areas_before = None  # type: ignore[attr-defined]
        return
    instance._atrium_areas_before = (  # type: ignore[attr-defined]
        Workspace.objects.filter(pk=instance.pk).values_list("installed_areas", flat=True).first()
    )


@receiver(post_save, sender=Workspace)
def _areas_changed(sender: Any, instance: Workspace, **kwargs: Any) -> None:
    before = getattr(instance, "_atrium_areas_before", None)
    if before is not None and sorted(before) != sorted(instance.installed_areas):
        _send(instance.schema_name, None)
