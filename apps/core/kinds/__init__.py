"""The one registry of record kinds: what other areas may point at, attach, watch and open.

Each area declares the kinds of record it holds in its declaration module (apps.core.areas):

    Kind("contact", "contacts.Contact", title="display_name", person_email="email",
         carries=("file", "document"), store=ContactLinks(), url=contact_url)

Every kind can be pointed at by a generic link (a watcher on a contact, a task step linked to a
document, a notification about a file): agents name the record by kind and id (`entityType:
"contact", entityId: 12`; the shapes are `apps.catalogue.shapes.EntityType` / `EntityOut`), and
`resolve` answers it only when the actor may see it, so a link never shows what its reader could
not open. A stored link is Django's generic link (`EntityLink` gives the fields).

Beyond that a kind says what else it is:
- an item other records carry (`describe`: files and documents, with their url, type, size);
- a record that carries items (`carries`: the item kinds), stored in the shared attachment table
  or in the kind's own `store` (apps.core.kinds.attachments);
- shareable (its model's access declares shares), searchable (`search`: the record's own text
  fields that the workspace-wide search reads, apps.core.kinds.finding), and opened as a page
  (`url`: `page("contacts:detail", "contact_id")`).

Every model that declares its access is a kind of its area or named in the area's `not_kinds`
with why it is not one (apps.core.areas.kind_problems, a start-up check).

Only kinds whose area is installed in the current workspace are known there.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.apps import apps
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.core import workspaces
from apps.core.actors import Actor
from apps.core.errors import AppError, EntityHalfGiven, UnknownEntityType


@dataclass(frozen=True)
class Item:
    """What an item (a file, a document) shows of itself where another record carries it."""

    id: int
    title: str
    url: str = ""
    mime_type: str = ""
    size: int | None = None
    updated_at: datetime | None = None


@dataclass(frozen=True)
class Kind:
    key: str  # what agents write: "contact", "task", "document"
    model: str  # "app_label.ModelName"
    # The field (or a function of the record) that names one record in lists and links.
    title: str | Callable[[Any], str] = "title"
    area: str = ""  # set by the area's registration
    # For records about a person (a contact): the path to their e-mail address, so links to the
    # record (and the titles kept with them) go when that person's data is erased.
    person_email: str = ""
    # Links still resolve to a record in the trash (an archived contact stays watchable).
    trashed_too: bool = False
    # get(actor=, pk=, action=) -> the record, or the area's error; default: the model's fetch.
    get: Callable[..., Any] | None = None
    # As an item: describe(actor=, ids=) -> {id: Item} for the ids that exist and actor may see.
    describe: Callable[..., dict[int, Item]] | None = None
    # As a record that carries items: their kinds, and where the links are kept (None: the shared
    # attachment table of apps.core.kinds.attachments).
    carries: tuple[str, ...] = ()
    store: Any = None
    # The path of the page that opens one record (`page(...)`), where there is one.
    url: Callable[[Any], str] | None = None
    # The record's own text fields the workspace-wide search reads (apps.core.kinds.finding);
    # none: the search leaves the kind out.
    search: tuple[str, ...] = field(default=())
    # What the search calls the kind where its model's label says too little beside other areas'
    # ("Calendar event" beside Events' "Event"); the label is what errors say, and stays.
    named: Any = ""

    @property
    def model_class(self) -> type[models.Model]:
        return apps.get_model(self.model)

    @property
    def label(self) -> str:
        model = self.model_class
        access = getattr(model, "access", None)
        return access.label_of(model) if access is not None else str(model._meta.verbose_name).capitalize()

    @property
    def name(self) -> str:
        return str(self.named) if self.named else self.label

    def content_type(self) -> ContentType:
        return ContentType.objects.get_for_model(self.model_class)

    def title_of(self, record: Any) -> str:
        title = self.title(record) if callable(self.title) else getattr(record, self.title)
        return str(title)[:300]

    def fetch(self, *, actor: Actor | None, pk: int, action: str = "view", trash: bool | None = None) -> Any:
        """The record, as the actor may see it (and `action` it); `trash`: whether one in the
        trash is found too (default: `trashed_too`)."""
        trash = self.trashed_too if trash is None else trash
        if self.get is not None:
            return self.get(actor=actor, pk=pk, action=action, trash=trash)
        manager = self.model_class._default_manager
        return manager.fetch(actor, pk, action, trash=trash)  # type: ignore[attr-defined]

    @property
    def installed(self) -> bool:
        return workspaces.has_area(self.area)


@dataclass(frozen=True)
class Entity:
    """A record the actor may see, resolved from its kind and id."""

    kind: Kind
    id: int
    title: str
    instance: Any

    @property
    def type(self) -> str:
        return self.kind.key


def page(url_name: str, id_argument: str = "", *, anchor: str = "") -> Callable[[Any], str]:
    """A kind's `url`: the page `url_name` with the record's id as `id_argument`, or a page of
    several records with the record's place on it (`anchor="pipeline-"`: "#pipeline-<id>")."""

    def url(record: Any) -> str:
        path = reverse(url_name, kwargs={id_argument: record.pk} if id_argument else None)
        return f"{path}#{anchor}{record.pk}" if anchor else path

    return url


_kinds: dict[str, Kind] = {}
_by_model: dict[str, Kind] = {}


def register(kind: Kind) -> None:
    existing = _kinds.get(kind.key)
    if existing is not None and existing.model != kind.model:
        raise ValueError(f"record kind {kind.key!r} is registered twice with different models")
    _kinds[kind.key] = kind
    _by_model[kind.model.lower()] = kind


def registered(key: str) -> Kind:
    """The kind registered under `key`, installed here or not (KeyError if none)."""
    return _kinds[key]


@contextmanager
def standing_in(*stand_ins: Kind) -> Iterator[None]:
    """Kinds in place of the registered ones of the same keys, for a block (tests of an area that
    shows items of another, over data the test gives)."""
    saved = dict(_kinds), dict(_by_model)
    for kind in stand_ins:
        _kinds[kind.key] = kind
        _by_model[kind.model.lower()] = kind
    try:
        yield
    finally:
        _kinds.clear()
        _kinds.update(saved[0])
        _by_model.clear()
        _by_model.update(saved[1])


def kinds() -> list[Kind]:
    """The kinds whose area is installed in the current workspace, by key."""
    return [kind for _key, kind in sorted(_kinds.items()) if kind.installed]


def all_kinds() -> list[Kind]:
    """Every registered kind, installed or not (checks, privacy)."""
    return [kind for _key, kind in sorted(_kinds.items())]


def kind_named(entity_type: str) -> Kind:
    kind = _kinds.get(entity_type)
    if kind is None or not kind.installed:
        raise UnknownEntityType(
            type=entity_type,
            known=", ".join(kind.key for kind in kinds()) or _("none"),
            details={"entity_type": [_("unknown kind")]},
        )
    return kind


def kind_of(record: Any) -> Kind | None:
    return kind_of_model(type(record))


def kind_of_model(model: type[models.Model]) -> Kind | None:
    return _by_model.get(model._meta.label_lower)


def kind_for_content_type(content_type_id: int) -> Kind | None:
    model = ContentType.objects.get_for_id(content_type_id).model_class()
    return kind_of_model(model) if model is not None else None


def resolve(*, actor: Actor | None, entity_type: str, entity_id: int, action: str = "view") -> Entity:
    """The record `entity_type` `entity_id`, if its kind is known here and `actor` may see it
    (and, with `action` "change", change it)."""
    kind = kind_named(entity_type)
    record = kind.fetch(actor=actor, pk=entity_id, action=action)
    return Entity(kind=kind, id=record.pk, title=kind.title_of(record), instance=record)


def resolve_optional(*, actor: Actor | None, entity_type: str | None, entity_id: int | None) -> Entity | None:
    """For tools whose record is optional: both given, or neither."""
    if entity_type is None and entity_id is None:
        return None
    if entity_type is None or entity_id is None:
        missing = "entity_type" if entity_type is None else "entity_id"
        raise EntityHalfGiven(details={missing: [_("required")]})
    return resolve(actor=actor, entity_type=entity_type, entity_id=entity_id)


def of_record(record: Any) -> Entity:
    """An Entity for a record an area already holds (no visibility check: the caller has one)."""
    kind = kind_of(record)
    if kind is None:
        raise ValueError(f"{record._meta.label} is not a registered record kind")
    return Entity(kind=kind, id=record.pk, title=kind.title_of(record), instance=record)


def visible(*, actor: Actor | None, content_type_id: int, object_id: int) -> Entity | None:
    """The linked record as `actor` may see it now, or None (removed, hidden, area gone)."""
    kind = kind_for_content_type(content_type_id)
    if kind is None or not kind.installed:
        return None
    try:
        record = kind.fetch(actor=actor, pk=object_id)
    except AppError:  # not found, hidden, in the trash: not available to this reader
        return None
    return Entity(kind=kind, id=record.pk, title=kind.title_of(record), instance=record)


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


def describe(*, actor: Actor | None, item_kind: str, ids: list[int]) -> dict[int, Item] | None:
    """The items of `item_kind` among `ids` that exist and `actor` may see; None when that kind
    of item is not available here (its area not installed)."""
    kind = _kinds.get(item_kind)
    if kind is None or kind.describe is None or not kind.installed:
        return None
    return kind.describe(actor=actor, ids=ids) if ids else {}


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
