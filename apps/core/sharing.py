"""Sharing records with people of the workspace: one share model shape for every area.

A shareable record is an `OwnedRecord` whose access declares `shares=True` (apps.core.records),
with one share model:

    class FileShare(ShareBase):
        item = models.ForeignKey(File, on_delete=models.CASCADE, related_name="shares")

(one share per person and record: the constraint `files_share_once` comes with the base).

`change(...)` is what every share tool does; `share_set(...)` shares with one person.
`trash_private` and `erase_owned` are what an erasure does to a person's shareable records
(apps.core.privacy): the private ones go, the workspace's stay without an owner.
"""

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import QuerySet
from django.utils import timezone

from apps.core import clean
from apps.core.actors import Actor, can
from apps.core.errors import MayNotUseArea, NotOwner, OwnsItAlready, PortalSharesView, ShareNeedsChange
from apps.core.records import ADMIN, OWNER, ShareAccess, Visibility

USER = settings.AUTH_USER_MODEL

__all__ = ["ShareAccess", "ShareBase", "Visibility", "change", "erase_owned", "share_set", "trash_private"]


class ShareBase(models.Model):
    user = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="+")
    access = models.CharField(max_length=10, choices=ShareAccess.choices, default=ShareAccess.VIEW)
    shared_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        abstract = True
        # One share per person and record ("contacts_share_once").
        constraints = [models.UniqueConstraint(fields=["item", "user"], name="%(app_label)s_share_once")]

    def __str__(self) -> str:
        return f"{self.item_id} shared with {self.user_id} ({self.access})"  # type: ignore[attr-defined]


def change(
    item: Any,
    *,
    actor: Actor,
    person_email: str | None,
    access: str,
    visibility: str | None,
) -> Any:
    """What a share tool does: changes the visibility (owner or admin only) and/or shares with
    one person (by e-mail). The caller holds the record for change (`fetch(..., "change")`) and
    the tool's share permission has been checked."""
    rule = type(item).access
    if person_email is None and visibility is None:
        raise ShareNeedsChange(details={"person_email": ["give personEmail or visibility"]})
    if visibility is not None and visibility != item.visibility:
        if rule.level(actor, item) not in (ADMIN, OWNER):
            raise NotOwner()
        item.visibility = visibility
        item.save(update_fields=["visibility", "updated_at"])
    if person_email is not None:
        person = clean.person_by_email(person_email)
        share_set(
            item,
            person=person,
            access=access,
            actor=actor,
            person_may_see=can(person, rule.permission("view") or "")
            or _portal_may_see(person, item, access),
        )
    return item


def _portal_may_see(person: Any, item: Any, access: str) -> bool:
    """A client portal person (no permission of any area) may be given "view" of the records
    settings.ATRIUM_PORTAL_ITEMS names, which the portal's pages show them; nothing else."""
    if not getattr(person, "is_portal", False):
        return False
    if type(item)._meta.label not in settings.ATRIUM_PORTAL_ITEMS:
        return False
    if access not in ("view", "none"):
        raise PortalSharesView(email=person.email, details={"access": ["view or none"]})
    return True


def share_set(item: Any, *, person: Any, access: str, actor: Actor, person_may_see: bool) -> tuple[str, str]:
    """Shares `item` with `person` ("view" or "edit") or stops ("none"); returns (before, after).
    `person_may_see`: whether the person's role lets them see the area at all."""
    if person.pk == item.owner_id and access != "none":
        raise OwnsItAlready(
            email=person.email,
            details={"person_email": ["is the owner"]},
        )
    if access != "none" and not person_may_see:
        raise MayNotUseArea(
            email=person.email,
            details={"person_email": ["role cannot see this area"]},
        )
    share = item.shares.filter(user=person).first()
    before = share.access if share else "none"
    if access == "none":
        if share is not None:
            share.delete()
    elif share is None:
        item.shares.create(user=person, access=access, shared_by=actor)
    elif share.access != access:
        share.access = access
        share.save(update_fields=["access"])
    return before, access


# --- a person's erasure (apps.core.privacy): their private records go, the workspace's stay -------


def trash_private(rows: QuerySet[Any], **also: Any) -> int:
    """The soft delete of a person's owned records: the private ones not yet in the trash are put
    there (with `also`'s fields set, a finder stopped); the workspace's are the workspace's."""
    return rows.filter(visibility=Visibility.PRIVATE, deleted_at__isnull=True).update(
        deleted_at=timezone.now(), **also
    )


def erase_owned(rows: QuerySet[Any]) -> int:
    """The erasure of a person's owned records: the private ones are deleted, the workspace's
    stay with no owner."""
    kept = rows.exclude(visibility=Visibility.PRIVATE).update(owner=None)
    erased, _per_model = rows.filter(visibility=Visibility.PRIVATE).delete()
    return kept + erased
