"""A contact's life: its history, merge and restore, sharing and owners."""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import (
    EntityId,
    HistoryOut,
    Limit,
    Offset,
    Out,
    Page,
    PersonRef,
    ShareOut,
    paginate,
)
from apps.contacts import services
from apps.contacts.models import Contact, ContactEvent
from apps.contacts.permissions import ContactsPerm
from apps.contacts.shapes import ContactOut, ContactRef, OwnershipOut
from apps.contacts.tools.common import ContactId
from apps.core import clean

EventKind = Literal[
    "created",
    "updated",
    "deleted",
    "restored",
    "merged",
    "merged_into",
    "shared",
    "owner_changed",
    "health_updated",
    "linked",
    "unlinked",
    "key_contacts_updated",
    "conflict_resolved",
    "credit_checked",
]


@tool("getContactHistory", permission=ContactsPerm.VIEW, title="Get a contact's history", read_only=True)
def get_contact_history(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    kinds: Annotated[
        list[EventKind] | None, Field(max_length=20, description="Only these (default: all)")
    ] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[HistoryOut]:
    """Get a contact's timeline, newest first: every change, who made it and when."""
    contact = Contact.objects.fetch(ctx.actor, contact_id, trash=True)
    events = ContactEvent.objects.filter(contact=contact).select_related("actor")
    if kinds:
        events = events.filter(kind__in=kinds)
    return paginate(events, limit=limit, offset=offset, item=HistoryOut.of_record)


class OwnershipHistoryOut(Out):
    contact_id: int
    owner: PersonRef | None = Field(description="The owner now")
    changes: list[OwnershipOut] = Field(description="Newest first")


@tool(
    "getContactOwnershipHistory",
    permission=ContactsPerm.VIEW,
    title="Get who owned a contact",
    read_only=True,
)
def get_contact_ownership_history(ctx: ToolContext, *, contact_id: ContactId) -> OwnershipHistoryOut:
    """Get who owns a contact now and every change of owner: from and to whom, by whom, when, why."""
    contact = Contact.objects.select_related("owner").fetch(ctx.actor, contact_id, trash=True)
    changes = contact.ownership_changes.select_related("previous_owner", "new_owner", "changed_by")
    return OwnershipHistoryOut(
        contact_id=contact.pk,
        owner=PersonRef.of(contact.owner),
        changes=[OwnershipOut.of_record(change) for change in changes[:200]],
    )


class MergeOut(Out):
    contact: ContactOut
    merged_ids: list[int] = Field(description="Now archived")
    fields_taken: list[str] = Field(description="Filled from the duplicates")


@tool(
    "mergeContacts",
    permission=ContactsPerm.MERGE,
    title="Merge duplicate contacts",
    markers=Marker.DESTRUCTIVE,
)
def merge_contacts(
    ctx: ToolContext,
    *,
    primary_id: Annotated[int, Field(ge=1, description="The contact to keep")],
    duplicate_ids: Annotated[
        list[EntityId], Field(min_length=1, max_length=10, description="Contacts to merge into it")
    ],
    prefer: Annotated[
        dict[str, EntityId] | None,
        Field(max_length=40, description="Per field (e.g. email), the contact whose value wins"),
    ] = None,
) -> MergeOut:
    """Merge duplicate contacts into one, which fills its empty fields from them; they are archived."""
    from pydantic.alias_generators import to_snake

    primary = Contact.objects.fetch(ctx.actor, primary_id)
    duplicates = [Contact.objects.fetch(ctx.actor, pk) for pk in duplicate_ids]
    choices = {to_snake(field): source for field, source in (prefer or {}).items()}
    primary, taken = services.contacts_merge(
        actor=ctx.actor, primary=primary, duplicates=duplicates, prefer=choices
    )
    return MergeOut(contact=ContactOut.of(primary, ctx.actor), merged_ids=duplicate_ids, fields_taken=taken)


class DeletedContactOut(ContactRef):
    archived_at: datetime = Field(description="restoreContact brings it back")


@tool(
    "deleteContact",
    permission=ContactsPerm.DELETE,
    title="Delete a contact",
    markers=Marker.DESTRUCTIVE,
)
def delete_contact(ctx: ToolContext, *, contact_id: ContactId) -> DeletedContactOut:
    """Archive a contact (soft delete) with its links and history; restoreContact brings it back."""
    contact = Contact.objects.fetch(ctx.actor, contact_id, "delete")
    contact = services.contact_delete(actor=ctx.actor, contact=contact)
    return DeletedContactOut.of_record(contact, archived_at=contact.deleted_at)


@tool("restoreContact", permission=ContactsPerm.DELETE, title="Restore an archived contact", idempotent=True)
def restore_contact(ctx: ToolContext, *, contact_id: ContactId) -> ContactOut:
    """Bring back an archived contact (deleted or merged) with what it had; what a merge moved stays."""
    contact = Contact.objects.fetch(ctx.actor, contact_id, trash=True)
    return ContactOut.of(services.contact_restore(actor=ctx.actor, contact=contact), ctx.actor)


class SharingOut(Out):
    contact_id: int
    visibility: str
    owner: PersonRef | None
    shared_with: list[ShareOut]


@tool("shareContact", permission=ContactsPerm.SHARE, title="Share a contact", idempotent=True)
def share_contact(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    person_email: Annotated[str, Field(max_length=254, description="A person of the workspace")],
    access: Annotated[Literal["view", "edit", "none"], Field(description="none stops sharing")] = "view",
) -> SharingOut:
    """Share a private contact with a person (view or edit), or stop (none)."""
    contact = Contact.objects.fetch(ctx.actor, contact_id)
    person = clean.person_by_email(person_email)
    contact = services.contact_share(actor=ctx.actor, contact=contact, person=person, access=access)
    return SharingOut.of_record(
        contact, contact_id=contact.pk, shared_with=ShareOut.many(contact.shares.select_related("user"))
    )


class TransferOut(Out):
    from_owner: PersonRef
    to_owner: PersonRef
    count: int
    transferred: list[ContactRef]


@tool(
    "transferContactAccounts",
    permission=ContactsPerm.TRANSFER,
    title="Hand contacts over to another owner",
    markers=Marker.HIGH_RISK,
)
def transfer_contact_accounts(
    ctx: ToolContext,
    *,
    from_email: Annotated[str, Field(max_length=254, description="The current owner")],
    to_email: Annotated[str, Field(max_length=254, description="The new owner")],
    contact_ids: Annotated[
        list[EntityId] | None, Field(max_length=500, description="Default: all they own")
    ] = None,
    include_people: Annotated[bool, Field(description="With the organisations' people")] = True,
    reason: Annotated[str, Field(max_length=300, description="Why, for the history")] = "",
) -> TransferOut:
    """Hand the contacts a person owns over to another person, e.g. when someone leaves."""
    from_user = clean.person_by_email(from_email)
    to_user = clean.person_by_email(to_email)
    moved = services.contacts_transfer(
        actor=ctx.actor,
        from_user=from_user,
        to_user=to_user,
        contact_ids=contact_ids,
        include_people=include_people,
        reason=reason,
    )
    return TransferOut(
        from_owner=PersonRef.of(from_user),
        to_owner=PersonRef.of(to_user),
        count=len(moved),
        transferred=[ContactRef.of_record(contact) for contact in moved[:500]],
    )
