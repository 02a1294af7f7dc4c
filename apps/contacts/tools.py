"""The Contacts area of the catalogue (SPEC 4.7): thin doors onto services and selectors."""

from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from django.utils import timezone
from pydantic import Field

from apps.accounts.access import can
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, EntityId, In, Limit, Offset, Out, Page, page_of, paginate
from apps.contacts import links, selectors, services
from apps.contacts.errors import AreaNotInstalled
from apps.contacts.models import Contact, ContactEvent, ContactLink
from apps.contacts.permissions import ContactsPerm
from apps.contacts.shapes import (
    ConflictOut,
    ContactOut,
    ContactRef,
    ContactSummary,
    EventOut,
    HealthOut,
    KeyContactOut,
    OwnershipOut,
    PersonRef,
    ShareOut,
    health_of,
)
from apps.core.errors import NotFound, ValidationFailed

ContactId = Annotated[int, Field(ge=1, le=2**63 - 1, description="The contact's id")]
Kind = Literal["person", "organisation"]
Stage = Literal["lead", "prospect", "customer", "partner", "supplier", "former"]
Visibility = Literal["everyone", "private"]

Text100 = Annotated[str, Field(max_length=100)]
Text200 = Annotated[str, Field(max_length=200)]
Tag = Annotated[str, Field(min_length=1, max_length=50)]


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
    tags: Annotated[list[Tag], Field(max_length=30)] | None = Field(None, description="Labels, lower-cased")
    lifecycle_stage: Stage | None = Field(None, description="Where the relationship stands (default lead)")
    source: Text100 | None = Field(
        None, description="Where the contact came from (event, referral, web form…)"
    )
    visibility: Visibility | None = Field(
        None, description="everyone (default), or private: only the owner and the people it is shared with"
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
        contact=ContactOut.of(created, ctx.actor), possible_duplicates=[ConflictOut.of(c) for c in conflicts]
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
    return ContactOut.of(
        selectors.contact_get(actor=ctx.actor, contact_id=contact_id, include_deleted=include_archived),
        ctx.actor,
    )


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
    contact = selectors.contact_get(actor=ctx.actor, contact_id=contact_id)
    contact, changed = services.contact_update(actor=ctx.actor, contact=contact, fields=changes.given())
    return UpdatedContactOut(contact=ContactOut.of(contact, ctx.actor), changed=changed)


Sort = Literal["name", "-name", "created", "-created", "updated", "-updated"]
SORTS = {
    "name": ("last_name", "first_name", "organisation_name", "id"),
    "-name": ("-last_name", "-first_name", "-organisation_name", "-id"),
    "created": ("created_at", "id"),
    "-created": ("-created_at", "-id"),
    "updated": ("updated_at", "id"),
    "-updated": ("-updated_at", "-id"),
}


@tool("listContacts", permission=ContactsPerm.VIEW, title="List contacts", read_only=True)
def list_contacts(
    ctx: ToolContext,
    *,
    kind: Annotated[Kind | None, Field(description="Only people or only organisations")] = None,
    lifecycle_stage: Annotated[Stage | None, Field(description="Only contacts at this stage")] = None,
    tag: Annotated[str | None, Field(max_length=50, description="Only contacts with this tag")] = None,
    owner_email: Annotated[
        str | None, Field(max_length=254, description="Only contacts this person owns")
    ] = None,
    organisation_id: Annotated[
        int | None, Field(ge=1, description="Only the people of this organisation")
    ] = None,
    archived: Annotated[
        Literal["exclude", "include", "only"],
        Field(description="Archived contacts: leave out (default), add, or only them"),
    ] = "exclude",
    sort: Annotated[
        Sort, Field(description="Order: name, created or updated; a leading - reverses")
    ] = "name",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[ContactSummary]:
    """List the contacts you may see, a page at a time, with simple filters. For free text use
    searchContacts; for conditions on any field (dates, cities, business fields) use queryContacts."""
    rows = selectors.contact_visible(
        actor=ctx.actor, include_deleted=archived == "include", only_deleted=archived == "only"
    ).select_related("owner", "organisation")
    if kind:
        rows = rows.filter(kind=kind)
    if lifecycle_stage:
        rows = rows.filter(lifecycle_stage=lifecycle_stage)
    if tag:
        rows = rows.filter(tags__contains=[" ".join(tag.split()).lower()])
    if owner_email:
        rows = rows.filter(owner__email=owner_email.strip().lower())
    if organisation_id:
        rows = rows.filter(organisation_id=organisation_id)
    return paginate(rows.order_by(*SORTS[sort]), limit=limit, offset=offset, item=ContactSummary.of)


@tool("searchContacts", permission=ContactsPerm.VIEW, title="Search contacts", read_only=True)
def search_contacts(
    ctx: ToolContext,
    *,
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            description="Words to find in names, e-mail, phone, company, city or tags",
        ),
    ],
    include_archived: Annotated[bool, Field(description="Search archived contacts too")] = False,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[ContactSummary]:
    """Find contacts by free text, best matches first: an exact e-mail address first, then names
    that start with the query, then any contact where every word appears somewhere. Use the ids
    it returns with getContact and the other contact tools."""
    if not query.strip():
        from apps.contacts.errors import InvalidContact

        raise InvalidContact("query: give at least one word to search for.", details={"query": ["empty"]})
    rows = selectors.contact_search(actor=ctx.actor, query=query, include_deleted=include_archived)
    return paginate(
        rows.select_related("owner", "organisation"), limit=limit, offset=offset, item=ContactSummary.of
    )


# --- reading more about a contact ---------------------------------------------------------------


@tool(
    "getContactHealth",
    permission=ContactsPerm.VIEW,
    title="Get a contact's relationship health",
    read_only=True,
)
def get_contact_health(ctx: ToolContext, *, contact_id: ContactId) -> HealthOut:
    """Tell how healthy the relationship with a contact is: healthy, needs_attention, at_risk or
    cold, with a 0-100 score and what it is based on. A person's own judgement
    (updateContactHealth) wins; otherwise it comes from the time since the last interaction
    (up to 30 days healthy, 90 needs attention, 180 at risk, then cold)."""
    return health_of(selectors.contact_get(actor=ctx.actor, contact_id=contact_id))


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
    contact = selectors.contact_get(actor=ctx.actor, contact_id=contact_id, include_deleted=True)
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
    contact = selectors.contact_get(actor=ctx.actor, contact_id=contact_id, include_deleted=True)
    changes = contact.ownership_changes.select_related("previous_owner", "new_owner", "changed_by")
    return OwnershipHistoryOut(
        contact_id=contact.pk,
        owner=PersonRef.of(contact.owner),
        changes=[OwnershipOut.of(change) for change in changes[:200]],
    )


class CountryOut(Out):
    alpha2: str = Field(description="ISO 3166-1 alpha-2: what contacts store")
    alpha3: str
    numeric: str
    name: str
    official_name: str
    calling_code: int | None = Field(description="International dialling code, e.g. 44")
    flag: str


class CountriesOut(Out):
    query: str
    matches: list[CountryOut]


@tool("lookupCountry", permission=ContactsPerm.VIEW, title="Look up a country", read_only=True)
def lookup_country(
    ctx: ToolContext,
    *,
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=100,
            description="A name (Germany), a code (DE, DEU, 276) or a calling code (+49)",
        ),
    ],
    limit: Annotated[int, Field(ge=1, le=50, description="How many matches to return (1-50)")] = 10,
) -> CountriesOut:
    """Find countries by name, ISO code or international calling code, with their ISO 3166
    codes, official name, calling code and flag. Contacts store the alpha-2 code; use this to
    turn what a user says into the code, or to know a phone number's country."""
    from apps.contacts import countries

    found = countries.search(query, limit=limit)
    return CountriesOut(query=query, matches=[CountryOut.model_validate(country) for country in found])


# --- searching, querying ------------------------------------------------------------------------


class ContactFilter(In):
    field: str = Field(
        max_length=80,
        description="A field: kind, firstName, lastName, organisationName, email, phone, mobile, jobTitle, "
        "company, organisationId, website, street, city, region, postalCode, country, birthday, notes, tags, "
        "lifecycleStage, source, ownerEmail, visibility, health, lastContactedAt, createdAt, updatedAt, "
        "archived, or data.<key> for a business field",
    )
    op: Literal[
        "eq", "ne", "contains", "startsWith", "in", "gt", "gte", "lt", "lte", "isEmpty", "isNotEmpty"
    ] = Field(description="How to compare; text compares without case")
    value: str | int | float | bool | list[str | int | float] | None = Field(
        None, description="What to compare with (a list for `in`; none for isEmpty / isNotEmpty)"
    )


@tool("queryContacts", permission=ContactsPerm.VIEW, title="Query contacts by conditions", read_only=True)
def query_contacts(
    ctx: ToolContext,
    *,
    filters: Annotated[
        list[ContactFilter],
        Field(min_length=1, max_length=20, description="Conditions on the contacts' fields"),
    ],
    match: Annotated[
        Literal["all", "any"], Field(description="all conditions (default) or any of them")
    ] = "all",
    sort: Annotated[
        Sort, Field(description="Order: name, created or updated; a leading - reverses")
    ] = "name",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[ContactSummary]:
    """Find contacts by conditions on any field, including the workspace's business fields
    (data.<key>): for example customers in Berlin not contacted since 2025-01-01, or everyone
    tagged vip whose health is at_risk. Archived contacts are left out unless a condition on
    `archived` asks for them."""
    from apps.contacts import query

    rows = selectors.with_health(selectors.contact_visible(actor=ctx.actor, include_deleted=True))
    if not any(item.field == "archived" for item in filters):
        rows = rows.filter(deleted_at__isnull=True)
    rows = query.apply(rows, filters, match).select_related("owner", "organisation")
    return paginate(rows.order_by(*SORTS[sort]), limit=limit, offset=offset, item=ContactSummary.of)


# --- changing contacts --------------------------------------------------------------------------


@tool(
    "updateContactHealth",
    permission=ContactsPerm.EDIT,
    title="Set a contact's relationship health",
    idempotent=True,
)
def update_contact_health(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    status: Annotated[
        Literal["healthy", "needs_attention", "at_risk", "cold"] | None, Field(description="Your judgement")
    ] = None,
    score: Annotated[int | None, Field(ge=0, le=100, description="0-100")] = None,
    note: Annotated[str | None, Field(max_length=500, description="Why, for the next person")] = None,
    reset: Annotated[
        bool, Field(description="Forget the judgement and go back to the health from activity")
    ] = False,
) -> HealthOut:
    """Record a person's judgement of the relationship with a contact (status, score, note), which
    then wins over the health computed from activity; or reset it. Kept in the history."""
    contact = selectors.contact_get(actor=ctx.actor, contact_id=contact_id)
    contact = services.contact_set_health(
        actor=ctx.actor, contact=contact, status=status, score=score, note=note, reset=reset
    )
    return health_of(contact)


class KeyContactIn(In):
    contact_id: EntityId = Field(description="A person contact")
    role: Annotated[str, Field(max_length=100)] = Field(
        "", description="Their role there, e.g. decision maker"
    )


class KeyContactsOut(Out):
    organisation: ContactRef
    key_contacts: list[KeyContactOut]


@tool(
    "updateKeyContacts",
    permission=ContactsPerm.EDIT,
    title="Set an organisation's key contacts",
    idempotent=True,
)
def update_key_contacts(
    ctx: ToolContext,
    *,
    contact_id: Annotated[int, Field(ge=1, description="The organisation contact")],
    key_contacts: Annotated[
        list[KeyContactIn],
        Field(max_length=25, description="The whole list, most important first; [] clears it"),
    ],
) -> KeyContactsOut:
    """Set who the key people of an organisation are, in order, with their role there (decision
    maker, billing, technical...). The list replaces the previous one."""
    organisation = selectors.contact_get(actor=ctx.actor, contact_id=contact_id)
    services.key_contacts_set(
        actor=ctx.actor,
        organisation=organisation,
        entries=[(key.contact_id, key.role) for key in key_contacts],
    )
    keys = organisation.key_contacts.select_related("person")
    return KeyContactsOut(
        organisation=ContactRef.of(organisation), key_contacts=[KeyContactOut.of(k) for k in keys]
    )


@tool(
    "updateConflictResolution",
    permission=ContactsPerm.EDIT,
    title="Decide on a possible duplicate",
    idempotent=True,
)
def update_conflict_resolution(
    ctx: ToolContext,
    *,
    conflict_id: Annotated[
        int, Field(ge=1, description="The possible duplicate's id (getContact lists them)")
    ],
    resolution: Annotated[
        Literal["keep_both", "dismissed", "reopen"],
        Field(description="keep_both: they are different; dismissed: ignore it; reopen: decide again later"),
    ],
    note: Annotated[str, Field(max_length=500, description="Why, for the next person")] = "",
) -> ConflictOut:
    """Decide on a possible duplicate that createContact or updateContact found: keep both
    (they are different, and will not be flagged again), dismiss it, or reopen it. To merge
    them instead, call mergeContacts, which resolves it."""
    conflict = selectors.conflict_get(actor=ctx.actor, conflict_id=conflict_id)
    return ConflictOut.of(
        services.conflict_resolve(actor=ctx.actor, conflict=conflict, resolution=resolution, note=note)
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

    primary = selectors.contact_get(actor=ctx.actor, contact_id=primary_id)
    duplicates = selectors.contacts_get_many(actor=ctx.actor, contact_ids=duplicate_ids)
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
    contact = selectors.contact_get(actor=ctx.actor, contact_id=contact_id, include_deleted=True)
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
    contact = selectors.contact_get(actor=ctx.actor, contact_id=contact_id)
    person = services.person_by_email(person_email)
    contact = services.contact_share(actor=ctx.actor, contact=contact, person=person, access=access)
    shares = contact.shares.select_related("user").order_by("user__email")
    return SharingOut(
        contact_id=contact.pk,
        visibility=contact.visibility,
        owner=PersonRef.of(contact.owner),
        shared_with=ShareOut.many(shares),
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
    from_user = services.person_by_email(from_email)
    to_user = services.person_by_email(to_email)
    moved = services.contacts_transfer(
        actor=ctx.actor,
        from_user=from_user,
        to_user=to_user,
        contact_ids=contact_ids,
        include_people=include_people,
        reason=reason,
    )
    return TransferOut(
        from_owner=PersonRef.of(from_user),  # type: ignore[arg-type]
        to_owner=PersonRef.of(to_user),  # type: ignore[arg-type]
        count=len(moved),
        transferred=[ContactRef.of(contact) for contact in moved[:500]],
    )


class CreditCheckOut(Out):
    contact_id: int
    provider: str
    reference: str = Field(description="The bureau's reference of the report")
    purpose: str
    score: int | None
    band: str
    summary: str
    checked_at: datetime


@tool(
    "getContactCreditCheck",
    permission=ContactsPerm.CREDIT_CHECK,
    title="Run a credit check on a contact",
    markers=Marker.GATED,
    open_world=True,
)
def get_contact_credit_check(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    purpose: Annotated[
        Literal["credit_application", "account_opening", "contract", "debt_collection"],
        Field(description="Why the check is needed; bureaus only answer for a lawful purpose"),
    ],
) -> CreditCheckOut:
    """Ask the workspace's credit bureau for a credit report on a contact (a person or an
    organisation): score, band and summary. It is a paid request about a person's finances,
    so the user confirms each one; the answer is kept on the contact and in its history."""
    contact = selectors.contact_get(actor=ctx.actor, contact_id=contact_id)
    check = services.credit_check_run(actor=ctx.actor, contact=contact, purpose=purpose)
    return CreditCheckOut(
        contact_id=contact.pk,
        provider=check.provider,
        reference=check.reference,
        purpose=check.purpose,
        score=check.score,
        band=check.band,
        summary=check.summary,
        checked_at=check.checked_at,
    )


# --- items of other areas: documents, files, events, e-mails --------------------------------------

AREA_OF_KIND = {"document": ("documents", "Documents"), "file": ("files", "Files")}


class LinkOut(Out):
    kind: str = Field(description="document or file")
    id: int
    title: str
    available: bool = Field(description="False when the item was removed or you may no longer read it")
    url: str
    mime_type: str
    size: int | None
    linked_at: datetime
    linked_by: PersonRef | None


def _require_target(kind: str) -> Any:
    target = links.link_target(kind)
    if target is None:
        _area, title = AREA_OF_KIND[kind]
        raise AreaNotInstalled(
            f"{title} are not available in this workspace (the {title} area is not installed), so no "
            f"{kind} can be linked or listed. Tell the user; do not retry."
        )
    return target


def _resolved(actor: Any, contact: Contact, kind: str) -> list[LinkOut]:
    target = _require_target(kind)
    rows = list(ContactLink.objects.filter(contact=contact, kind=kind).select_related("linked_by")[:500])
    found = target.resolve(actor=actor, target_ids=[row.target_id for row in rows]) if rows else {}
    return [
        LinkOut(
            kind=kind,
            id=row.target_id,
            title=found[row.target_id].title if row.target_id in found else row.title,
            available=row.target_id in found,
            url=found[row.target_id].url if row.target_id in found else "",
            mime_type=found[row.target_id].mime_type if row.target_id in found else "",
            size=found[row.target_id].size if row.target_id in found else None,
            linked_at=row.linked_at,
            linked_by=PersonRef.of(row.linked_by),
        )
        for row in rows
    ]


class LinkResultOut(Out):
    contact_id: int
    kind: str
    id: int
    title: str
    linked: bool = Field(description="Whether the item is linked now")
    changed: bool = Field(description="False when it already was (or was not) linked")


def _link(ctx: ToolContext, kind: str, contact_id: int, target_id: int, remove: bool) -> LinkResultOut:
    target = _require_target(kind)
    contact = selectors.contact_get(actor=ctx.actor, contact_id=contact_id)
    item = target.resolve(actor=ctx.actor, target_ids=[target_id]).get(target_id)
    if item is None and not remove:
        raise NotFound(f"{kind.capitalize()} {target_id} was not found, or you may not see it.")
    title = item.title if item else ""
    changed = services.contact_link(
        actor=ctx.actor, contact=contact, kind=kind, target_id=target_id, title=title, remove=remove
    )
    return LinkResultOut(
        contact_id=contact.pk, kind=kind, id=target_id, title=title, linked=not remove, changed=changed
    )


@tool(
    "linkDocumentToContact",
    permission=ContactsPerm.EDIT,
    title="Link a document to a contact",
    idempotent=True,
)
def link_document_to_contact(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    document_id: Annotated[int, Field(ge=1, description="The document's id in the Documents area")],
    remove: Annotated[bool, Field(description="Unlink it instead")] = False,
) -> LinkResultOut:
    """Link a document (a contract, a proposal, meeting notes) to a contact, so it shows in
    getContactAttachments; or unlink it. Needs the Documents area."""
    return _link(ctx, "document", contact_id, document_id, remove)


@tool("linkFileToContact", permission=ContactsPerm.EDIT, title="Link a file to a contact", idempotent=True)
def link_file_to_contact(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    file_id: Annotated[int, Field(ge=1, description="The file's id in the Files area")],
    remove: Annotated[bool, Field(description="Unlink it instead")] = False,
) -> LinkResultOut:
    """Link a stored file (a scan, a photo, a spreadsheet) to a contact, so it shows in
    listContactFiles and getContactAttachments; or unlink it. Needs the Files area."""
    return _link(ctx, "file", contact_id, file_id, remove)


@tool("listContactFiles", permission=ContactsPerm.VIEW, title="List a contact's files", read_only=True)
def list_contact_files(
    ctx: ToolContext, *, contact_id: ContactId, limit: Limit = 25, offset: Offset = 0
) -> Page[LinkOut]:
    """The files linked to a contact, newest link first, with their current name, type and size
    (or `available: false` if a file was removed or you may no longer read it). Needs the Files area."""
    contact = selectors.contact_get(actor=ctx.actor, contact_id=contact_id)
    files = _resolved(ctx.actor, contact, "file")
    return page_of(files[offset : offset + limit], total=len(files), limit=limit, offset=offset)


class AttachmentsOut(Out):
    contact_id: int
    documents: list[LinkOut]
    files: list[LinkOut]
    unavailable_areas: list[str] = Field(description="Areas not installed here, whose items cannot be shown")


@tool(
    "getContactAttachments",
    permission=ContactsPerm.VIEW,
    title="Get a contact's documents and files",
    read_only=True,
)
def get_contact_attachments(ctx: ToolContext, *, contact_id: ContactId) -> AttachmentsOut:
    """Everything linked to a contact: its documents and its files, each with its current title
    and whether it can still be read. Areas that are not installed are named in
    `unavailableAreas`."""
    contact = selectors.contact_get(actor=ctx.actor, contact_id=contact_id)
    sections: dict[str, list[LinkOut]] = {"document": [], "file": []}
    missing = []
    for kind in sections:
        if links.link_target(kind) is None:
            missing.append(AREA_OF_KIND[kind][0])
        else:
            sections[kind] = _resolved(ctx.actor, contact, kind)
    if len(missing) == len(sections):
        raise AreaNotInstalled(
            "Neither the Documents nor the Files area is installed in this workspace, so a contact has "
            "no attachments to show. Tell the user; do not retry."
        )
    return AttachmentsOut(
        contact_id=contact.pk,
        documents=sections["document"],
        files=sections["file"],
        unavailable_areas=missing,
    )


Days = Annotated[int, Field(ge=1, le=365, description="How far ahead to look, in days")]
HowManyEvents = Annotated[int, Field(ge=1, le=100, description="How many events at most")]


class UpcomingEventOut(Out):
    id: int
    title: str
    starts_at: datetime
    ends_at: datetime | None
    location: str
    url: str
    area: str


class UpcomingEventsOut(Out):
    contact_id: int
    start: datetime
    end: datetime
    events: list[UpcomingEventOut]


def _upcoming(actor: Any, contact: Contact, days: int, limit: int) -> UpcomingEventsOut:
    start = timezone.now()
    end = start + timedelta(days=days)
    found = links.upcoming_events(actor=actor, contacts=[contact], start=start, end=end, limit=limit)
    return UpcomingEventsOut(
        contact_id=contact.pk,
        start=start,
        end=end,
        events=[UpcomingEventOut.model_validate(event) for event in found],
    )


@tool(
    "getContactUpcomingEvents",
    permission=ContactsPerm.VIEW,
    title="Get a contact's upcoming events",
    read_only=True,
)
def get_contact_upcoming_events(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    days: Days = 30,
    limit: HowManyEvents = 20,
) -> UpcomingEventsOut:
    """The calendar events coming up in which the contact takes part, soonest first, within the
    next `days`. Needs the Calendars area."""
    contact = selectors.contact_get(actor=ctx.actor, contact_id=contact_id)
    return _upcoming(ctx.actor, contact, days, limit)


class EmailOut(Out):
    id: int
    subject: str
    sender: str
    recipients: list[str]
    sent_at: datetime
    snippet: str
    url: str
    area: str


@tool(
    "searchContactEmails", permission=ContactsPerm.VIEW, title="Search e-mails with a contact", read_only=True
)
def search_contact_emails(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    query: Annotated[
        str, Field(max_length=200, description="Words to look for; empty lists every e-mail")
    ] = "",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[EmailOut]:
    """Search the workspace's e-mails sent to or received from a contact's addresses, newest
    first, that you may read. Needs a mailbox area (Email Inbox) and an e-mail address on the
    contact."""
    contact = selectors.contact_get(actor=ctx.actor, contact_id=contact_id)
    links.mailboxes()
    if not contact.addresses:
        raise ValidationFailed(
            f"Contact {contact.pk} has no e-mail address, so no e-mails can be matched to it. Add one with "
            "updateContact first.",
            details={"contact_id": ["no e-mail address"]},
        )
    page = links.search_messages(
        actor=ctx.actor, addresses=contact.addresses, query=query, limit=limit, offset=offset
    )
    items = [EmailOut.model_validate(message) for message in page.items]
    return page_of(items, total=page.total, limit=limit, offset=offset)


class Section(Out):
    available: bool
    reason: str = Field(description="Why it is not available, if it is not")


class AttachmentsSection(Section):
    documents: list[LinkOut]
    files: list[LinkOut]


class EventsSection(Section):
    events: list[UpcomingEventOut]


class ExaminedContactOut(Out):
    contact: ContactOut
    health: HealthOut
    recent_history: list[EventOut] = Field(description="The last 10 events")
    ownership: list[OwnershipOut] = Field(description="The last 5 changes of owner")
    people: list[ContactSummary] = Field(description="Organisations: their people (first 25)")
    attachments: AttachmentsSection
    upcoming_events: EventsSection
    last_credit_check: CreditCheckOut | None = Field(
        description="Only for people allowed to run credit checks"
    )


@tool("examineContact", permission=ContactsPerm.VIEW, title="Examine a contact in depth", read_only=True)
def examine_contact(ctx: ToolContext, *, contact_id: ContactId) -> ExaminedContactOut:
    """Everything about a contact in one answer, to prepare a call or a meeting: all its fields,
    relationship health, the last events of its history, recent owner changes, an
    organisation's people and key contacts, linked documents and files, upcoming events and the
    last credit check. Parts whose area is not installed say so instead of failing."""
    actor = ctx.actor
    contact = selectors.contact_get(actor=actor, contact_id=contact_id, include_deleted=True)
    events = ContactEvent.objects.filter(contact=contact).select_related("actor")[:10]
    owners = contact.ownership_changes.select_related("previous_owner", "new_owner", "changed_by")[:5]
    people = (
        selectors.contact_visible(actor=actor)
        .filter(organisation=contact)
        .select_related("owner", "organisation")[:25]
        if contact.kind == Contact.Kind.ORGANISATION
        else []
    )
    try:
        attachments = get_contact_attachments(ctx, contact_id=contact.pk) if not contact.is_deleted else None
        attached = AttachmentsSection(
            available=attachments is not None,
            reason="" if attachments is not None else "the contact is archived",
            documents=attachments.documents if attachments else [],
            files=attachments.files if attachments else [],
        )
    except AreaNotInstalled as error:
        attached = AttachmentsSection(available=False, reason=str(error.message), documents=[], files=[])
    try:
        upcoming = _upcoming(actor, contact, 30, 10)
        events_section = EventsSection(available=True, reason="", events=upcoming.events)
    except AreaNotInstalled as error:
        events_section = EventsSection(available=False, reason=str(error.message), events=[])
    check = contact.credit_checks.first() if can(actor, ContactsPerm.CREDIT_CHECK) else None
    return ExaminedContactOut(
        contact=ContactOut.of(contact, actor),
        health=health_of(contact),
        recent_history=[EventOut.of(event) for event in events],
        ownership=[OwnershipOut.of(change) for change in owners],
        people=[ContactSummary.of(person) for person in people],
        attachments=attached,
        upcoming_events=events_section,
        last_credit_check=CreditCheckOut(
            contact_id=contact.pk,
            provider=check.provider,
            reference=check.reference,
            purpose=check.purpose,
            score=check.score,
            band=check.band,
            summary=check.summary,
            checked_at=check.checked_at,
        )
        if check
        else None,
    )
