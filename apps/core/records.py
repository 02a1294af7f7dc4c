"""The records people and agents work with in every area, and who may see and change them.

An area's record model inherits `Record` (timestamps, who made it, soft delete) or `OwnedRecord`
(also an owner and a visibility), and declares who may do what with it, once, as `access`:

    class Document(OwnedRecord):
        access = Access(DocumentsPerm, shares=True, label=_("Document"), find_with="listDocuments")

    class LeaveRequest(Record):
        access = Access(
            HrPerm,
            visibility="owner",
            owner="employee__user",  # whose it is: a path to a person
            also="requested_by",  # who else sees it (never changes it)
            sees_all=(HrPerm.APPROVE_LEAVE,),  # besides the area's admins
            label=_("Leave request"),
        )

Every door then starts from the same call (NetBox's `RestrictedQuerySet.restrict`), typed with
the model (`restrict` answers a queryset of it, `fetch` one of it):

    Document.objects.restrict(actor, "view").filter(folder=folder)
    document = Document.objects.fetch(actor, document_id, "change")   # or the kit's errors

The rule, for a person whose role holds the area's permission for the action (view, change,
delete; none: no rows at all):
- the area's admins (its ADMIN permission) and the holders of a `sees_all` permission see and
  change every record, private ones included; a `changes_all` permission changes (and deletes)
  every record but sees only what the rest of the rule shows (a mailbox's mail stays its people's);
- otherwise `visibility` decides what they see: the `workspace` records, their own (the person
  at the `owner` path, or any of several), those shared with them (`shares`, a `ShareBase` model)
  and those `also` names them on; a model without a visibility column is either the whole
  workspace's (`visibility="workspace"`: its owner, if it names one, alone changes it) or its
  owners' alone (`visibility="owner"`: a notification and its recipient);
- they change (or delete) what they own, and the records they see through the workspace or a
  share "edit" (deleting those needs a role that changes them too);
- a record whose access is its parent's (`through="calendar"`) follows the parent, and may name
  who else sees it (`also`: the people invited to an event) or who alone changes it (`owner`); a
  child with `visibility="owner"` is seen only by its own people, within its parent's live rows;
- `drafts` are rows still their owners' alone, whoever else would see them (an assessment until
  it is submitted).

Anything else is "not found", never "forbidden" (the same answer as an id that does not exist).
Soft-deleted records are left out unless asked for (`trash="include"` or `"only"`). A run for no
person (a scheduled run, an e-mail that arrived) reads as `ANYONE`: the rows every person of the
area sees, never someone's private ones.

Some fields are more sensitive than their record (pay, identity numbers, health): `fields` names
them (a field, or a related row such as an employee's `restricted` details) with the permission
that reads and changes them, and `Model.access.fields_allowed(actor, record, action)` says which of
them a person may read or change.
"""

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self, TypeVar

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core import clean
from apps.core.actors import Actor, actor_id, can, require
from apps.core.errors import (
    AppError,
    Forbidden,
    InTrash,
    ReadOnly,
    RecordNotFound,
    RoleRefuses,
    WorkspaceRowKept,
    invalid,
)

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


class Anyone:
    """Nobody in particular: what a run for no person (a scheduled run, an e-mail that arrived)
    reads. It sees the rows every person of the area sees (never someone's private ones, nor
    another person's own) and changes nothing."""

    pk = None
    is_authenticated = False

    def __repr__(self) -> str:
        return "ANYONE"


ANYONE = Anyone()

_NOTHING = Q(pk__in=[])


def _paths(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if not value:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


@dataclass(frozen=True)
class Access:
    """Who may see, change and delete the rows of one model, and how they are named to people.

    Permissions are the area enum's VIEW, EDIT, DELETE and ADMIN members unless given (`manage`:
    one permission for both changing and deleting)."""

    permissions: "type[PermissionEnum] | None" = None
    label: Any = ""  # "Contact": what messages call one record (default: the verbose name)
    find_with: str = ""  # the tool that finds ids, named when one is not found
    restore_with: str = ""  # the tool that brings one back from the trash
    trash_hint: Any = ""  # or, without such a tool, how it comes back
    # "field": the row's `visibility` decides; "workspace": every row is everyone's (in the
    # area); "owner": only the owner's (and the admins').
    visibility: Literal["field", "workspace", "owner"] = "field"
    # Whose a row is: the path of a person's foreign key (`owner`, `recipient`,
    # `employee__user`), or several; none by default where an owner would give nothing (rows
    # every person of the area sees, and children that follow their parent).
    owner: str | tuple[str, ...] | None = ""
    shares: bool = False  # private rows are shared through the model's `shares` (ShareBase)
    through: str | None = None  # the parent whose access this record follows
    # Who else sees a row (never changes it): paths to people (`requested_by`,
    # `memberships__user`), or a condition made from a person's id.
    also: str | tuple[str, ...] | Callable[[Any], Q] | None = None
    # Who decides on rows others own, beside those who see every row (a line manager on their
    # reports' leave: `employee__manager__user`): paths to people, as `owner`. They see the rows
    # too; what deciding is, the area's services say (`decides`).
    deciders: str | tuple[str, ...] | None = None
    # Rows still their owners' alone, whoever else would see them (an unsubmitted assessment).
    drafts: Q | None = None
    # The people a row is about, who never see it whatever their role (a grievance's subject,
    # though they handle grievances): paths to people, as `owner`.
    hidden_from: str | tuple[str, ...] | None = None
    # Permissions whose holders see and change every row, as the area's admins do.
    sees_all: tuple[str, ...] = ()
    # Permissions whose holders change and delete every row, seeing what the rule shows them.
    changes_all: tuple[str, ...] = ()
    # Fields (or related rows) more sensitive than the record: the permission that reads and
    # changes each (`fields_allowed`).
    fields: Mapping[str, str] = field(default_factory=dict, hash=False)
    # Of `fields`, those the person a row is about reads on their own row whatever their role
    # (an employee their pay): the field's name and the path to them (`{"restricted": "user"}`).
    own_fields: Mapping[str, str] = field(default_factory=dict, hash=False)
    view: str | None = None
    change: str | None = None
    delete: str | None = None
    # The one permission that both changes and deletes rows (`change` and `delete` together).
    manage: str | None = None
    admin: str | None = None
    # False: nobody sees every row (a person's notifications are theirs alone, admins too).
    admins: bool = True
    # The trash: what it is called for this model ("archived"), and the failure of using one in
    # it, made like InTrash (a variant of it with the area's code: `ContactArchived`).
    trash_state: Any = ""
    trash_error: type[AppError] = InTrash
    # What a person who sees a record but may not change it is told, made with `id=` (an
    # event they are only invited to: `EventReadOnly`); default: ReadOnly.
    read_only_error: type[AppError] | None = None
    # The permission whose holders alone make a row the workspace's and change or delete the
    # workspace's rows (the shared canned replies every agent sends, the workspace's credentials):
    # anyone else changes only their own private rows, and is told `kept_error` (made with `id=`;
    # default: WorkspaceRowKept) of a workspace row (`keeps_from`, `may_share`).
    workspace_kept_by: str | None = None
    kept_error: type[AppError] | None = None

    # Each action's permission, once worked out (`permission`).
    _permissions: dict[str, str | None] = field(default_factory=dict, init=False, repr=False, compare=False)
    # Who sees (or changes) every row, per action, once worked out (`all_rows`).
    _every: dict[str, tuple[str, ...]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner: Any = self.owner
        if owner == "":
            owned = self.visibility != "workspace" and self.through is None
            owner = "owner" if owned else None
        object.__setattr__(self, "owner", owner)
        if self.manage:
            object.__setattr__(self, "change", self.change or self.manage)
            object.__setattr__(self, "delete", self.delete or self.manage)
        object.__setattr__(self, "sees_all", tuple(str(p) for p in self.sees_all))
        object.__setattr__(self, "changes_all", tuple(str(p) for p in self.changes_all))
        object.__setattr__(self, "fields", {name: str(p) for name, p in self.fields.items()})
        if self.workspace_kept_by is not None:
            object.__setattr__(self, "workspace_kept_by", str(self.workspace_kept_by))

    @property
    def owners(self) -> tuple[str, ...]:
        """The paths of the people a row is of (none: nobody owns the rows)."""
        return _paths(self.owner)

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

    def may_share(self, actor: Actor | None) -> bool:
        """Whether `actor` may make a row the workspace's (`workspace_kept_by`; else anyone)."""
        return self.workspace_kept_by is None or can(actor, self.workspace_kept_by)

    def keeps_from(self, actor: Actor | None, record: Any) -> bool:
        """Whether `record` is a workspace row `actor` may see but not change (`workspace_kept_by`)."""
        return getattr(record, "visibility", None) == Visibility.WORKSPACE and not self.may_share(actor)

    def all_rows(self, actor: Actor | None, action: Action = "view") -> bool:
        """Whether `actor` may `action` every row whatever its owner or visibility: the area's
        admins, the holders of a `sees_all` permission, and for changes a `changes_all` one
        (whether their role allows the action at all is `may`)."""
        every = self._every.get(action)
        if every is None:
            admin = self.admin_permission()
            every = ((admin,) if admin else ()) + self.sees_all
            if action != "view":
                every += self.changes_all
            self._every[action] = every
        return any(can(actor, permission) for permission in every)

    def may(self, actor: Actor | None, action: Action) -> bool:
        """Whether the actor's role lets them `action` records of this model at all (an action
        without a permission is nobody's)."""
        view, wanted = self.permission("view"), self.permission(action)
        if view is None or wanted is None or not can(actor, view):
            return False
        return wanted == view or can(actor, wanted)

    def condition(self, model: type[models.Model], actor: "Actor | Anyone | None", action: Action) -> Q:
        """The rows `actor` may `action`, as a condition on `model` (Q(): all of them): none
        unless their role allows the action, all for those who see every row, otherwise
        `rows`; for ANYONE, the rows every person of the area sees."""
        if isinstance(actor, Anyone):
            return self.anyone(model) if action == "view" else _NOTHING
        if actor is None or not getattr(actor, "is_authenticated", False) or not self.may(actor, action):
            return _NOTHING
        if self.all_rows(actor, action):
            # A child of a record in the trash is in the trash with it, for everyone.
            found = self._live(model) if self.through else Q()
        elif action == "delete" and not self.may(actor, "change"):
            # Deleting what is not one's own needs a role that changes it too (as `level` says).
            found = self._owned(model, actor.pk)
            if self.through:
                found &= self._live(model)
        else:
            found = self.rows(model, actor.pk, action)
        if action != "view" and not self.may_share(actor):
            found &= ~Q(visibility=Visibility.WORKSPACE)
        return self._withheld(model, found, actor.pk)

    def rows(self, model: type[models.Model], person_id: Any, action: Action) -> Q:
        """The rows a person whose role allows the action (and who does not see every row) may
        `action`, by their id: what they see, or change: what they own, and what they see
        through the workspace or a share "edit". A child follows its parent's rows."""
        if self.through:
            return self._child_rows(model, person_id, action)
        owned = self._owned(model, person_id)
        if action == "view":
            if self.visibility == "workspace":
                return Q()
            seen = owned
            if self.visibility == "field":
                seen |= Q(visibility=Visibility.WORKSPACE)
            if self.shares:
                seen |= Q(Exists(_shares(model).filter(item=OuterRef("pk"), user=person_id)))
            return seen | self._also(model, person_id)
        if self.visibility == "workspace":
            return owned if self.owners else Q()
        changed = owned
        if self.visibility == "field":
            changed |= Q(visibility=Visibility.WORKSPACE)
        if self.shares:
            edits = _shares(model).filter(item=OuterRef("pk"), user=person_id, access=ShareAccess.EDIT)
            changed |= Q(Exists(edits))
        return changed

    def _child_rows(self, model: type[models.Model], person_id: Any, action: Action) -> Q:
        owned = self._owned(model, person_id)
        if self.visibility == "owner":
            # Its own people alone, within its parent's live rows.
            mine = owned | self._also(model, person_id) if action == "view" else owned
            return self._live(model) & mine
        parent = self.parent(model)
        # A child that names its owners is changed by them alone, among the rows its parent shows.
        parent_action: Action = "view" if self.owners and action != "view" else action
        rows = parent._default_manager.filter(parent.access.rows(parent, person_id, parent_action))
        found = Q(**{f"{self.through}__in": trashed(rows, "exclude")})
        if action == "view":
            also = self._also(model, person_id)
            return found | (also & self._live(model)) if self.also or self.deciders else found
        return found & owned if self.owners else found

    def visible_to(self, model: type[models.Model], person_id: Any) -> Q:
        """The rows a person sees who may see the area and does not see every row, as a
        condition built from their id alone: for a query compiled once and run with each
        caller's id (apps.core.prepared)."""
        return self._withheld(model, self.rows(model, person_id, "view"), person_id)

    def anyone(self, model: type[models.Model]) -> Q:
        """The rows every person of the area sees (what ANYONE reads): the workspace's, never
        someone's own."""
        if self.through:
            if self.visibility == "owner":
                return _NOTHING
            parent = self.parent(model)
            rows = parent._default_manager.filter(parent.access.anyone(parent))
            found = Q(**{f"{self.through}__in": trashed(rows, "exclude")})
        elif self.visibility == "workspace":
            found = Q()
        elif self.visibility == "field":
            found = Q(visibility=Visibility.WORKSPACE)
        else:
            return _NOTHING
        return found & ~self.drafts if self.drafts is not None else found

    def _withheld(self, model: type[models.Model], found: Q, person_id: Any) -> Q:
        """`found` without what is withheld from the person: others' drafts, and the rows about
        them that they may not see."""
        for path in _paths(self.hidden_from):
            found &= ~_person_at(model, path, person_id)
        if self.drafts is None:
            return found
        return found & (~self.drafts | self._owned(model, person_id))

    def _owned(self, model: type[models.Model], person_id: Any) -> Q:
        found = _NOTHING
        for path in self.owners:
            found |= _person_at(model, path, person_id)
        return found

    def _also(self, model: type[models.Model], person_id: Any) -> Q:
        found = self.also(person_id) if callable(self.also) else _NOTHING
        paths = () if callable(self.also) else _paths(self.also)
        for path in paths + _paths(self.deciders):
            found |= _person_at(model, path, person_id)
        return found

    def deciding(self, model: type[models.Model], actor: Actor | None) -> Q:
        """The rows `actor` decides on (`deciders`), as a condition on `model`: every row for
        those who see every row."""
        if self.all_rows(actor):
            return Q()
        person_id = getattr(actor, "pk", None)
        found = _NOTHING
        for path in _paths(self.deciders) if person_id is not None else ():
            found |= _person_at(model, path, person_id)
        return found

    def decides(self, actor: Actor | None, record: Any) -> bool:
        """Whether `actor` decides on the record: they see every row, or a `deciders` path
        leads to them."""
        if self.all_rows(actor):
            return True
        person_id = getattr(actor, "pk", None)
        paths = _paths(self.deciders) if person_id is not None else ()
        return any(_leads_to(record, path, person_id) for path in paths)

    def _live(self, model: type[models.Model]) -> Q:
        parent = self.parent(model)
        return Q(**{f"{self.through}__in": trashed(parent._default_manager.all(), "exclude")})

    def parent(self, model: type[models.Model]) -> Any:
        return model._meta.get_field(self.through).related_model  # type: ignore[arg-type]

    def owns(self, actor: Actor | None, record: Any) -> bool:
        """Whether the record is `actor`'s: one of its owner paths leads to them."""
        person_id = getattr(actor, "pk", None)
        return person_id is not None and any(_leads_to(record, path, person_id) for path in self.owners)

    def covers(self, actor: Actor | None, action: Action = "view", **values: Any) -> bool:
        """Whether rows with these values are the actor's to `action`: they see every row, or an
        owner path starting at one of the values leads to them (`covers(actor,
        employee=employee)`: the rows of that employee, such as one about to be made for them);
        to view, a `deciders` path too (a line manager, their reports' balances). Whether their
        role allows the action at all is `may`."""
        if self.all_rows(actor, action):
            return True
        person_id = getattr(actor, "pk", None)
        if person_id is None:
            return False
        paths = self.owners + (_paths(self.deciders) if action == "view" else ())
        for path in paths:
            first, _sep, rest = path.partition("__")
            value = values.get(first)
            if value is None:
                continue
            if _leads_to(value, rest, person_id) if rest else getattr(value, "pk", value) == person_id:
                return True
        return False

    def level(self, actor: Actor | None, record: Any, shares: Iterable[Any] | None = None) -> str:
        """What `actor` may do with a record they can see: admin, owner, edit or view (edit only
        when their role allows changes). `shares`: the record's shares, when the caller has them."""
        if self.is_admin(actor):
            return ADMIN
        found = self.row_level(actor, record, shares)
        if found == VIEW and self.all_rows(actor, "change"):
            found = EDIT
        if self.keeps_from(actor, record):
            return VIEW
        return VIEW if found == EDIT and not self.may(actor, "change") else found

    def row_level(self, actor: Actor | None, record: Any, shares: Iterable[Any] | None = None) -> str:
        """`level` by the record alone: owner, edit (through the workspace, a share "edit", or a
        parent they may change) or view."""
        actor_pk = getattr(actor, "pk", None)
        if self.owns(actor, record):
            return OWNER
        if self.through:
            if self.owners or self.visibility == "owner":
                return VIEW  # its owners alone change it
            parent = getattr(record, self.through)
            rows = type(parent)._default_manager.filter(pk=parent.pk)
            access = type(parent).access
            if actor is None or not rows.filter(access.rows(type(parent), actor_pk, "view")).exists():
                return VIEW  # seen only as one of `also` (an invited person)
            return EDIT if access.row_level(actor, parent) in (OWNER, EDIT) else VIEW
        if (self.visibility == "workspace" and not self.owners) or (
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
        if not self.may(actor, action):
            return False
        if self._drafted_by_another(actor, record):
            return False
        return self.all_rows(actor, action) or self.level(actor, record) != VIEW

    def _drafted_by_another(self, actor: Actor | None, record: Any) -> bool:
        if self.drafts is None or self.owns(actor, record):
            return False
        return bool(type(record)._base_manager.filter(self.drafts, pk=record.pk).exists())

    def fields_allowed(
        self, actor: Actor | None, record: Any = None, action: Action = "view"
    ) -> frozenset[str]:
        """Of the fields the declaration restricts (`fields`), those `actor` may read ("view")
        or change on `record` (a new one: None): each needs its own permission, and changing
        one needs the record to be theirs to change; the person a row is about reads the
        `own_fields` of their own row."""
        if action != "view" and record is not None and not self.allows(actor, record, action):
            return frozenset()
        person_id = getattr(actor, "pk", None)
        return frozenset(
            name
            for name, permission in self.fields.items()
            if can(actor, permission)
            or (
                action == "view"
                and record is not None
                and person_id is not None
                and name in self.own_fields
                and _leads_to(record, self.own_fields[name], person_id)
            )
        )

    # --- how records are named to people ----------------------------------------------------

    def label_of(self, model: type[models.Model]) -> str:
        return str(self.label or model._meta.verbose_name).capitalize()

    def not_found(self, model: type[models.Model], record_id: Any) -> RecordNotFound:
        return RecordNotFound(label=self.label_of(model), id=record_id, find_with=self.find_with)

    def how_to_restore(self) -> str:
        """How a record in the trash comes back: its restore tool, or the declaration's words."""
        return str(
            self.trash_hint
            or (
                _("Restore it with {tool} first if it is still needed.").format(tool=self.restore_with)
                if self.restore_with
                else ""
            )
        )

    def in_trash(self, model: type[models.Model], record_id: Any) -> AppError:
        hint = self.how_to_restore()
        return self.trash_error(
            label=self.label_of(model),
            id=record_id,
            state=self.trash_state or InTrash.defaults["state"],
            hint=hint,
        )

    def read_only(self, model: type[models.Model], record_id: Any, *, kept: bool = False) -> AppError:
        """What a person who sees the record but may not change it is told; `kept`: it is a
        workspace row kept by others (`workspace_kept_by`)."""
        if kept:
            if self.kept_error is not None:
                return self.kept_error(id=record_id)
            return WorkspaceRowKept(label=self.label_of(model), id=record_id)
        if self.read_only_error is not None:
            return self.read_only_error(id=record_id)
        return ReadOnly(label=self.label_of(model).lower(), id=record_id)

    def role_refuses(self, model: type[models.Model], action: Action) -> Forbidden:
        return RoleRefuses(
            things=model._meta.verbose_name_plural, action=_("delete") if action == "delete" else _("change")
        )


def _shares(model: type[models.Model]) -> Any:
    return model._meta.get_field("shares").related_model._default_manager  # type: ignore[union-attr]


def _person_at(model: type[models.Model], path: str, person_id: Any) -> Q:
    """The rows of `model` whose `path` leads to the person: a condition that never repeats a
    row, whatever rows the path crosses (a reverse foreign key becomes EXISTS, as a share does)."""
    first, _sep, rest = path.partition("__")
    hop = model._meta.get_field(first)
    if hop.one_to_many and rest:
        below = hop.related_model._base_manager  # type: ignore[union-attr]
        return Q(Exists(below.filter(**{hop.field.name: OuterRef("pk"), rest: person_id})))  # type: ignore[union-attr]
    if _many(model, path):
        return Q(pk__in=model._base_manager.filter(**{path: person_id}).values("pk"))
    return Q(**{path: person_id})


def _many(model: Any, path: str) -> bool:
    for name in path.split("__"):
        hop = model._meta.get_field(name)
        if hop.many_to_many or hop.one_to_many:
            return True
        model = hop.related_model
        if model is None:
            break
    return False


def _leads_to(record: Any, path: str, person_id: Any) -> bool:
    """Whether `path` on the record leads to the person: read from the record's own attributes
    along foreign keys, asked of the database where it crosses many rows."""
    names = path.split("__")
    found = record
    for index, name in enumerate(names):
        hop = found._meta.get_field(name)
        if hop.many_to_many or hop.one_to_many:
            rest = "__".join(names[index:])
            return type(found)._base_manager.filter(pk=found.pk, **{rest: person_id}).exists()
        if index == len(names) - 1:
            return getattr(found, hop.attname) == person_id
        found = getattr(found, name)
        if found is None:
            return False
    return False


_M = TypeVar("_M", bound=models.Model, covariant=True)


class RecordQuerySet(models.QuerySet[_M]):
    """Rows as an actor may see or change them (the model's `access`), and soft delete."""

    def restrict(
        self, actor: "Actor | Anyone | None", action: Action = "view", *, trash: Trash = "exclude"
    ) -> Self:
        access: Access = self.model.access  # type: ignore[attr-defined]
        return trashed(self.filter(access.condition(self.model, actor, action)), trash)

    def fetch(
        self,
        actor: Actor | None,
        pk: Any,
        action: Action = "view",
        *,
        trash: bool = False,
        lock: bool = False,
    ) -> _M:
        """The record `pk` if `actor` may see it (and `action` it): RecordNotFound otherwise,
        InTrash when it is in the trash (unless `trash`), Forbidden when they may only see it.
        `lock`: its row is locked for the rest of the transaction (SELECT ... FOR UPDATE)."""
        access: Access = self.model.access  # type: ignore[attr-defined]
        # Found among the rows they see, or, for one who changes every row without seeing it
        # (a mailbox's administrator), among those they change.
        changes_unseen = (
            action != "view"
            and access.may(actor, action)
            and access.all_rows(actor, action)
            and not access.all_rows(actor, "view")
        )
        rows = self.restrict(actor, action if changes_unseen else "view", trash="include").filter(pk=pk)
        record = (rows.select_for_update(of=("self",)) if lock else rows).first()
        if record is None:
            raise access.not_found(self.model, pk)
        if getattr(record, "deleted_at", None) is not None and not trash:
            raise access.in_trash(self.model, pk)
        if not access.allows(actor, record, action):
            if not access.may(actor, action):
                raise access.role_refuses(self.model, action)
            raise access.read_only(self.model, pk, kept=access.keeps_from(actor, record))
        return record

    def live(self) -> Self:
        return self.filter(deleted_at__isnull=True)

    def in_trash(self) -> Self:
        return self.filter(deleted_at__isnull=False)


QS = TypeVar("QS", bound=models.QuerySet[Any])


def seen_by(actor: Actor | None, record: Any) -> bool:
    """Whether `actor` may see `record` (one in the trash too): a record that links to it names
    it only then (a deal's contact), and otherwise says no more than that there is one."""
    rows: RecordQuerySet[Any] = type(record).objects.restrict(actor, trash="include")
    return rows.filter(pk=record.pk).exists()


def trashed(rows: QS, trash: Trash) -> QS:
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


# --- small rules every area's services apply to their records the same way ------------------------


def derived_visibility(*sources: Any) -> str:
    """The visibility of a record made from others (a copy, a combination, an export): no wider
    than the least visible of its sources. Made from anything private (or anyone's own alone,
    `visibility="owner"`), it is private: its maker's, shared with nobody, even when the source
    was shared with them (as a copy in a shared drive is its maker's: the source's shares stay
    the source's). A source with no visibility of its own (a workspace-wide record) hides nothing."""
    for source in sources:
        access = getattr(type(source), "access", None)
        if getattr(source, "visibility", None) == Visibility.PRIVATE:
            return Visibility.PRIVATE
        if isinstance(access, Access):
            if access.visibility == "owner":
                return Visibility.PRIVATE
            # A child record (an event) is as visible as its parent (its calendar).
            if access.through and derived_visibility(getattr(source, access.through)) == Visibility.PRIVATE:
                return Visibility.PRIVATE
    return Visibility.WORKSPACE


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


def live_once(constraint: str, *fields: str, **when: Any) -> models.UniqueConstraint:
    """One live record for each value of `fields` (those in the trash do not count), among the
    rows that also match `when` if given (`is_default=True`: one default per owner), as the
    constraint named `constraint`."""
    return models.UniqueConstraint(
        fields=list(fields), condition=Q(deleted_at__isnull=True, **when), name=constraint
    )


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
        raise invalid(field, _("there is already {what} called {name!r}"), what=what, name=name)
    return name
