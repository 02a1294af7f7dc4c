"""Contacts themselves: create, read and change one."""

from datetime import date, datetime
from typing import Annotated, Any

from pydantic import Field

from apps.catalogue.customfields import FieldsOf
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Changes, EntityId, Out, Tags
from apps.contacts import selectors, services
from apps.contacts.models import Contact
from apps.contacts.permissions import ContactsPerm
from apps.contacts.shapes import ConflictOut, ContactOut
from apps.contacts.tools.common import ContactId, Kind, Stage, Text100, Text200, Visibility


class ContactFields(Changes):
    """The fields of a contact an agent may set. On update, only the fields sent change, and
    null clears one (the tools' descriptions say so)."""

    kind: Kind | None = None
    first_name: Text100 | None = None
    last_name: Text100 | None = None
    organisation_name: Text200 | None = None
    email: Annotated[str, Field(max_length=254)] | None = None
    phone: Annotated[str, Field(max_length=40)] | None = Field(
        None, description="International, or with country"
    )
    mobile: Annotated[str, Field(max_length=40)] | None = None
    job_title: Annotated[str, Field(max_length=150)] | None = None
    company: Text200 | None = None
    organisation_id: EntityId | None = None
    website: Text200 | None = None
    street: Text200 | None = None
    city: Text100 | None = None
    region: Text100 | None = None
    postal_code: Annotated[str, Field(max_length=20)] | None = None
    country: Text100 | None = Field(None, description="ISO code or name")
    birthday: date | None = None
    notes: Annotated[str, Field(max_length=10_000)] | None = None
    tags: Tags | None = None
    lifecycle_stage: Stage | None = None
    source: Text100 | None = None
    visibility: Visibility | None = None
    owner_email: Annotated[str, Field(max_length=254)] | None = None
    last_contacted_at: datetime | None = None
    data: dict[str, Any] | None = Field(None, description="Business fields; merged, null removes a key")


class CreatedContactOut(Out):
    contact: ContactOut
    possible_duplicates: list[ConflictOut] = Field(
        description="Decide with mergeContacts or updateConflictResolution"
    )


class UpdatedContactOut(Out):
    contact: ContactOut
    changed: list[str]


@tool(
    "createContact",
    permission=ContactsPerm.CREATE,
    title="Create a contact",
    custom_fields=FieldsOf("contacts", "create", answer="contact"),
)
def create_contact(
    ctx: ToolContext,
    *,
    contact: Annotated[ContactFields, Field(description="Its fields")],
) -> CreatedContactOut:
    """Add a person or an organisation to the contacts; an organisation needs organisationName.
    Look-alikes come back as possibleDuplicates."""
    created, conflicts = services.contact_create(actor=ctx.actor, fields=contact.given())
    return CreatedContactOut(
        contact=ContactOut.of(created, ctx.actor),
        possible_duplicates=[ConflictOut.of(c) for c in selectors.conflicts_read_by(conflicts, ctx.actor)],
    )


@tool(
    "getContact",
    permission=ContactsPerm.VIEW,
    title="Get a contact",
    read_only=True,
    on_loop=True,
    custom_fields=FieldsOf("contacts", "get"),
)
def get_contact(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    include_archived: Annotated[bool, Field(description="Even if archived")] = False,
) -> ContactOut:
    """Get one contact with every field. With its health, history and links: examineContact."""
    contact = selectors.contact_answer(actor=ctx.actor, contact_id=contact_id, trash=include_archived)
    return ContactOut.of(contact, ctx.actor)


@tool(
    "updateContact",
    permission=ContactsPerm.EDIT,
    title="Update a contact",
    idempotent=True,
    custom_fields=FieldsOf("contacts", "update", answer="contact"),
)
def update_contact(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    changes: Annotated[ContactFields, Field(description="Only the fields to change; null clears one")],
) -> UpdatedContactOut:
    """Change some fields of a contact. To hand many to a new owner: transferContactAccounts."""
    contact = Contact.objects.fetch(ctx.actor, contact_id)
    contact, changed = services.contact_update(actor=ctx.actor, contact=contact, fields=changes.given())
    return UpdatedContactOut(contact=ContactOut.of(contact, ctx.actor), changed=changed)
