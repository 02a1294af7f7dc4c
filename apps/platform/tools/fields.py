"""Custom fields through tools: the fields a workspace adds to its contacts, deals and tasks
(apps.platform.fields), read by everyone who sees that kind of record, managed by administrators
(platform.admin), and their values set on a record by whoever may change it."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Out, id_field
from apps.platform import errors
from apps.platform import fields as service
from apps.platform.models import CustomField
from apps.platform.permissions import PlatformPerm

KindName = Annotated[
    Literal["contacts", "deals", "tasks"], Field(description="The kind of record the fields belong to")
]
FieldType = Literal["text", "number", "date", "choice", "boolean"]
FieldKey = Annotated[str, Field(max_length=50, description="The field's key, from listCustomFields")]
Choices = Annotated[
    list[Annotated[str, Field(max_length=100)]],
    Field(max_length=200, description="choice fields: the values it takes"),
]
Value = str | int | float | bool | None


class CustomFieldOut(Out):
    kind: str
    key: str
    label: str
    type: str
    choices: list[str]
    required: bool
    order: int
    archived_at: datetime | None = Field(description="Archived: hidden, its values kept")
    records_with_value: int


class CustomFieldsOut(Out):
    fields: list[CustomFieldOut]
    values: dict[str, Any] | None = Field(description="recordId given: the record's values by key")


class ManagedFieldOut(Out):
    action: str
    field: CustomFieldOut | None = Field(description="The field as it is now; null once deleted")
    values_deleted: int = Field(description="delete: the records' values deleted with it")


class FieldValuesOut(Out):
    kind: str
    record_id: int
    values: dict[str, Any]


def _out(field: CustomField) -> CustomFieldOut:
    return CustomFieldOut(
        kind=field.kind,
        key=field.key,
        label=field.label,
        type=field.type,
        choices=list(field.choices),
        required=field.required,
        order=field.order,
        archived_at=field.archived_at,
        records_with_value=field.values.count(),
    )


@tool("listCustomFields", permission=PlatformPerm.VIEW, title="List custom fields", read_only=True)
def list_custom_fields(
    ctx: ToolContext,
    *,
    kind: Annotated[
        Literal["contacts", "deals", "tasks"] | None,
        Field(description="Only this kind's fields; else of every kind you may see"),
    ] = None,
    include_archived: Annotated[bool, Field(description="Archived fields too")] = False,
    record_id: Annotated[
        int | None, id_field("the kind's search tool", description="With kind: this record's values too")
    ] = None,
) -> CustomFieldsOut:
    """List the custom fields of contacts, deals or tasks: key, label, type, choices, required.

    With kind and recordId, also that record's values. Adding or changing fields: manageCustomFields;
    setting a record's values: setCustomFieldValues."""
    if kind is None:
        if record_id is not None:
            raise errors.RecordKindRequired()
        kinds = service.visible_kinds(ctx.actor)
    else:
        kinds = [service.readable_kind(ctx.actor, kind)]
    values = None
    if record_id is not None:
        service.record(ctx.actor, kinds[0], record_id)
        values = service.values_of(kinds[0], record_id)
    rows = CustomField.objects.filter(kind__in=[k.key for k in kinds])
    if not include_archived:
        rows = rows.filter(archived_at__isnull=True)
    return CustomFieldsOut(fields=[_out(field) for field in rows], values=values)


def _asks(
    ctx: ToolContext,
    *,
    action: str,
    kind: str,
    key: str,
    label: str,
    type: str | None,
    choices: list[str] | None,
    required: bool | None,
    order: int | None,
) -> bool:
    """manageCustomFields' confirmation: only to delete a field that records hold values of, once
    the field is known to exist (nobody is asked to confirm what would fail)."""
    if action != "delete":
        return False
    field = service.field_named(service.kind_of(kind), key, action=action)
    return field.values.exists()


@tool(
    "manageCustomFields",
    permission=PlatformPerm.ADMIN,
    title="Manage custom fields",
    markers=Marker.DESTRUCTIVE,
    confirm_if=_asks,
)
def manage_custom_fields(
    ctx: ToolContext,
    *,
    action: Annotated[
        Literal["create", "update", "archive", "restore", "delete"], Field(description="What to do")
    ],
    kind: KindName,
    key: Annotated[str, Field(max_length=50, description="The field's key (create: a new slug)")],
    label: Annotated[str, Field(max_length=100, description="create: required; update: a new label")] = "",
    type: Annotated[FieldType | None, Field(description="create: required")] = None,
    choices: Annotated[Choices | None, Field(description="choice fields: the values, in order")] = None,
    required: Annotated[bool | None, Field(description="A value may not be cleared")] = None,
    order: Annotated[
        int | None, Field(ge=0, le=10_000, description="Position among the kind's fields")
    ] = None,
) -> ManagedFieldOut:
    """Add, change, archive, restore or delete a custom field of contacts, deals or tasks.

    Archive a field records hold values of (kept, hidden); deleting it deletes them, asked first.
    The fields: listCustomFields."""
    the_kind = service.kind_of(kind)
    if action == "create":
        created = service.field_create(
            kind=the_kind,
            key=key,
            label=label,
            type=type,
            choices=choices,
            required=bool(required),
            order=order,
        )
        return ManagedFieldOut(action=action, field=_out(created), values_deleted=0)
    field = service.field_named(the_kind, key, action=action)
    if action == "update":
        changes = {
            name: value
            for name, value in (
                ("label", label or None),
                ("type", type),
                ("choices", choices),
                ("required", required),
                ("order", order),
            )
            if value is not None
        }
        return ManagedFieldOut(
            action=action, field=_out(service.field_update(field, changes=changes)), values_deleted=0
        )
    if action in ("archive", "restore"):
        archived = service.field_archive(field, archived=action == "archive")
        return ManagedFieldOut(action=action, field=_out(archived), values_deleted=0)
    return ManagedFieldOut(action=action, field=None, values_deleted=service.field_delete(field))


@tool(
    "setCustomFieldValues", permission=PlatformPerm.FIELDS, title="Set custom field values", idempotent=True
)
def set_custom_field_values(
    ctx: ToolContext,
    *,
    kind: KindName,
    record_id: Annotated[int, id_field("the kind's search tool")],
    values: Annotated[
        dict[Annotated[str, Field(max_length=50)], Value],
        Field(max_length=100, description="{fieldKey: value}; null clears a value"),
    ],
) -> FieldValuesOut:
    """Set a contact's, deal's or task's custom field values, checked against the fields' types.

    Needs the right to change the record. The fields and their keys: listCustomFields."""
    the_kind = service.kind_of(kind)
    values_now = service.values_set(actor=ctx.actor, kind=the_kind, record_id=record_id, values=values)
    return FieldValuesOut(kind=the_kind.key, record_id=record_id, values=values_now)
