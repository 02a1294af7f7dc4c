"""Custom fields (apps.platform.models.fields): the fields an administrator adds to a kind of record
and the values records hold of them.

The kinds are the areas' records by model label (read through Django's app registry, so this module
depends on no area): a record is reached through its own queryset's `fetch`, which says "not found"
alike for a record that does not exist and for one the actor may not see, so a value is never read,
set or quoted about a record its reader may not see."""

import math
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.apps import apps
from django.db import models, transaction
from django.db.models.expressions import BaseExpression
from django.db.models.signals import post_delete
from django.utils import timezone

from apps.core import clean, customfields
from apps.core.actors import Actor, can
from apps.core.errors import NothingToChange
from apps.platform import errors
from apps.platform.models import CustomField, CustomFieldValue


@dataclass(frozen=True)
class Kind:
    key: str
    model: str
    view: str
    edit: str
    find_with: str


KINDS = {
    kind.key: kind
    for kind in (
        Kind("contacts", "contacts.Contact", "contacts.view", "contacts.edit", "searchContacts"),
        Kind("deals", "deals.Deal", "deals.view", "deals.edit", "searchDeals"),
        Kind("tasks", "tasks.Task", "tasks.view", "tasks.edit", "searchTasks"),
    )
}
KEY = re.compile(r"^[a-z][a-z0-9_-]{0,49}$")


def kind_of(key: str) -> Kind:
    kind = KINDS.get(key.strip().lower())
    if kind is None:
        raise errors.UnknownFieldKind(kind=key, known=", ".join(KINDS))
    return kind


def visible_kinds(actor: Actor) -> list[Kind]:
    return [kind for kind in KINDS.values() if can(actor, kind.view)]


def readable_kind(actor: Actor, key: str) -> Kind:
    kind = kind_of(key)
    if not can(actor, kind.view):
        raise errors.FieldKindNotVisible(kind=kind.key)
    return kind


def fields_of(kind: Kind, *, archived: bool = False) -> models.QuerySet[CustomField]:
    rows = CustomField.objects.filter(kind=kind.key)
    return rows if archived else rows.filter(archived_at__isnull=True)


def field_named(kind: Kind, key: str, *, action: str, lock: bool = False) -> CustomField:
    if not key.strip():
        raise errors.FieldKeyRequired(action=action)
    rows = CustomField.objects.filter(kind=kind.key, key=key.strip().lower())
    found = (rows.select_for_update() if lock else rows).first()
    if found is None:
        raise errors.UnknownCustomField(kind=kind.key, key=key)
    return found


def record(actor: Actor, kind: Kind, record_id: int, action: str = "view") -> models.Model:
    """The record, if the actor may see it (and `action` it): the area's own rule."""
    model = apps.get_model(kind.model)
    return model.objects.fetch(actor, record_id, action)


def values_of(kind: Kind, record_id: int) -> dict[str, Any]:
    rows = CustomFieldValue.objects.filter(
        field__kind=kind.key, field__archived_at__isnull=True, record_id=record_id
    ).select_related("field")
    return {row.field.key: row.value for row in rows.order_by("field__order", "field__key")}


# --- definitions ----------------------------------------------------------------------------------


def _choices(given: list[str] | None) -> list[str]:
    cleaned = [str(choice).strip() for choice in given or []]
    if not cleaned or any(not c or len(c) > 100 for c in cleaned) or len(set(cleaned)) != len(cleaned):
        raise errors.FieldChoicesRequired()
    return cleaned


def field_create(
    *,
    kind: Kind,
    key: str,
    label: str,
    type: str | None,
    choices: list[str] | None,
    required: bool,
    order: int | None,
) -> CustomField:
    key = key.strip().lower()
    if not key:
        raise errors.FieldKeyRequired(action="create")
    if not KEY.match(key):
        raise errors.FieldKeyInvalid(key=key)
    if not label.strip():
        raise errors.FieldLabelRequired()
    if type is None:
        raise errors.FieldTypeRequired(known=", ".join(CustomField.Type.values))
    if type == CustomField.Type.CHOICE:
        choices = _choices(choices)
    elif choices:
        raise errors.FieldChoicesNotAllowed(key=key, type=type)
    with transaction.atomic():
        if CustomField.objects.filter(kind=kind.key, key=key).exists():
            raise errors.FieldKeyTaken(kind=kind.key, key=key)
        if order is None:
            last = CustomField.objects.filter(kind=kind.key).aggregate(last=models.Max("order"))["last"]
            order = 0 if last is None else last + 1
        return CustomField.objects.create(
            kind=kind.key,
            key=key,
            label=label.strip(),
            type=type,
            choices=choices or [],
            required=required,
            order=order,
        )


def field_update(field: CustomField, *, changes: dict[str, Any]) -> CustomField:
    if not changes:
        raise NothingToChange()
    has_values = field.values.exists()
    new_type = changes.get("type") or field.type
    if new_type != field.type and has_values:
        raise errors.FieldTypeFixed(key=field.key, type=field.type)
    if new_type == CustomField.Type.CHOICE:
        choices = _choices(changes["choices"]) if "choices" in changes else field.choices
        if new_type == field.type and has_values:
            used = sorted({str(v) for v in field.values.values_list("value", flat=True)} - set(choices))
            if used:
                raise errors.FieldChoicesInUse(used=", ".join(used), key=field.key)
        if not choices:
            raise errors.FieldChoicesRequired()
        field.choices = choices
    elif changes.get("choices"):
        raise errors.FieldChoicesNotAllowed(key=field.key, type=new_type)
    else:
        field.choices = []
    field.type = new_type
    if changes.get("label") is not None:
        if not changes["label"].strip():
            raise errors.FieldLabelRequired()
        field.label = changes["label"].strip()
    if changes.get("required") is not None:
        field.required = changes["required"]
    if changes.get("order") is not None:
        field.order = changes["order"]
    field.save()
    return field


def field_archive(field: CustomField, *, archived: bool) -> CustomField:
    field.archived_at = (field.archived_at or timezone.now()) if archived else None
    field.save(update_fields=["archived_at"])
    return field


def field_delete(field: CustomField) -> int:
    """Deletes the field with its values (the tool asks first when there are values)."""
    held = field.values.count()
    field.delete()
    return held


# --- values ---------------------------------------------------------------------------------------


def _value(field: CustomField, value: Any) -> Any:
    def wrong(expected: str) -> errors.FieldValueInvalid:
        return errors.FieldValueInvalid(
            value=_quoted(value), key=field.key, expected=expected, details={field.key: [expected]}
        )

    if field.type == CustomField.Type.TEXT:
        if not isinstance(value, str) or len(value) > 1000:
            raise wrong("text of at most 1000 characters")
        return value.strip()
    if field.type == CustomField.Type.NUMBER:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise wrong("a number")
        return value
    if field.type == CustomField.Type.BOOLEAN:
        if not isinstance(value, bool):
            raise wrong("true or false")
        return value
    if field.type == CustomField.Type.DATE:
        try:
            found = date.fromisoformat(value)
        except (TypeError, ValueError):
            raise wrong("a date, YYYY-MM-DD") from None
        if not clean.within_years(found.year):
            raise wrong(f"a date in the years {clean.YEARS[0]} to {clean.YEARS[1]}")
        return found.isoformat()
    if value not in field.choices:
        raise wrong("one of " + ", ".join(field.choices))
    return value


# What a refusal quotes of a value: a long one (5,000 characters of text) is cut, so the refusal
# stays a line and an import's problems, one per row, fit its answer.
QUOTED = 60


def _quoted(value: Any) -> Any:
    shown = value if isinstance(value, str) else repr(value)
    if len(shown) <= QUOTED:
        return value
    return shown[:QUOTED] + "…"


def values_clean(
    kind: Kind,
    values: dict[str, Any],
    *,
    creating: bool = False,
    fields: dict[str, CustomField] | None = None,
) -> dict[CustomField, Any]:
    """The values checked against the kind's fields (`fields`: read once for many records, by
    key), before anything is written (null clears a value); `creating`: a record being made, so a
    required field must be given a value, and a null is nothing to clear. Each failure names the
    field's key."""
    if fields is None:
        fields = fields_by_key(kind)
    cleaned: dict[CustomField, Any] = {}
    for key, value in values.items():
        field = fields.get(key)
        if field is None:
            raise errors.UnknownCustomField(kind=kind.key, key=key)
        if field.archived_at is not None:
            raise errors.FieldArchived(key=key)
        if value is None and field.required:
            raise errors.FieldValueRequired(key=key, details={key: ["required"]})
        if value is not None or not creating:
            cleaned[field] = None if value is None else _value(field, value)
    if creating:
        for field in fields.values():
            if field.required and field.archived_at is None and field not in cleaned:
                raise errors.FieldValueMissing(key=field.key, details={field.key: ["required"]})
    return cleaned


def fields_by_key(kind: Kind) -> dict[str, CustomField]:
    return {field.key: field for field in CustomField.objects.filter(kind=kind.key)}


TRUE, FALSE = frozenset({"true", "yes", "1"}), frozenset({"false", "no", "0"})


def values_of_text(fields: dict[str, CustomField], texts: dict[str, str]) -> dict[str, Any]:
    """A file's cells as the values of their fields (a number, true or false); text that is none
    stays text, for `values_clean` to refuse in its words."""
    values: dict[str, Any] = {}
    for key, text in texts.items():
        field = fields.get(key)
        value: Any = text
        if field is not None and field.type == CustomField.Type.NUMBER:
            for number in (int, float):
                try:
                    value = number(text)
                    break
                except ValueError:
                    continue
        elif field is not None and field.type == CustomField.Type.BOOLEAN and text.lower() in TRUE | FALSE:
            value = text.lower() in TRUE
        values[key] = value
    return values


def values_write_many(cleaned: list[tuple[int, dict[CustomField, Any]]]) -> None:
    """The values of records just made (none held yet), in one statement."""
    CustomFieldValue.objects.bulk_create(
        [
            CustomFieldValue(field=field, record_id=record_id, value=value)
            for record_id, values in cleaned
            for field, value in values.items()
            if value is not None
        ]
    )


def values_write(record_id: int, cleaned: dict[CustomField, Any]) -> None:
    for field, value in cleaned.items():
        if value is None:
            CustomFieldValue.objects.filter(field=field, record_id=record_id).delete()
        else:
            CustomFieldValue.objects.update_or_create(
                field=field, record_id=record_id, defaults={"value": value}
            )


def values_merge(kind: Kind, *, into: int, sources: list[int]) -> list[str]:
    """The values of `sources` copied to `into` for the fields it holds none of (archived fields
    too: their values are kept, as everywhere); the first of `sources` holding one wins."""
    held = CustomFieldValue.objects.filter(field__kind=kind.key)
    have = set(held.filter(record_id=into).values_list("field_id", flat=True))
    order = {record_id: position for position, record_id in enumerate(sources)}
    taken: dict[int, CustomFieldValue] = {}
    for value in sorted(
        held.filter(record_id__in=sources).select_related("field"), key=lambda one: order[one.record_id]
    ):
        if value.field_id not in have and value.field_id not in taken:
            taken[value.field_id] = value
    CustomFieldValue.objects.bulk_create(
        [
            CustomFieldValue(field_id=value.field_id, record_id=into, value=value.value)
            for value in taken.values()
        ]
    )
    return sorted(value.field.key for value in taken.values())


def values_set(*, actor: Actor, kind: Kind, record_id: int, values: dict[str, Any]) -> dict[str, Any]:
    """Sets (or, with null, clears) a record's values, all or none; the record is fetched as the
    actor may change it first, so nothing about a record they may not see is checked or said."""
    if not values:
        raise errors.NoFieldValues()
    record(actor, kind, record_id, "change")
    with transaction.atomic():
        values_write(record_id, values_clean(kind, values))
    return values_of(kind, record_id)


# --- through the areas' own tools (apps.core.customfields) -----------------------------------------


class JSONObjectAgg(models.Aggregate):
    function = "JSONB_OBJECT_AGG"
    output_field = models.JSONField()


class _Fields:
    """The kit's interface (apps.core.customfields): the values given to and read by the tools of
    the kinds (createContact's `customFields`, getContact's answer), as setCustomFieldValues and
    listCustomFields give and read them."""

    def clean(self, kind: str, values: dict[str, Any], *, creating: bool) -> Any:
        return values_clean(kind_of(kind), values, creating=creating)

    def write(self, kind: str, record_id: int, cleaned: Any) -> None:
        values_write(record_id, cleaned)

    def read(self, kind: str, record_id: int) -> dict[str, Any]:
        return values_of(kind_of(kind), record_id)

    def merge(self, kind: str, into: int, sources: list[int]) -> list[str]:
        return values_merge(kind_of(kind), into=into, sources=sources)

    def values(self, kind: str) -> BaseExpression:
        held = (
            CustomFieldValue.objects.filter(
                record_id=models.OuterRef("pk"), field__kind=kind, field__archived_at__isnull=True
            )
            .order_by()
            .values("record_id")
            .annotate(held=JSONObjectAgg("field__key", "value"))
            .values("held")
        )
        return models.Subquery(held, output_field=models.JSONField())


def _forget(kind: Kind) -> Any:
    def forget(sender: type[models.Model], instance: models.Model, **kwargs: Any) -> None:
        """A record deleted for good takes its values with it."""
        CustomFieldValue.objects.filter(field__kind=kind.key, record_id=instance.pk).delete()

    return forget


def install() -> None:
    """At start-up (the area's declaration): the kit's interface, and the receivers that delete a
    record's values with the record."""
    customfields.register(_Fields())
    for kind in KINDS.values():
        post_delete.connect(
            _forget(kind),
            sender=apps.get_model(kind.model),
            weak=False,
            dispatch_uid=f"custom-values-{kind.key}",
        )
