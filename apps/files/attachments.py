"""Attaching files and documents to records of any area.

Areas whose records can carry attachments register an entity type from their `AppConfig.ready()`:

    from apps.files import attachments
    attachments.register_entity(attachments.EntityType(
        key="task", area="tasks", label="Task", model="tasks.Task",
        get=lambda actor, pk, for_edit: selectors.task_get(actor=actor, task_id=pk),
    ))

Then `attach(actor=, kind="file", item_id=, entity_type="task", entity_id=)` attaches a file (or a
document: kind "document") and `attached(actor=, entity_type=, entity_id=)` lists what is attached,
each item resolved through the `apps.contacts.links` target of its kind (which items exist and
which the person may see). Attachments are rows of `files.Attachment` (the record by content type
and id). An entity type may keep its links itself instead (`link` and `linked`): contacts keep
theirs in `ContactLink`, so a file attached to a contact here is the same link that
linkFileToContact makes and listContactFiles shows.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.apps import apps as django_apps
from django.contrib.contenttypes.models import ContentType
from django.utils.translation import gettext as _

from apps.accounts.access import current_workspace
from apps.contacts import links
from apps.core.errors import NotFound, ValidationFailed
from apps.files.models import Attachment


@dataclass(frozen=True)
class Linked:
    """One attachment as stored: the item and when and by whom it was attached."""

    kind: str
    item_id: int
    title: str
    attached_at: datetime
    attached_by: Any


@dataclass(frozen=True)
class Attached:
    kind: str
    id: int
    title: str
    available: bool
    url: str
    mime_type: str
    size: int | None
    attached_at: datetime
    attached_by: Any


@dataclass(frozen=True)
class EntityType:
    key: str  # what agents name: "contact", "task", "document"
    area: str  # must be installed
    label: str
    model: str  # "app_label.Model"
    # (actor, id, for_edit) -> the record, raising the area's "not found" (or read-only) error.
    get: Callable[[Any, int, bool], Any]
    # Optional: the area stores the links itself. link(actor, record, kind, item_id, title, remove)
    # -> changed; linked(actor, record, kind) -> [Linked].
    link: Callable[..., bool] | None = None
    linked: Callable[..., list[Linked]] | None = None

    def content_type(self) -> ContentType:
        return ContentType.objects.get_for_model(django_apps.get_model(self.model))


_entities: dict[str, EntityType] = {}


def register_entity(entity: EntityType) -> None:
    _entities[entity.key] = entity


def entity_types() -> list[EntityType]:
    workspace = current_workspace()
    return sorted(
        (e for e in _entities.values() if workspace is not None and workspace.has_area(e.area)),
        key=lambda e: e.key,
    )


def entity_named(key: str) -> EntityType:
    found = next((entity for entity in entity_types() if entity.key == key), None)
    if found is None:
        known = ", ".join(entity.key for entity in entity_types()) or _("none")
        raise ValidationFailed(
            _("%(key)r is not a kind of record files can be attached to here. Known: %(known)s.")
            % {"key": key, "known": known},
            details={"entity_type": [_("unknown")]},
        )
    return found


def _target(kind: str) -> Any:
    target = links.link_target(kind)
    if target is None:
        raise ValidationFailed(
            _("%(kind)s items are not available in this workspace (their area is not installed).")
            % {"kind": kind},
            details={"kind": [_("area not installed")]},
        )
    return target


def resolve_item(actor: Any, kind: str, item_id: int) -> links.LinkedItem:
    item = _target(kind).resolve(actor=actor, target_ids=[item_id]).get(item_id)
    if item is None:
        raise NotFound(
            _("%(kind)s %(id)s was not found, or you may not see it.")
            % {"kind": kind.capitalize(), "id": item_id}
        )
    return item


def attach(
    *, actor: Any, kind: str, item_id: int, entity_type: str, entity_id: int, remove: bool = False
) -> tuple[Any, links.LinkedItem | None, bool]:
    """Attaches (or detaches) an item to a record; returns (record, item, changed)."""
    entity = entity_named(entity_type)
    record = entity.get(actor, entity_id, True)
    item = None if remove else resolve_item(actor, kind, item_id)
    return (
        record,
        item,
        attach_to(
            actor=actor, record=record, kind=kind, item=item, item_id=item_id, entity=entity, remove=remove
        ),
    )


def _entity_of(record: Any) -> EntityType | None:
    label = record._meta.label
    return next((entity for entity in _entities.values() if entity.model == label), None)


def attach_to(
    *,
    actor: Any,
    record: Any,
    kind: str,
    item_id: int,
    item: links.LinkedItem | None = None,
    entity: EntityType | None = None,
    remove: bool = False,
) -> bool:
    """Attaches an item to a record the caller already holds (and may change); True if it changed."""
    entity = entity or _entity_of(record)
    title = item.title if item else ""
    if entity is not None and entity.link is not None:
        return entity.link(actor, record, kind, item_id, title, remove)
    content_type = ContentType.objects.get_for_model(record)
    rows = Attachment.objects.filter(
        kind=kind, item_id=item_id, content_type=content_type, object_id=record.pk
    )
    if remove:
        return rows.delete()[0] > 0
    if rows.exists():
        return False
    Attachment.objects.create(
        kind=kind,
        item_id=item_id,
        content_type=content_type,
        object_id=record.pk,
        title=title[:300],
        attached_by=actor if getattr(actor, "pk", None) else None,
    )
    return True


def _stored(actor: Any, record: Any, kind: str, entity: EntityType | None) -> list[Linked]:
    if entity is not None and entity.linked is not None:
        return entity.linked(actor, record, kind)
    rows = Attachment.objects.filter(
        kind=kind, content_type=ContentType.objects.get_for_model(record), object_id=record.pk
    ).select_related("attached_by")[:500]
    return [Linked(kind, row.item_id, row.title, row.attached_at, row.attached_by) for row in rows]


def attachments_of(
    *, actor: Any, record: Any, kinds: tuple[str, ...] = ("file", "document")
) -> list[Attached]:
    """What is attached to a record, newest first, each item as `actor` may see it now. Kinds
    whose area is not installed are left out."""
    entity = _entity_of(record)
    found: list[Attached] = []
    for kind in kinds:
        target = links.link_target(kind)
        if target is None:
            continue
        stored = _stored(actor, record, kind, entity)
        items = target.resolve(actor=actor, target_ids=[row.item_id for row in stored]) if stored else {}
        for row in stored:
            item = items.get(row.item_id)
            found.append(
                Attached(
                    kind=kind,
                    id=row.item_id,
                    title=item.title if item else row.title,
                    available=item is not None,
                    url=item.url if item else "",
                    mime_type=item.mime_type if item else "",
                    size=item.size if item else None,
                    attached_at=row.attached_at,
                    attached_by=row.attached_by,
                )
            )
    found.sort(key=lambda row: row.attached_at, reverse=True)
    return found


def attached(*, actor: Any, entity_type: str, entity_id: int) -> tuple[Any, list[Attached]]:
    entity = entity_named(entity_type)
    record = entity.get(actor, entity_id, False)
    return record, attachments_of(actor=actor, record=record)


def records_with(*, kind: str, item_id: int) -> list[tuple[str, int]]:
    """(entity type, id) of every record an item is attached to through the generic table."""
    by_model = {entity.model: entity.key for entity in _entities.values()}
    rows = Attachment.objects.filter(kind=kind, item_id=item_id).select_related("content_type")
    return [
        (
            by_model.get(f"{row.content_type.app_label}.{row.content_type.model}", row.content_type.model),
            row.object_id,
        )
        for row in rows
    ]


# --- the entity types built in: contacts ---------------------------------------------------------


def _contact_get(actor: Any, contact_id: int, for_edit: bool) -> Any:
    from apps.contacts import selectors

    return (selectors.contact_get_for_edit if for_edit else selectors.contact_get)(
        actor=actor, contact_id=contact_id
    )


def _contact_link(actor: Any, contact: Any, kind: str, item_id: int, title: str, remove: bool) -> bool:
    from apps.contacts import services

    return services.contact_link(
        actor=actor, contact=contact, kind=kind, target_id=item_id, title=title, remove=remove
    )


def _contact_linked(actor: Any, contact: Any, kind: str) -> list[Linked]:
    from apps.contacts.models import ContactLink

    rows = ContactLink.objects.filter(contact=contact, kind=kind).select_related("linked_by")[:500]
    return [Linked(kind, row.target_id, row.title, row.linked_at, row.linked_by) for row in rows]


def register_builtin_entities() -> None:
    register_entity(
        EntityType(
            key="contact",
            area="contacts",
            label="Contact",
            model="contacts.Contact",
            get=_contact_get,
            link=_contact_link,
            linked=_contact_linked,
        )
    )
