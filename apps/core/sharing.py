"""Sharing records with people of the workspace, for every area that has private records.

A shareable record has an owner and a visibility: `workspace` (everyone whose role lets them see
the area) or `private` (its owner, the people it is shared with, and the area's admins). An area
declares one share model per record model:

    class FileShare(ShareBase):
        item = models.ForeignKey(File, on_delete=models.CASCADE, related_name="shares")
        class Meta(ShareBase.Meta):
            constraints = [ShareBase.once("files_share")]

and filters with `visible(rows, share_model, actor, admin=...)`, asks `access_of(...)` what a
person may do with one record, and changes sharing with `share_set(...)`.
"""

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.core.errors import Forbidden, ValidationFailed

USER = settings.AUTH_USER_MODEL


class Visibility(models.TextChoices):
    WORKSPACE = "workspace", gettext_lazy("everyone in the workspace who may see the area")
    PRIVATE = "private", gettext_lazy("the owner and the people it is shared with")


class Access(models.TextChoices):
    VIEW = "view", gettext_lazy("can see")
    EDIT = "edit", gettext_lazy("can change")


class ShareBase(models.Model):
    user = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="+")
    access = models.CharField(max_length=10, choices=Access.choices, default=Access.VIEW)
    shared_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.item_id} shared with {self.user_id} ({self.access})"  # type: ignore[attr-defined]

    @staticmethod
    def once(name: str) -> models.UniqueConstraint:
        return models.UniqueConstraint(fields=["item", "user"], name=name)


def visible(rows: QuerySet[Any], share_model: type[ShareBase], actor: Any, *, admin: bool) -> QuerySet[Any]:
    """Rows of a shareable model that `actor` may see (the area permission is checked by the caller)."""
    if admin:
        return rows
    shared = share_model.objects.filter(item=OuterRef("pk"), user=actor)  # type: ignore[misc]
    return rows.filter(Q(visibility=Visibility.WORKSPACE) | Q(owner=actor) | Exists(shared))


def access_of(item: Any, actor: Any, *, admin: bool, can_edit: bool) -> str:
    """What `actor` may do with a record they can see: "admin", "owner", "edit" or "view".
    `can_edit`: whether their role lets them change the area's records at all."""
    if admin:
        return "admin"
    if item.owner_id == getattr(actor, "pk", None):
        return "owner"
    if not can_edit:
        return "view"
    if item.visibility == Visibility.WORKSPACE:
        return "edit"
    access = item.shares.filter(user=actor).values_list("access", flat=True).first()
    return "edit" if access == Access.EDIT else "view"


def person_by_email(email: str) -> Any:
    """An active person of this workspace, by e-mail; "not found" otherwise."""
    from apps.accounts.selectors import person_by_email as find

    return find(email)


def change(
    item: Any,
    *,
    actor: Any,
    person_email: str | None,
    access: str,
    visibility: str | None,
    admin: bool,
    view_permission: str,
) -> Any:
    """What a share tool does: changes the visibility (owner or admin only) and/or shares with
    one person (by e-mail). The caller has checked the area's share permission and edit access."""
    from apps.accounts.access import can

    if person_email is None and visibility is None:
        raise ValidationFailed(
            _("Say what to change: `personEmail` (with `access`) and/or `visibility`."),
            details={"person_email": ["give personEmail or visibility"]},
        )
    if visibility is not None and visibility != item.visibility:
        if not admin and item.owner_id != getattr(actor, "pk", None):
            raise Forbidden(_("Only its owner (or an admin of the area) may make it private or public."))
        item.visibility = visibility
        item.save(update_fields=["visibility", "updated_at"])
    if person_email is not None:
        person = person_by_email(person_email)
        share_set(
            item, person=person, access=access, actor=actor, person_may_see=can(person, view_permission)
        )
    return item


def share_set(item: Any, *, person: Any, access: str, actor: Any, person_may_see: bool) -> tuple[str, str]:
    """Shares `item` with `person` ("view" or "edit") or stops ("none"); returns (before, after).
    `person_may_see`: whether the person's role lets them see the area at all."""
    if person.pk == item.owner_id and access != "none":
        raise ValidationFailed(
            _("%(email)s owns it already.") % {"email": person.email},
            details={"person_email": ["is the owner"]},
        )
    if access != "none" and not person_may_see:
        raise ValidationFailed(
            _("%(email)s may not use this area (their role does not allow it), so sharing would not help.")
            % {"email": person.email},
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
