"""Folder trees and the trash, for every area that files things in folders (Files, Documents).

An area subclasses `FolderBase` for its folders (a `Record` of apps.core.records: soft delete,
who made it) and files records (`OwnedRecord`s) in them:

    class Folder(FolderBase):
        access = Access(FilesPerm, visibility="workspace", label=_("Folder"))

(one live folder of a name in a folder: the constraint `files_folder_unique_name` comes with
the base).

A folder has a name, a parent (None: the area's root) and a soft delete: trashing a folder
trashes what is inside it with it (`trashed_with` points at the folder whose deletion took it),
and restoring the folder brings exactly those back. Names are checked by `clean_name`; a move is
checked by `check_move` (never into itself or one of its own sub-folders).
"""

import logging
import unicodedata
from collections.abc import Iterable
from typing import Any, TypeVar, cast

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext as _

from apps.core.actors import Actor, actor_id, require
from apps.core.errors import FolderIntoItself, FoldersTooDeep, NameNotAllowed, NameTakenInFolder
from apps.core.records import Record

logger = logging.getLogger(__name__)
USER = settings.AUTH_USER_MODEL
MAX_NAME = 255
# Names Windows, macOS and most storage keys cannot hold, and that would read as paths.
FORBIDDEN_CHARACTERS = set('/\\:*?"<>|')
RESERVED_NAMES = {".", "..", "con", "prn", "aux", "nul"}
MAX_DEPTH = 32


class FolderBase(Record):
    name = models.CharField(max_length=MAX_NAME)
    parent = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="children"
    )
    # The folder whose trashing took this one with it (restored together).
    trashed_with = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta(Record.Meta):
        abstract = True
        ordering = ["name", "id"]
        # One live folder of a name in a folder (the trash may hold several): "files_folder_unique_name".
        constraints = [
            models.UniqueConstraint(
                "parent",
                models.functions.Lower("name"),
                condition=Q(deleted_at__isnull=True),
                nulls_distinct=False,
                name="%(app_label)s_folder_unique_name",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def path(self) -> str:
        return path_of(self)


F = TypeVar("F", bound=FolderBase)


def clean_name(value: Any, *, field: str = "name") -> str:
    """A file or folder name as people write them: trimmed, one line, no path characters."""
    name = unicodedata.normalize("NFC", " ".join(str(value or "").split()))
    problem = None
    if not name:
        problem = _("is empty")
    elif len(name) > MAX_NAME:
        problem = _("is longer than %(max)s characters") % {"max": MAX_NAME}
    elif any(ch in FORBIDDEN_CHARACTERS or unicodedata.category(ch).startswith("C") for ch in name):
        problem = _('may not contain / \\ : * ? " < > | or control characters')
    elif name.lower() in RESERVED_NAMES or name.endswith("."):
        problem = _("is a reserved name")
    if problem:
        raise NameNotAllowed(name=str(value)[:80], problem=problem, details={field: [str(problem)]})
    return name


def safe_name(value: str, *, fallback: str = "untitled") -> str:
    """A name made allowed: path and control characters become "-" (for names made from titles)."""
    name = "".join(
        "-" if ch in FORBIDDEN_CHARACTERS or unicodedata.category(ch).startswith("C") else ch for ch in value
    )
    name = " ".join(name.split()).strip(" .")[:MAX_NAME]
    return name if name and name.lower() not in RESERVED_NAMES else fallback


def ancestors(folder: FolderBase | None) -> list[Any]:
    """The folder's chain from the root down to it (inclusive)."""
    chain: list[Any] = []
    seen: set[int] = set()
    while folder is not None and folder.pk not in seen and len(chain) <= MAX_DEPTH:
        chain.append(folder)
        seen.add(folder.pk)
        folder = folder.parent
    return list(reversed(chain))


def path_of(folder: FolderBase | None, name: str = "") -> str:
    """ "/Contracts/2026/offer.pdf": the folder names from the root, then `name`."""
    parts = [item.name for item in ancestors(folder)]
    if name:
        parts.append(name)
    return "/" + "/".join(parts)


def descendant_ids(model: type[F], folder_ids: Iterable[int]) -> list[int]:
    """Every folder below the given ones (not the given ones themselves), trash included."""
    found: list[int] = []
    frontier = list(folder_ids)
    for _depth in range(MAX_DEPTH + 1):
        if not frontier:
            break
        frontier = list(model.objects.filter(parent_id__in=frontier).values_list("pk", flat=True))
        found += frontier
    return found


def check_move(folder: FolderBase, target: FolderBase | None) -> None:
    """Refuses to move a folder into itself or one of its own sub-folders, or so that its
    deepest sub-folder would be too deep."""
    chain = ancestors(target)
    if any(item.pk == folder.pk for item in chain):
        raise FolderIntoItself(
            id=folder.pk, path=path_of(target), details={"folder_id": [_("inside the folder being moved")]}
        )
    check_depth(target, below=height(folder))


def height(folder: FolderBase) -> int:
    """How many levels of sub-folders the folder holds (0: none), trash included: a tree moved
    keeps them all, and the trash, paths and erasure reach MAX_DEPTH levels only."""
    levels, frontier = 0, [folder.pk]
    for _depth in range(MAX_DEPTH + 1):
        frontier = list(type(folder).objects.filter(parent_id__in=frontier).values_list("pk", flat=True))
        if not frontier:
            break
        levels += 1
    return levels


def check_depth(parent: FolderBase | None, *, below: int = 0) -> None:
    """Refuses a folder in `parent` (with `below` levels of sub-folders) deeper than MAX_DEPTH."""
    if len(ancestors(parent)) + below >= MAX_DEPTH:
        raise FoldersTooDeep(most=MAX_DEPTH, details={"folder_id": [_("too deep")]})


def get(model: type[F], *, actor: Actor, folder_id: int | None, trash: bool = False) -> F | None:
    """The folder `folder_id` as `actor` may see it; None (no id) is the root."""
    if folder_id is None:
        return None
    # The model's manager is typed with the base's rows; it answers the model's own.
    return cast(F, model.objects.fetch(actor, folder_id, trash=trash))


def create(model: type[F], *, actor: Actor, name: str, parent: Any) -> F:
    """A new folder of `model` in `parent` (None: the root), its name checked and free; the actor
    must be allowed to change the area's records."""
    require(actor, model.access.permission("change") or "")
    name = clean_name(name)
    check_depth(parent)
    # As a Q: django-stubs 5.2's check of keyword lookups crashes on a foreign key to "self" of
    # an abstract model (FolderBase.parent).
    check_name_free(model.objects.filter(Q(parent=parent)), name, what=_("A folder"))
    folder = model(name=name, parent=parent, created_by_id=actor_id(actor))
    folder.save(force_insert=True)
    logger.info("%s %s created", model._meta.model_name, folder.pk)
    return folder


def check_name_free(queryset: Any, name: str, *, exclude_pk: Any = None, what: str = "") -> None:
    """Refuses a name a live sibling already has (case-insensitive); `queryset`: the siblings."""
    clash = queryset.filter(name__iexact=name, deleted_at__isnull=True)
    if exclude_pk is not None:
        clash = clash.exclude(pk=exclude_pk)
    if clash.exists():
        raise NameTakenInFolder(
            what=what or _("Something"), name=name, details={"name": [_("already taken in that folder")]}
        )


def trash(items: Iterable[Record], *, actor: Actor, with_folder: Any = None) -> int:
    """Puts items in the trash (those not there already), noting the folder whose trashing took
    them (`with_folder`); returns how many."""
    count = 0
    for item in items:
        if item.deleted_at is not None:
            continue
        item.trashed_with = with_folder  # type: ignore[attr-defined]
        item.trash(actor, also=["trashed_with"])
        count += 1
    return count


def untrash(item: Record, *, also: tuple[str, ...] = ()) -> None:
    """Takes an item out of the trash, saving `also` (fields the caller changed) with it."""
    item.trashed_with = None  # type: ignore[attr-defined]
    item.untrash(also=[*also, "trashed_with"])
