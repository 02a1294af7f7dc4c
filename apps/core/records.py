"""The records people and agents work with in every area, and who may see and change them.

An area's record model inherits `Record` (timestamps, who made it, soft delete) or `OwnedRecord`
(also an owner and a visibility), and declares who may do what with it, once, as `access`:

    class Document(OwnedRecord):
        access = Access(DocumentsPerm, shares=True, label=_("Document"), find_with="listDocuments")

Every door then starts from the same call (NetBox's `RestrictedQuerySet.restrict`):

    Document.objects.restrict(actor, "view").filter(folder=folder)
    document = Document.objects.fetch(actor, document_id, "change")   # or the kit's errors

The rule, for a person whose role holds the area's permission for the action (view, change,
delete; none: no rows at all):
- the area's admins (its ADMIN permission) see and change every record, private ones included;
- otherwise `visibility` decides what they see: the `workspace` records, their own (`owner`),
  and those shared with them (`shares`, a `ShareBase` model); a model without a visibility
  column is either the whole workspace's (`Access(visibility="workspace")`) or its owner's alone
  (`Access(visibility="owner")`: a notification and its recipient);
- they change (or delete) what they own, and the records they see through the workspace or a
  share "edit";
- a record whose access is its parent's (`through="calendar"`) follows the parent, and may name
  who else sees it (`also`: the people invited to an event).

Anything else is "not found", never "forbidden" (the same answer as an id that does not exist).
Soft-deleted records are left out unless asked for (`trash="include"` or `"only"`).
"""

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core import clean
from apps.core.actors import Actor, actor_id, can, require
from apps.core.errors import AppError, Forbidden, InTrash, ReadOnly, RecordNotFound, ValidationFailed

if TYPE_CHECKING:
    from apps.core.permissions import PermissionEnum

logger = logging.getLogger(__name__)
USER = settings.AUTH_USER_MODEL
R = TypeVar("R", bound=models.Model)
Action = Literal["view", "change", "delete"]
Trash = Literal["exclude", "include", "only"]
# What a person may do with a record they can see, most first.
ADMIN, OWNER, EDIT, VIEW = "admin", "owner", "edit", "view"


class Visibility(models.TextChoices):
    """The one vocabulary of every area: who sees a record besides its owner and its shares."""

    WORKSPACE = "workspace", _("everyone in the workspace who may see the area")
    PRIVATE = "private", _("the owner and the people it is shared with")


class ShareAccess(models.TextChoices):
    VIEW = "view", _("can see")
    EDIT = "edit", _("can change")


_NOTHING = Q(pk__in=[])


@dataclass(frozen=True)
class Access:
    """Who may see, change and delete the rows of one model, and how they are named to people.

    Permissions are the area enum's VIEW, EDIT, DELETE and ADMIN members unless given."""

    permissions: "type[PermissionEnum] | None" = None
    label: Any = ""  # "Contact": what messages call one record (default: the verbose name)
    find_with: str = ""  # the tool that finds ids, named when one is not found
    restore_with: str = ""  # the tool that brings one back from the trash
    trash_hint: Any = ""  # or, without such a tool, how it comes back
    # "field": the row's `visibility` decides; "workspace": every row is everyone's (in the
    # area); "owner": only the owner's (and the admins').
    visibility: Literal["field", "workspace", "owner"] = "field"
    # The field of the record's owner: `owner`, but none by default where an owner would give
    # nothing (rows every person of the area sees, and children that follow their parent).
    owner: str | None = ""
    shares: bool = False  # private rows are shared through the model's `shares` (ShareBase)
    through: str | None = None  # the parent whose access this record follows
    also: Callable[[int], Q] | None = None  # who else (by their id) sees a row (never changes it)
    view: str | None = None
    change: str | None = None
    delete: str | None = None
    admin: str | None = None
    # False: nobody sees every row (a person's notifications are theirs alone, admins too).
    admins: bool = True
    # The trash: what it is called for this model ("archived") and the code of using one in it.
    trash_state: Any = ""
    trash_code: str | None = None
    # What a person who sees a record but may not change it is told, made with `id=` (an
    # event they are only invited to: `EventReadOnly`); default: ReadOnly.
    read_only_error: type[AppError] | None = None

    # Each action's permission, once worked out (`permission`).
    _permissions: dict[str, str | None] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.owner == "":
            owned = self.visibility != "workspace" and self.through is None
            object.__setattr__(self, "owner", "owner" if owned else None)

    def permission(self, action: Action) -> str | None:
        # Worked out once per action: every read asks, several times per call.
        known = self._permissions
        if action not in known:
            known[action] = self._permission(action)
        return known[action]

    def _permission(self, action: Action) -> str | None:
        explicit = {"view": self.view, "change": self.change, "delete": self.delete}[action]
        if explicit:
            return explicit
        names = {"view": ("VIEW",), "change": ("EDIT",), "delete": ("DELETE", "EDIT")}[action]
        return next((str(getattr(self.permissions, n)) for n in names if hasattr(self.permissions, n)), None)

    def admin_permission(self) -> str | None:
        known = self._permissions
        if "admin" not in known:
            known["admin"] = self._admin_permission()
        return known["admin"]

    def _admin_permission(self) -> str | None:
        if not self.admins:
            return None
        if self.admin:
            return self.admin
        return str(self.permissions.ADMIN) if hasattr(self.permissions, "ADMIN") else None  # type: ignore[union-attr]

    def is_admin(self, actor: Actor | None) -> bool:
        permission = self.admin_permission()
        return permission is not None and can(actor, permission)

    def may(self, actor: Actor | None, action: Action) -> bool:
        """Whether the actor's role lets them `action` records of this model at all (an action
        without a permission is nobody's)."""
        view, wanted = self.permission("view"), self.permission(action)
        if view is None or wanted is None or not can(actor, view):
            return False
        return wanted == view or can(actor, wanted)

    def condition(self, model: type[models.Model], actor: Actor | None, action: Action) -> Q:
        """The rows `actor` may `action`, as a condition on `model` (Q(): all of them): none
        unless their role allows the action, all for the area's admins, otherwise `rows`."""
        if actor is None or not getattr(actor, "is_authenticated", False) or not self.may(actor, action):
            return _NOTHING
        if self.through:
            # A child of a record in the trash is in the trash with it, for everyone.
            parent = self.parent(model)
            live = Q(**{f"{self.through}__in": trashed(parent._default_manager.all(), "exclude")})
            if self.is_admin(actor):
                return live
            rows = self.rows(model, actor, action)
            return (rows | self.also(actor.pk)) & live if self.also and action == "view" else rows & live
        return Q() if self.is_admin(actor) else self.rows(model, actor, action)

    def rows(self, model: type[models.Model], actor: Actor, action: Action) -> Q:
        """The rows a person whose role allows the action (and who is not the area's admin) may
        `action`: what they see (`visible_to`), or change: what they own, and what they see
        through the workspace or a share "edit". A child follows its parent's rows."""
        if self.through:
            parent = self.parent(model)
            rows = parent._default_manager.filter(parent.access.rows(parent, actor, action))
            return Q(**{f"{self.through}__in": trashed(rows, "exclude")})
        if action == "view":
            return self.visible_to(model, actor.pk)
        if self.visibility == "workspace":
            return Q()
        changed = Q(**{self.owner: actor.pk}) if self.owner else _NOTHING
        if self.visibility == "field":
            changed |= Q(visibility=Visibility.WORKSPACE)
        if self.shares:
            edits = _shares(model).filter(item=OuterRef("pk"), user=actor.pk, access=ShareAccess.EDIT)
            changed |= Q(Exists(edits))
        return changed

    def visible_to(self, model: type[models.Model], person_id: Any) -> Q:
        """The rows a person sees who may see the area and is not its admin, as a condition built
        from their id alone: for a query compiled once and run with each caller's id
        (apps.core.prepared)."""
        if self.visibility == "workspace":
            return Q()
        seen = Q(**{self.owner: person_id}) if self.owner else _NOTHING
        if self.visibility == "field":
            seen |= Q(visibility=Visibility.WORKSPACE)
        if self.shares:
            seen |= Q(Exists(_shares(model).filter(item=OuterRef("pk"), user=person_id)))
        return seen | self.also(person_id) if self.also else seen

    def parent(self, model: type[models.Model]) -> Any:
        return model._meta.get_field(self.through).related_model  # type: ignore[arg-type]

    def level(self, actor: Actor | None, record: Any, shares: Iterable[Any] | None = None) -> str:
        """What `actor` may do with a record they can see: admin, owner, edit or view (edit only
        when their role allows changes). `shares`: the record's shares, when the caller has them."""
        if self.is_admin(actor):
            return ADMIN
        found = self.row_level(actor, record, shares)
        return VIEW if found == EDIT and not self.may(actor, "change") else found

    def row_level(self, actor: Actor | None, record: Any, shares: Iterable[Any] | None = None) -> str:
        """`level` by the record alone: owner, edit (through the workspace, a share "edit", or a
        parent they may change) or view."""
        actor_pk = getattr(actor, "pk", None)
        if self.through:
            parent = getattr(record, self.through)
            rows = type(parent)._default_manager.filter(pk=parent.pk)
            access = type(parent).access
            if actor is None or not rows.filter(access.rows(type(parent), actor, "view")).exists():
                return VIEW  # seen only as one of `also` (an invited person)
            return EDIT if access.row_level(actor, parent) in (OWNER, EDIT) else VIEW
        if self.owner and getattr(record, f"{self.owner}_id") == actor_pk:
            return OWNER
        if self.visibility == "workspace" or (
            self.visibility == "field" and record.visibility == Visibility.WORKSPACE
        ):
            return EDIT
        if self.shares:
            if shares is None:
                shares = record.shares.filter(user=actor_pk)
            if any(share.user_id == actor_pk and share.access == ShareAccess.EDIT for share in shares):
                return EDIT
        return VIEW

    def allows(self, actor: Actor | None, record: Any, action: Action) -> bool:
        if action == "view":
            return True  # the caller found it among the rows the actor sees
        return self.may(actor, action) and self.level(actor, record) != VIEW

    # --- how records are named to people ----------------------------------------------------

    def label_of(self, model: type[models.Model]) -> str:
        return str(self.label or model._meta.verbose_name).capitalize()

    def not_found(self, model: type[models.Model], record_id: Any) -> RecordNotFound:
        return RecordNotFound(label=self.label_of(model), id=record_id, find_with=self.find_with)

    def in_trash(self, model: type[models.Model], record_id: Any) -> InTrash:
        hint = self.trash_hint or (
            _("Restore it with %(tool)s first if it is still needed.") % {"tool": self.restore_with}
            if self.restore_with
            else ""
        )
        return InTrash(
            label=self.label_of(model), id=record_id, state=self.trash_state, hint=hint, code=self.trash_code
        )

    def read_only(self, model: type[models.Model], record_id: Any) -> AppError:
        if self.read_only_error is not None:
            return self.read_only_error(id=record_id)
        return ReadOnly(label=self.label_of(model).lower(), id=record_id)

    def role_refuses(self, model: type[models.Model], action: Action) -> Forbidden:
        return Forbidden(
            _("Your role may see %(things)s but not %(action)s them.")
            % {
                "things": model._meta.verbose_name_plural,
                "action": _("delete") if action == "delete" else _("change"),
            }
        )


def _shares(model: type[models.Model]) -> Any:
    return model._meta.get_field("shares").related_model._default_manager  # type: ignore[union-attr]


class RecordQuerySet(models.QuerySet):
    """Rows as an actor may see or change them (the model's `access`), and soft delete."""

    def restrict(self, actor: Actor | None, action: Action = "view", *, trash: Trash = "exclude") -> Any:
        rows = self.filter(self.model.access.condition(self.model, actor, action))
        return trashed(rows, trash)

    def fetch(
        self,
        actor: Actor | None,
        pk: Any,
        action: Action = "view",
        *,
        trash: bool = False,
        lock: bool = False,
    ) -> Any:
        """The record `pk` if `actor` may see it (and `action` it): RecordNotFound otherwise,
        InTrash when it is in the trash (unless `trash`), Forbidden when they may only see it.
        `lock`: its row is locked for the rest of the transaction (SELECT ... FOR UPDATE)."""
        access: Access = self.model.access
        rows = self.restrict(actor, "view", trash="include").filter(pk=pk)
        record = (rows.select_for_update(of=("self",)) if lock else rows).first()
        if record is None:
            raise access.not_found(self.model, pk)
        if getattr(record, "deleted_at", None) is not None and not trash:
            raise access.in_trash(self.model, pk)
        if not access.allows(actor, record, action):
            if not access.may(actor, action):
                raise access.role_refuses(self.model, action)
            raise access.read_only(self.model, pk)
        return record

    def live(self) -> Any:
        return self.filter(deleted_at__isnull=True)

    def in_trash(self) -> Any:
        return self.filter(deleted_at__isnull=False)


def trashed(rows: Any, trash: Trash) -> Any:
    """`rows` with their soft-deleted ones left out, kept, or alone (models without a trash:
    unchanged)."""
    if trash == "include" or not hasattr(rows.model, "deleted_at"):
        return rows
    return rows.filter(deleted_at__isnull=trash == "exclude")


class Record(models.Model):
    """The base of an area's user-facing records: who made it and when, and a soft delete
    (`deleted_at` set: in the trash, or archived; restorable until it is erased)."""

    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    deleted_at = models.DateTimeField(_("deleted"), null=True, blank=True)
    deleted_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    objects = RecordQuerySet.as_manager()
    access: ClassVar[Access] = Access()

    class Meta:
        abstract = True

    @property
    def in_trash(self) -> bool:
        return self.deleted_at is not None

    def trash(self, actor: Actor | None, *, also: Iterable[str] = ()) -> None:
        self.deleted_at = timezone.now()
        self.deleted_by_id = actor_id(actor)
        self.save(update_fields=["deleted_at", "deleted_by", "updated_at", *also])

    def untrash(self, *, also: Iterable[str] = ()) -> None:
        self.deleted_at = None
        self.deleted_by = None
        self.save(update_fields=["deleted_at", "deleted_by", "updated_at", *also])


class OwnedRecord(Record):
    """A record with an owner and a visibility (see the module's rule)."""

    owner = models.ForeignKey(
        USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("owner")
    )
    visibility = models.CharField(
        _("visible to"), max_length=20, choices=Visibility.choices, default=Visibility.WORKSPACE
    )

    class Meta:
        abstract = True


def restrict(model: type[models.Model], actor: Actor | None, action: Action = "view") -> Any:
    """`model.objects.restrict(...)` for a model given by class (generic code: kinds, pages)."""
    return model._default_manager.restrict(actor, action)  # type: ignore[attr-defined]


# --- small rules every area's services apply to their records the same way ------------------------


# apply(actor, record, fields, creating): sets (and checks) the record's fields from `fields`, the
# changes a caller asked for (all of them when creating).
Apply = Callable[[Actor, R, dict[str, Any], bool], None]


def create(
    model: type[R], *, actor: Actor, permission: str, fields: dict[str, Any], apply: Apply[R], **initial: Any
) -> R:
    """A new record made by `actor` (who must hold `permission`): `initial` given, `apply` setting
    (and checking) the rest from `fields` before it is saved."""
    require(actor, permission)
    record = model(created_by_id=actor_id(actor), **initial)
    apply(actor, record, fields, True)
    record.save()
    logger.info("%s %s created", model._meta.model_name, record.pk)
    return record


def update(
    record: R, *, actor: Actor, permission: str, fields: dict[str, Any], apply: Apply[R], names: Iterable[str]
) -> list[str]:
    """`save_changes` for `actor`, who must hold `permission`, `apply` setting what `fields` asks:
    the names of the record's fields that changed."""
    require(actor, permission)
    return save_changes(record, names, lambda: apply(actor, record, fields, False))


def save_changes(record: Any, names: Iterable[str], apply: Callable[[], None]) -> list[str]:
    """Runs `apply` (which sets fields on `record`), saves the record if any of `names` changed,
    and returns the ones that did, in order."""
    names = list(names)
    before = {name: getattr(record, name) for name in names}
    apply()
    changed = [name for name in names if getattr(record, name) != before[name]]
    if changed:
        record.save()
    return changed


def name_once(constraint: str, *, field: str = "name") -> models.UniqueConstraint:
    """The database's side of `unique_name`: one live record of a name, case aside (those in the
    trash do not count), as the constraint named `constraint`."""
    return models.UniqueConstraint(Lower(field), condition=Q(deleted_at__isnull=True), name=constraint)


def unique_name(record: Any, value: Any, *, what: str, limit: int, field: str = "name") -> str:
    """`value` with its spaces tidied, required, and not the name of another live record of the
    same model (compared without case; soft-deleted records do not count)."""
    name = clean.text(value, field=field, limit=limit, required=True)
    taken = (
        type(record)
        .objects.filter(**{f"{field}__iexact": name, "deleted_at__isnull": True})
        .exclude(pk=record.pk)
    )
    if taken.exists():
        message = f"there is already {what} called {name!r}"
        raise ValidationFailed(f"{field}: {message}.", details={field: [message]})
    return name
