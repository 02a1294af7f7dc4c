"""Contacts themselves: create, read and change one."""

from datetime import date, datetime
from typing import Annotated, Any

from pydantic import Field

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
    null clears one."""

    kind: Kind | None = Field(None, description="person (default) or organisation")
    first_name: Text100 | None = Field(None, description="A person's first name")
    last_name: Text100 | None = Field(None, description="A person's last name")
    organisation_name: Text200 | None = Field(None, description="An organisation's name (required for one)")
    email: Annotated[str, Field(max_length=254)] | None = Field(None, description="Main e-mail address")
    phone: Annotated[str, Field(max_length=40)] | None = Field(
        None, description="Phone, international form (+44 20 7183 8750), or national with `country` set"
    )
    mobile: Annotated[str, Field(max_length=40)] | None = Field(
        None, description="Mobile phone, like `phone`"
    )
    job_title: Annotated[str, Field(max_length=150)] | None = Field(None, description="A person's job title")
    company: Text200 | None = Field(None, description="Employer as text, when it is not a contact of its own")
    organisation_id: EntityId | None = Field(
        None, description="The organisation contact this person belongs to"
    )
    website: Text200 | None = Field(None, description="Web address")
    street: Text200 | None = Field(None, description="Street and number")
    city: Text100 | None = Field(None, description="City")
    region: Text100 | None = Field(None, description="State, county or region")
    postal_code: Annotated[str, Field(max_length=20)] | None = Field(None, description="Postal code")
    country: Text100 | None = Field(
        None, description="Country: ISO code (GB, DEU) or name; stored as alpha-2"
    )
    birthday: date | None = Field(None, description="A person's birthday (YYYY-MM-DD)")
    notes: Annotated[str, Field(max_length=10_000)] | None = Field(None, description="Free notes")
    tags: Tags | None = Field(None, description="Labels, lower-cased")
    lifecycle_stage: Stage | None = Field(None, description="Where the relationship stands (default lead)")
    source: Text100 | None = Field(
        None, description="Where the contact came from (event, referral, web form…)"
    )
    visibility: Visibility | None = Field(
        None,
        description="workspace (default: everyone who may see contacts), or private: only the owner and "
        "the people it is shared with",
    )
    owner_email: Annotated[str, Field(max_length=254)] | None = Field(
        None, description="E-mail of the workspace person who owns it (default on create: you)"
    )
    last_contacted_at: datetime | None = Field(
        None, description="When someone last talked to them (ISO 8601)"
    )
    data: dict[str, Any] | None = Field(
        None,
        description='The workspace\'s own business fields, e.g. {"industry": "retail"}; on update they are '
        "merged into the existing ones, and a key set to null is removed",
    )


class CreatedContactOut(Out):
    contact: ContactOut
    possible_duplicates: list[ConflictOut] = Field(
        description="Existing contacts that look the same; decide with mergeContacts or "
        "updateConflictResolution"
    )


class UpdatedContactOut(Out):
    contact: ContactOut
    changed: list[str] = Field(description="The fields that changed (empty: nothing did)")


@tool("createContact", permission=ContactsPerm.CREATE, title="Create a contact")
def create_contact(
    ctx: ToolContext,
    *,
    contact: Annotated[ContactFields, Field(description="The new contact's fields")],
) -> CreatedContactOut:
    """Add a person or an organisation to the workspace's contacts. A person needs at least a
    name, an e-mail address or a phone number; an organisation needs `organisationName`. You own
    the new contact unless `ownerEmail` names someone else. Contacts that look the same (same
    e-mail, phone, or name and company) are returned as possible duplicates; the contact is
    created anyway."""
    created, conflicts = services.contact_create(actor=ctx.actor, fields=contact.given())
    return CreatedContactOut(
        contact=ContactOut.of(created, ctx.actor),
        possible_duplicates=[ConflictOut.of_record(c) for c in conflicts],
    )


@tool("getContact", permission=ContactsPerm.VIEW, title="Get a contact", read_only=True)
def get_contact(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    include_archived: Annotated[bool, Field(description="Also return it if it is archived")] = False,
) -> ContactOut:
    """Fetch one contact with every field: names, e-mail, phones, organisation, address, tags,
    stage, owner, who it is shared with, business fields, key contacts and open possible
    duplicates. Use searchContacts to find the id."""
    contact = selectors.contact_answer(actor=ctx.actor, contact_id=contact_id, trash=include_archived)
    return ContactOut.of(contact, ctx.actor)


@tool("updateContact", permission=ContactsPerm.EDIT, title="Update a contact", idempotent=True)
def update_contact(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    changes: Annotated[ContactFields, Field(description="Only the fields to change; null clears a field")],
) -> UpdatedContactOut:
    """Change some fields of a contact; fields not sent stay as they are. Changing `ownerEmail`
    hands the contact to another person and is kept in its ownership history. Every change is
    kept in the contact's history (getContactHistory)."""
    contact = Contact.objects.fetch(ctx.actor, contact_id)
    contact, changed = services.contact_update(actor=ctx.actor, contact=contact, fields=changes.given())
    return UpdatedContactOut(contact=ContactOut.of(contact, ctx.actor), changed=changed)
