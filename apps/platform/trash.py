"""The records in the trash across every installed area, as one person may see them.

A record kind (apps.core.kinds) whose model has the kit's soft delete (`Record.deleted_at`) is
trashable; its rows in the trash are read through its access declaration
(`restrict(actor, "view", trash="only")`), so a record another person keeps private, or one of an
area the person may not view, is never listed or counted. How each comes back is its declaration's
(`Access.restore_with`, the tool, or `trash_hint`, the words). Nothing in the service purges the
trash on a schedule: a record stays restorable until it is restored, or erased with a person's data
(docs/privacy.md).
"""

from dataclasses import dataclass
from typing import Any

from apps.core import kinds
from apps.core.actors import Actor
from apps.core.kinds import Kind


@dataclass(frozen=True)
class Trashed:
    kind: Kind
    record: Any


def trashable() -> list[Kind]:
    """The installed kinds whose records go to the trash, by key."""
    found = []
    for kind in kinds.kinds():
        model = kind.model_class
        names = {field.name for field in model._meta.get_fields()}
        if "deleted_at" in names and hasattr(model._default_manager, "restrict"):
            found.append(kind)
    return found


def _rows(actor: Actor, kind: Kind) -> Any:
    model = kind.model_class
    return model._default_manager.restrict(actor, "view", trash="only")  # type: ignore[attr-defined]


def recently_deleted(
    actor: Actor, *, only: Kind | None = None, limit: int, offset: int
) -> tuple[list[Trashed], int]:
    """One page of the records in the trash that `actor` may see, the most recently deleted first
    (then by kind and id), and how many there are in all."""
    chosen = [only] if only is not None else trashable()
    found: list[Trashed] = []
    total = 0
    for kind in chosen:
        rows = _rows(actor, kind)
        total += rows.count()
        if hasattr(kind.model_class, "deleted_by"):
            rows = rows.select_related("deleted_by")
        window = rows.order_by("-deleted_at", "-pk")[: offset + limit]
        found.extend(Trashed(kind=kind, record=record) for record in window)
    found.sort(key=lambda one: (one.record.deleted_at, one.kind.key, one.record.pk), reverse=True)
    return found[offset : offset + limit], total
