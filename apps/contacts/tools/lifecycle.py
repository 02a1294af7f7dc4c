"""A contact's life: its history, merge and restore, sharing and owners."""

from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import EntityId, Limit, Offset, Out, Page, PersonRef, ShareOut, paginate
from apps.contacts import services
from apps.contacts.models import Contact, ContactEvent
from apps.contacts.permissions import ContactsPerm
from apps.contacts.shapes import ContactOut, ContactRef, EventOut, OwnershipOut
from apps.contacts.tools.common import ContactId
from apps.core import sharing

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
        list[EventKind] | None, Field(max_length=20, description="Only these kinds of events (default: all)")
    ] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[EventOut]:
    """The contact's timeline, newest first: created, every change with the fields' old and new
    values, archive and restore, merges, sharing, owner changes, health, links, key contacts,
    duplicate decisions and credit checks, each with who did it and when."""
    contact = Contact.objects.fetch(ctx.actor, contact_id, trash=True)
    events = ContactEvent.objects.filter(contact=contact).select_related("actor")
    if kinds:
        events = events.filter(kind__in=kinds)
    return paginate(events, limit=limit, offset=offset, item=EventOut.of)


class OwnershipHistoryOut(Out):
    contact_id: int
    owner: PersonRef | None = Field(description="The owner now")
    changes: list[OwnershipOut] = Field(description="Every change of owner, newest first")


@tool(
    "getContactOwnershipHistory",
    permission=ContactsPerm.VIEW,
    title="Get who owned a contact",
    read_only=True,
)
def get_contact_ownership_history(ctx: ToolContext, *, contact_id: ContactId) -> OwnershipHistoryOut:
    """Who owns the contact now, and every change of owner since it was created: from whom, to
    whom, who made the change, when and why (a transfer, an update, the creation)."""
    contact = Contact.objects.select_related("owner").fetch(ctx.actor, contact_id, trash=True)
    changes = contact.ownership_changes.select_related("previous_owner", "new_owner", "changed_by")
    return OwnershipHistoryOut(
        contact_id=contact.pk,
        owner=PersonRef.of(contact.owner),
        changes=[OwnershipOut.of_record(change) for change in changes[:200]],
    )


class MergeOut(Out):
    contact: ContactOut = Field(description="The primary contact, after the merge")
    merged_ids: list[int] = Field(description="The contacts merged into it, now archived")
    fields_taken: list[str] = Field(description="Fields the primary took from the others")


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
        Field(description="Per field (camelCase, e.g. email), the id of the contact whose value wins"),
    ] = None,
) -> MergeOut:
    """Merge duplicates into one contact. The primary keeps its values; its empty fields are
    filled from the duplicates (or `prefer` picks the contact per field); tags, business
    fields and notes are combined; people, linked items, shares, key contacts and credit checks
    move to it. The duplicates are archived and point to the primary (restoreContact brings one
    back, without undoing what moved)."""
    from pydantic.alias_generators import to_snake

    primary = Contact.objects.fetch(ctx.actor, primary_id)
    duplicates = [Contact.objects.fetch(ctx.actor, pk) for pk in duplicate_ids]
    choices = {to_snake(field): source for field, source in (prefer or {}).items()}
    primary, taken = services.contacts_merge(
        actor=ctx.actor, primary=primary, duplicates=duplicates, prefer=choices
    )
    return MergeOut(contact=ContactOut.of(primary, ctx.actor), merged_ids=duplicate_ids, fields_taken=taken)


@tool("restoreContact", permission=ContactsPerm.DELETE, title="Restore an archived contact", idempotent=True)
def restore_contact(ctx: ToolContext, *, contact_id: ContactId) -> ContactOut:
    """Bring back an archived contact (archived by deleting it or by a merge), with everything it
    had. A contact that was merged is detached from the contact it was merged into; what moved
    in the merge stays there."""
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
    person_email: Annotated[str, Field(max_length=254, description="E-mail of a person of this workspace")],
    access: Annotated[
        Literal["view", "edit", "none"], Field(description="view, edit, or none to stop sharing with them")
    ] = "view",
) -> SharingOut:
    """Share a contact with another person of the workspace, so they can see it (view) or also
    change it (edit), or stop sharing (none). Sharing matters for private contacts; a contact
    visible to everyone can already be seen by anyone whose role allows contacts."""
    contact = Contact.objects.fetch(ctx.actor, contact_id)
    person = sharing.person_by_email(person_email)
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
    from_email: Annotated[str, Field(max_length=254, description="E-mail of the current owner")],
    to_email: Annotated[str, Field(max_length=254, description="E-mail of the new owner")],
    contact_ids: Annotated[
        list[EntityId] | None,
        Field(max_length=500, description="Only these contacts (default: all they own)"),
    ] = None,
    include_people: Annotated[
        bool, Field(description="Also hand over the people of the organisations handed over")
    ] = True,
    reason: Annotated[str, Field(max_length=300, description="Why, kept in the ownership history")] = "",
) -> TransferOut:
    """Hand the accounts (contacts) a person owns over to another person, for example when
    someone leaves or territories change: all of them, or the ones named, with the people of
    the organisations handed over. Every change is kept in each contact's ownership history."""
    from_user = sharing.person_by_email(from_email)
    to_user = sharing.person_by_email(to_email)
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
