"""Items (files, documents) carried by records of any area: a file attached to a task, a
document linked to a contact, the PDF export of a document.

A kind that carries items says which (`Kind.carries`); its links are kept in the shared table
that the Files area provides (`use_store`, from its declaration), or in the kind's own `store`
(contacts keep theirs in ContactLink, so a file attached to a contact here is the same link that
linkFileToContact makes). Each item is shown as its own kind describes it now (`Kind.describe`):
what exists and what the reader may see; a removed or hidden one shows that it is there, not what
it is (no title: its title is not the reader's to read).
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from django.utils.translation import gettext as _

from apps.core import kinds
from apps.core.actors import Actor
from apps.core.errors import AttachmentsUnavailable, ItemAreaMissing, NotACarrier, RecordNotFound


@dataclass(frozen=True)
class Linked:
    """One link as stored: the item, and when and by whom it was attached (never its title: a
    reader is shown the item as they may see it now, or only that it is there)."""

    kind: str
    item_id: int
    attached_at: datetime
    attached_by: Any


@dataclass(frozen=True)
class Attached:
    """One link as the reader sees it now."""

    kind: str
    id: int
    title: str
    available: bool
    url: str
    mime_type: str
    size: int | None
    attached_at: datetime
    attached_by: Any


class Store(Protocol):
    """Where the links of a carrying kind are kept."""

    def link(
        self, *, actor: Actor | None, record: Any, item_kind: str, item_id: int, title: str, remove: bool
    ) -> bool:
        """Links (or unlinks) the item; True if anything changed."""
        ...

    def linked(self, *, actor: Actor | None, record: Any, item_kind: str) -> list[Linked]:
        """The record's links to items of `item_kind`, newest first (at most 500)."""
        ...

    def records_with(self, *, item_kind: str, item_id: int) -> list[tuple[int, int]]:
        """(content type id, record id) of every record carrying the item."""
        ...

    def forget(self, *, item_kind: str, item_ids: list[int]) -> None:
        """Removes every link to these items (they are being erased)."""
        ...


SharedStore = Store


_shared: SharedStore | None = None


def use_store(store: SharedStore) -> None:
    """The shared table of links (the Files area's)."""
    global _shared
    _shared = store


def _store(kind: kinds.Kind | None) -> Store:
    if kind is not None and kind.store is not None:
        return kind.store
    if _shared is None:
        raise AttachmentsUnavailable()
    return _shared


def carriers() -> list[kinds.Kind]:
    return [kind for kind in kinds.kinds() if kind.carries]


def carrier_named(key: str) -> kinds.Kind:
    found = next((kind for kind in carriers() if kind.key == key), None)
    if found is None:
        known = ", ".join(kind.key for kind in carriers()) or _("none")
        raise NotACarrier(key=key, known=known, details={"entity_type": [_("unknown")]})
    return found


def item(*, actor: Actor | None, item_kind: str, item_id: int) -> kinds.Item:
    """The item as `actor` may see it: NotFound otherwise; a validation error when items of that
    kind are not available here."""
    found = kinds.describe(actor=actor, item_kind=item_kind, ids=[item_id])
    if found is None:
        raise ItemAreaMissing(kind=item_kind, details={"kind": [_("area not installed")]})
    if item_id not in found:
        raise RecordNotFound(label=item_kind.capitalize(), id=item_id)
    return found[item_id]


def attach(
    *, actor: Actor, item_kind: str, item_id: int, entity_type: str, entity_id: int, remove: bool = False
) -> tuple[Any, kinds.Item | None, bool]:
    """Attaches (or detaches) an item to a record named by kind and id, which the actor must be
    allowed to change; returns (record, item, changed)."""
    kind = carrier_named(entity_type)
    record = kind.fetch(actor=actor, pk=entity_id, action="change", trash=False)
    found = None if remove else item(actor=actor, item_kind=item_kind, item_id=item_id)
    changed = attach_to(
        actor=actor, record=record, item_kind=item_kind, item_id=item_id, item=found, remove=remove
    )
    return record, found, changed


def attach_to(
    *,
    actor: Actor | None,
    record: Any,
    item_kind: str,
    item_id: int,
    item: kinds.Item | None = None,
    remove: bool = False,
) -> bool:
    """Attaches an item to a record the caller already holds (and may change); True if it changed."""
    title = item.title if item else ""
    return _store(kinds.kind_of(record)).link(
        actor=actor, record=record, item_kind=item_kind, item_id=item_id, title=title[:300], remove=remove
    )


def attachments_of(
    *, actor: Actor | None, record: Any, item_kinds: tuple[str, ...] = ("file", "document")
) -> list[Attached]:
    """What a record carries, newest first, each item as `actor` may see it now. Kinds of item
    whose area is not installed are left out."""
    store = _store(kinds.kind_of(record))
    found: list[Attached] = []
    for item_kind in item_kinds:
        if kinds.describe(actor=actor, item_kind=item_kind, ids=[]) is None:
            continue
        stored = store.linked(actor=actor, record=record, item_kind=item_kind)
        items = kinds.describe(actor=actor, item_kind=item_kind, ids=[row.item_id for row in stored]) or {}
        for row in stored:
            shown = items.get(row.item_id)
            found.append(
                Attached(
                    kind=item_kind,
                    id=row.item_id,
                    title=shown.title if shown else "",
                    available=shown is not None,
                    url=shown.url if shown else "",
                    mime_type=shown.mime_type if shown else "",
                    size=shown.size if shown else None,
                    attached_at=row.attached_at,
                    attached_by=row.attached_by,
                )
            )
    found.sort(key=lambda row: row.attached_at, reverse=True)
    return found


def attached(*, actor: Actor | None, entity_type: str, entity_id: int) -> tuple[Any, list[Attached]]:
    kind = carrier_named(entity_type)
    record = kind.fetch(actor=actor, pk=entity_id, trash=False)
    return record, attachments_of(actor=actor, record=record)


def _every_store() -> list[Store]:
    """The shared table, then the kinds that keep their links themselves."""
    stores = [_shared] if _shared is not None else []
    return stores + [kind.store for kind in kinds.all_kinds() if kind.store is not None]


def records_with(*, item_kind: str, item_id: int) -> list[tuple[str, int]]:
    """(kind, id) of every record the item is attached to, wherever the link is kept."""
    return [
        (kinds.type_of_content_type(content_type_id), object_id)
        for store in _every_store()
        for content_type_id, object_id in store.records_with(item_kind=item_kind, item_id=item_id)
    ]


def forget(*, item_kind: str, item_ids: list[int]) -> None:
    """Removes every link to these items, wherever it is kept: for the item's own area, when it
    erases them (no record keeps pointing at an item that is gone)."""
    if item_ids:
        for store in _every_store():
            store.forget(item_kind=item_kind, item_ids=item_ids)
