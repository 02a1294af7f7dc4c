"""Records that other areas point at: a watcher on a contact, a task step linked to a document,
a file attached to any record.

Each area registers the kinds of record it holds, from its `AppConfig.ready()`:

    entities.register(EntityKind(
        key="contact", area="contacts", model="contacts.Contact",
        get=lambda *, actor, entity_id: selectors.contact_get(actor=actor, contact_id=entity_id),
        title=lambda contact: contact.display_name,
    ))

`get` is the area's own selector: it answers the record when `actor` may see it and raises the
area's NotFound otherwise, so a link never shows what its reader could not open.

A stored link is Django's generic link, a content type and an id (`EntityLink` gives the
fields). Agents name a record by its kind and id (`entityType: "contact", entityId: 12`; the
shapes are `apps.catalogue.shapes.EntityType` / `EntityOut`).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext as _

from apps.core.errors import AppError, ValidationFailed


@dataclass(frozen=True)
class EntityKind:
    key: str  # what agents write: "contact", "task", "document"
    area: str  # the area that must be installed
    model: str  # "app_label.ModelName"
    get: Callable[..., Any]  # get(actor=, entity_id=) -> the record, or raises NotFound
    title: Callable[[Any], str]
    # For records about a person (a contact): the path to their e-mail address, so links to the
    # record (and the titles kept with them) go when that person's data is erased.
    person_email: str = ""

    @property
    def model_class(self) -> type[models.Model]:
        return apps.get_model(self.model)

    def content_type(self) -> ContentType:
        return ContentType.objects.get_for_model(self.model_class)


@dataclass(frozen=True)
class Entity:
    """A record the actor may see, resolved from its kind and id."""

    kind: EntityKind
    id: int
    title: str
    instance: Any

    @property
    def type(self) -> str:
        return self.kind.key


class UnknownEntityType(ValidationFailed):
    def __init__(self, entity_type: str) -> None:
        known = ", ".join(kind.key for kind in kinds()) or _("none")
        super().__init__(
            _("%(type)r is not a kind of record here. Kinds you can use: %(known)s.")
            % {"type": entity_type, "known": known},
            details={"entity_type": [_("unknown kind")]},
        )


_kinds: dict[str, EntityKind] = {}


def register(kind: EntityKind) -> None:
    existing = _kinds.get(kind.key)
    if existing is not None and existing.model != kind.model:
        raise ValueError(f"entity kind {kind.key!r} is registered twice with different models")
    _kinds[kind.key] = kind


def _installed(kind: EntityKind) -> bool:
    from apps.accounts.access import current_workspace

    workspace = current_workspace()
    return workspace is not None and workspace.has_area(kind.area)


def kinds() -> list[EntityKind]:
    """The kinds whose area is installed in the current workspace, by key."""
    return [kind for key, kind in sorted(_kinds.items()) if _installed(kind)]


def kind_named(entity_type: str) -> EntityKind:
    kind = _kinds.get(entity_type)
    if kind is None or not _installed(kind):
        raise UnknownEntityType(entity_type)
    return kind


def kind_of(record: Any) -> EntityKind | None:
    label = record._meta.label
    return next((kind for kind in _kinds.values() if kind.model == label), None)


def kind_for_content_type(content_type_id: int) -> EntityKind | None:
    model = ContentType.objects.get_for_id(content_type_id).model_class()
    return next((kind for kind in _kinds.values() if model and kind.model == model._meta.label), None)


def resolve(*, actor: Any, entity_type: str, entity_id: int) -> Entity:
    """The record `entity_type` `entity_id`, if its kind is known here and `actor` may see it."""
    kind = kind_named(entity_type)
    record = kind.get(actor=actor, entity_id=entity_id)
    return Entity(kind=kind, id=record.pk, title=kind.title(record)[:300], instance=record)


def resolve_optional(*, actor: Any, entity_type: str | None, entity_id: int | None) -> Entity | None:
    """For tools whose record is optional: both given, or neither."""
    if entity_type is None and entity_id is None:
        return None
    if entity_type is None or entity_id is None:
        missing = "entity_type" if entity_type is None else "entity_id"
        raise ValidationFailed(
            _("Give entityType and entityId together (or neither)."), details={missing: [_("required")]}
        )
    return resolve(actor=actor, entity_type=entity_type, entity_id=entity_id)


def of_record(record: Any) -> Entity:
    """An Entity for a record an area already holds (no visibility check: the caller has one)."""
    kind = kind_of(record)
    if kind is None:
        raise ValueError(f"{record._meta.label} is not a registered entity kind")
    return Entity(kind=kind, id=record.pk, title=kind.title(record)[:300], instance=record)


def visible(*, actor: Any, content_type_id: int, object_id: int) -> Entity | None:
    """The linked record as `actor` may see it now, or None (removed, hidden, area gone)."""
    kind = kind_for_content_type(content_type_id)
    if kind is None or not _installed(kind):
        return None
    try:
        record = kind.get(actor=actor, entity_id=object_id)
    except AppError:  # not found, hidden, in the trash: not available to this reader
        return None
    return Entity(kind=kind, id=record.pk, title=kind.title(record)[:300], instance=record)


def type_of_content_type(content_type_id: int) -> str:
    kind = kind_for_content_type(content_type_id)
    return kind.key if kind else ContentType.objects.get_for_id(content_type_id).model


def links_about_person(email: str) -> Q:
    """A condition on rows with the generic-link fields: those pointing at a record about the
    person with this address (docs/privacy.md)."""
    condition = Q(pk__in=[])
    for kind in _kinds.values():
        if kind.person_email and email:
            ids = kind.model_class._base_manager.filter(**{f"{kind.person_email}__iexact": email}).values(
                "pk"
            )
            condition |= Q(content_type=kind.content_type(), object_id__in=ids)
    return condition


class EntityLink(models.Model):
    """The fields of a link to a record of any area (abstract): content type + id, and the
    record's title when it was linked (for lists and logs; a reader who may not see the record
    now is not shown it: `EntityOut.checked`)."""

    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    object_id = models.PositiveBigIntegerField()
    entity_title = models.CharField(max_length=300, blank=True)
    entity = GenericForeignKey("content_type", "object_id")

    class Meta:
        abstract = True

    @property
    def entity_type(self) -> str:
        return type_of_content_type(self.content_type_id)

    def link_to(self, entity: Entity) -> None:
        self.content_type = entity.kind.content_type()
        self.object_id = entity.id
        self.entity_title = entity.title
