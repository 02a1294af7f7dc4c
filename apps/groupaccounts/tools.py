"""The Group Accounts area of the catalogue (SPEC 4.7): organisations with their contacts, the
events and e-mails of those contacts, and the workspace's own usage."""

from datetime import datetime
from typing import Annotated, Any, Literal

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.activity import (
    AttachedItemOut,
    Days,
    EmailOut,
    EmailQuery,
    EventsSection,
    HowManyEvents,
    Section,
    UpcomingEventOut,
    carried,
    email_page,
    events_section,
    upcoming,
)
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Changes, EntityId, Limit, Offset, Out, Page, Tags, id_field, paginate
from apps.contacts import api as contacts_api
from apps.contacts.api import ContactLinkResultOut, ContactSummary, health_status
from apps.core import search, workspaces
from apps.core.errors import AreaNotAvailable, invalid
from apps.core.kinds import attachments, sources
from apps.core.records import Action
from apps.core.recurrence import workspace_zone
from apps.groupaccounts import billing, selectors, services
from apps.groupaccounts.models import GroupAccount
from apps.groupaccounts.permissions import GroupAccountsPerm
from apps.groupaccounts.shapes import GroupAccountOut, GroupAccountSummary

AccountId = Annotated[int, id_field("searchGroupAccounts")]
ContactId = Annotated[int, id_field("searchContacts")]
Kind = Literal["customer", "prospect", "supplier", "partner", "other"]


def _account(ctx: ToolContext, account_id: int, action: Action = "view") -> GroupAccount:
    return GroupAccount.objects.select_related("owner", "organisation").fetch(ctx.actor, account_id, action)


class GroupAccountFields(Changes):
    name: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(None, description="Unique")
    kind: Kind | None = None
    description: Annotated[str, Field(max_length=10_000)] | None = None
    industry: Annotated[str, Field(max_length=100)] | None = None
    website: Annotated[str, Field(max_length=200)] | None = None
    email_domains: Annotated[list[Annotated[str, Field(max_length=253)]], Field(max_length=20)] | None = (
        Field(None, description="Of its people's e-mail, e.g. acme.example")
    )
    organisation_id: EntityId | None = Field(None, description="Its organisation contact")
    owner_email: Annotated[str, Field(max_length=254)] | None = Field(None, description="Who looks after it")
    tags: Tags | None = None


@tool("createGroupAccount", permission=GroupAccountsPerm.EDIT, title="Create a group account")
def create_group_account(
    ctx: ToolContext,
    *,
    account: Annotated[GroupAccountFields, Field(description="name is required")],
) -> GroupAccountOut:
    """Create a group account: an organisation dealt with as a whole. Its people:
    linkContactToGroupAccount."""
    created = services.account_create(actor=ctx.actor, fields=account.given())
    return GroupAccountOut.of(created, ctx.actor)


class UpdatedGroupAccountOut(Out):
    account: GroupAccountOut
    changed: list[str]


@tool(
    "updateGroupAccount", permission=GroupAccountsPerm.EDIT, title="Update a group account", idempotent=True
)
def update_group_account(
    ctx: ToolContext,
    *,
    group_account_id: AccountId,
    changes: Annotated[GroupAccountFields, Field(description="Only the fields to change; null clears one")],
) -> UpdatedGroupAccountOut:
    """Change some fields of a group account; the rest stay as they are."""
    account = _account(ctx, group_account_id, "change")
    changed = services.account_update(actor=ctx.actor, account=account, fields=changes.given(required=True))
    return UpdatedGroupAccountOut(account=GroupAccountOut.of(account, ctx.actor), changed=changed)


class DeletedGroupAccountOut(Out):
    id: int
    name: str
    archived_at: datetime = Field(description="Restorable on the Group accounts page")


@tool(
    "deleteGroupAccount",
    permission=GroupAccountsPerm.DELETE,
    title="Delete a group account",
    markers=Marker.DESTRUCTIVE,
)
def delete_group_account(ctx: ToolContext, *, group_account_id: AccountId) -> DeletedGroupAccountOut:
    """Archive a group account (soft delete); its contacts stay. restoreGroupAccount brings it back."""
    account = services.account_delete(actor=ctx.actor, account=_account(ctx, group_account_id, "delete"))
    return DeletedGroupAccountOut.of_record(account, archived_at=account.deleted_at)


@tool(
    "restoreGroupAccount",
    permission=GroupAccountsPerm.DELETE,
    title="Restore a group account",
    idempotent=True,
)
def restore_group_account(ctx: ToolContext, *, group_account_id: AccountId) -> GroupAccountOut:
    """Bring an archived group account back with its contacts, unless a live one has taken its name."""
    account = GroupAccount.objects.fetch(ctx.actor, group_account_id, "delete", trash=True)
    return GroupAccountOut.of(services.account_restore(actor=ctx.actor, account=account), ctx.actor)


@tool("getGroupAccount", permission=GroupAccountsPerm.VIEW, title="Get a group account", read_only=True)
def get_group_account(ctx: ToolContext, *, group_account_id: AccountId) -> GroupAccountOut:
    """Get a group account with its linked contacts. With events, e-mails and health: examineGroupAccount."""
    return GroupAccountOut.of(_account(ctx, group_account_id), ctx.actor)


@tool("listGroupAccounts", permission=GroupAccountsPerm.VIEW, title="List group accounts", read_only=True)
def list_group_accounts(
    ctx: ToolContext,
    *,
    kind: Annotated[Kind | None, Field(description="Only this kind")] = None,
    tag: Annotated[str | None, Field(max_length=50, description="Only with this tag")] = None,
    owner_email: Annotated[
        str | None, Field(max_length=254, description="Only those they look after")
    ] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[GroupAccountSummary]:
    """List group accounts by name, with simple filters. By words: searchGroupAccounts."""
    rows: QuerySet[GroupAccount] = GroupAccount.objects.restrict(ctx.actor).select_related(
        "owner", "organisation"
    )
    if kind:
        rows = rows.filter(kind=kind)
    rows = selectors.with_counts(ctx.actor, search.narrowed(rows, tag=tag, owner_email=owner_email))
    return paginate(rows.order_by("name", "id"), limit=limit, offset=offset, item=GroupAccountSummary.of)


@tool("searchGroupAccounts", permission=GroupAccountsPerm.VIEW, title="Search group accounts", read_only=True)
def search_group_accounts(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(min_length=1, max_length=200, description="Words to find")],
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[GroupAccountSummary]:
    """Find group accounts by words in their fields or their contacts' names. Filters: listGroupAccounts."""
    rows = selectors.searched(ctx.actor, GroupAccount.objects.restrict(ctx.actor), query)
    rows = selectors.with_counts(ctx.actor, rows.select_related("owner", "organisation"))
    return paginate(rows.order_by("name", "id"), limit=limit, offset=offset, item=GroupAccountSummary.of)


@tool(
    "linkContactToGroupAccount",
    permission=GroupAccountsPerm.EDIT,
    title="Link a contact to a group account",
    idempotent=True,
)
def link_contact_to_group_account(
    ctx: ToolContext,
    *,
    group_account_id: AccountId,
    contact_id: ContactId,
    role: Annotated[str, Field(max_length=100, description="e.g. buyer, billing")] = "",
) -> ContactLinkResultOut:
    """Link a contact to a group account, with a role (again: changes it); their events count as its."""
    return contacts_api.change(ctx.actor, GroupAccount, group_account_id, contact_id=contact_id, role=role)


@tool(
    "unlinkContactFromGroupAccount",
    permission=GroupAccountsPerm.EDIT,
    title="Unlink a contact from a group account",
)
def unlink_contact_from_group_account(
    ctx: ToolContext, *, group_account_id: AccountId, contact_id: ContactId
) -> ContactLinkResultOut:
    """Remove a contact from a group account; the contact itself stays."""
    return contacts_api.change(ctx.actor, GroupAccount, group_account_id, contact_id=contact_id, remove=True)


# --- events and e-mails of the account's contacts -------------------------------------------------


class AccountEventsOut(Out):
    group_account_id: int
    start: datetime
    end: datetime
    events: list[UpcomingEventOut]


@tool(
    "getGroupAccountUpcomingEvents",
    permission=GroupAccountsPerm.VIEW,
    title="Get a group account's upcoming events",
    read_only=True,
)
def get_group_account_upcoming_events(
    ctx: ToolContext,
    *,
    group_account_id: AccountId,
    days: Days = 30,
    limit: HowManyEvents = 20,
) -> AccountEventsOut:
    """List the calendar events coming up with a group account's contacts, soonest first."""
    account = _account(ctx, group_account_id)
    contacts = selectors.contacts_of(ctx.actor, account)
    found = upcoming(actor=ctx.actor, contacts=contacts, days=days, limit=limit)
    return AccountEventsOut.of_record(found, group_account_id=account.pk)


@tool(
    "searchGroupAccountEmails",
    permission=GroupAccountsPerm.VIEW,
    title="Search e-mails with a group account",
    read_only=True,
)
def search_group_account_emails(
    ctx: ToolContext,
    *,
    group_account_id: AccountId,
    query: EmailQuery = "",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[EmailOut]:
    """Search the e-mails to or from a group account's contacts, newest first."""
    account = _account(ctx, group_account_id)
    sources.mailboxes()
    addresses = selectors.addresses_of(selectors.contacts_of(ctx.actor, account))
    if not addresses:
        raise invalid(
            "group_account_id",
            _(
                "group account {account} has no contact with an e-mail address; link one with "
                "linkContactToGroupAccount first"
            ),
            account=account.pk,
        )
    return email_page(actor=ctx.actor, addresses=addresses, query=query, limit=limit, offset=offset)


# --- documents and files --------------------------------------------------------------------------

ItemId = Annotated[int, Field(ge=1, le=2**63 - 1)]


class AttachResultOut(Out):
    group_account_id: int
    kind: str
    id: int
    title: str
    attached: bool
    changed: bool = Field(description="False: it already was so")


def _attach(ctx: ToolContext, kind: str, account_id: int, item_id: int, remove: bool) -> AttachResultOut:
    _account, item, changed = attachments.attach(
        actor=ctx.actor,
        item_kind=kind,
        item_id=item_id,
        entity_type="group_account",
        entity_id=account_id,
        remove=remove,
    )
    return AttachResultOut(
        group_account_id=account_id,
        kind=kind,
        id=item_id,
        title=item.title if item else "",
        attached=not remove,
        changed=changed,
    )


@tool(
    "linkDocumentToGroupAccount",
    permission=GroupAccountsPerm.EDIT,
    title="Link a document to a group account",
    idempotent=True,
)
def link_document_to_group_account(
    ctx: ToolContext,
    *,
    group_account_id: AccountId,
    document_id: Annotated[ItemId, Field(description="From listDocuments")],
    remove: Annotated[bool, Field(description="Unlink it instead")] = False,
) -> AttachResultOut:
    """Link a document to a group account, or unlink it. A file: linkFileToGroupAccount."""
    return _attach(ctx, "document", group_account_id, document_id, remove)


@tool(
    "linkFileToGroupAccount",
    permission=GroupAccountsPerm.EDIT,
    title="Link a file to a group account",
    idempotent=True,
)
def link_file_to_group_account(
    ctx: ToolContext,
    *,
    group_account_id: AccountId,
    file_id: Annotated[ItemId, Field(description="From listFiles")],
    remove: Annotated[bool, Field(description="Unlink it instead")] = False,
) -> AttachResultOut:
    """Link a stored file to a group account, or unlink it. A document: linkDocumentToGroupAccount."""
    return _attach(ctx, "file", group_account_id, file_id, remove)


class AttachmentsOut(Out):
    group_account_id: int
    documents: list[AttachedItemOut]
    files: list[AttachedItemOut]
    unavailable_areas: list[str] = Field(description="Not installed here")


def _attachments(actor: Any, account: Any) -> AttachmentsOut:
    return AttachmentsOut.of_record(carried(actor=actor, record=account), group_account_id=account.pk)


@tool(
    "getGroupAccountAttachments",
    permission=GroupAccountsPerm.VIEW,
    title="Get a group account's documents and files",
    read_only=True,
)
def get_group_account_attachments(ctx: ToolContext, *, group_account_id: AccountId) -> AttachmentsOut:
    """Get the documents and files linked to a group account, newest first."""
    account = _account(ctx, group_account_id)
    return _attachments(ctx.actor, account)


# --- examineGroupAccount --------------------------------------------------------------------------


class EmailsSection(Section):
    total: int
    recent: list[EmailOut]


class PersonHealth(Out):
    contact: ContactSummary
    role: str
    health: str


class ExaminedGroupAccountOut(Out):
    account: GroupAccountOut
    people: list[PersonHealth]
    health: str = Field(description="The weakest; none: no contacts")
    upcoming_events: EventsSection
    recent_emails: EmailsSection
    attachments: AttachmentsOut


HEALTH_ORDER = ["cold", "at_risk", "needs_attention", "healthy"]


@tool(
    "examineGroupAccount", permission=GroupAccountsPerm.VIEW, title="Examine a group account", read_only=True
)
def examine_group_account(ctx: ToolContext, *, group_account_id: AccountId) -> ExaminedGroupAccountOut:
    """Get everything about a group account in one answer: contacts' health, events, e-mails, files."""
    actor = ctx.actor
    account = _account(ctx, group_account_id)
    rows = list(contacts_api.visible(actor, account.contact_links))
    people = [
        PersonHealth(contact=ContactSummary.of(row.contact), role=row.role, health=health_status(row.contact))
        for row in rows
    ]
    worst = min((p.health for p in people), key=HEALTH_ORDER.index, default="none")
    contacts = selectors.contacts_of(actor, account)
    events = events_section(actor=actor, contacts=contacts)
    addresses = selectors.addresses_of(contacts)
    try:
        sources.mailboxes()
        page = (
            email_page(actor=actor, addresses=addresses, query="", limit=5, offset=0) if addresses else None
        )
        emails = EmailsSection(
            available=True,
            reason="" if addresses else "no contact of the account has an e-mail address",
            total=page.total if page else 0,
            recent=page.items if page else [],
        )
    except AreaNotAvailable as error:
        emails = EmailsSection(available=False, reason=str(error.message), total=0, recent=[])
    return ExaminedGroupAccountOut(
        account=GroupAccountOut.of(account, actor),
        people=people,
        health=worst,
        upcoming_events=events,
        recent_emails=emails,
        attachments=_attachments(actor, account),
    )


# --- getMyBillingOverview -------------------------------------------------------------------------


class Money(Out):
    micro_usd: int
    usd: str = Field(description="e.g. 12.34")

    @classmethod
    def of(cls, micro_usd: int) -> "Money":
        return cls(micro_usd=micro_usd, usd=f"{micro_usd / 1_000_000:.2f}")


class SpendOut(Out):
    today: Money
    this_month: Money
    total: Money
    reserved: Money = Field(description="Held for agent turns still running")
    active_keys: int


class ToolCount(Out):
    tool: str
    calls: int


class ToolUseOut(Out):
    today: int
    this_month: int
    refused_or_failed_this_month: int
    top_tools_this_month: list[ToolCount]


class StorageOut(Out):
    available: bool
    reason: str
    bytes: int | None


class BillingOut(Out):
    workspace: str
    time_zone: str
    month_started_at: datetime
    ai_spend: SpendOut = Field(description="Through the workspace's API keys")
    your_ai_spend: SpendOut = Field(description="Through your keys")
    tool_calls: ToolUseOut
    storage: StorageOut
    records: dict[str, int] = Field(description="By kind")
    note: str


def _spend(summary: Any) -> SpendOut:
    return SpendOut(
        today=Money.of(summary.today_micro_usd),
        this_month=Money.of(summary.this_month_micro_usd),
        total=Money.of(summary.total_micro_usd),
        reserved=Money.of(summary.reserved_micro_usd),
        active_keys=summary.active_keys,
    )


@tool(
    "getMyBillingOverview",
    permission=GroupAccountsPerm.BILLING,
    title="The workspace's usage",
    read_only=True,
)
def get_my_billing_overview(ctx: ToolContext) -> BillingOut:
    """Get the workspace's metered usage: agent spend, tool calls, storage, records (not an invoice)."""
    now = timezone.now()
    use = billing.tool_use(now)
    stored = billing.storage_bytes()
    return BillingOut(
        workspace=workspaces.brand(""),
        time_zone=workspace_zone().key,
        month_started_at=billing.month_start(now),
        ai_spend=_spend(billing.spend()),
        your_ai_spend=_spend(billing.spend(ctx.actor)),
        tool_calls=ToolUseOut(
            today=use.today,
            this_month=use.this_month,
            refused_or_failed_this_month=use.failed_this_month,
            top_tools_this_month=[ToolCount(tool=name, calls=n) for name, n in use.by_tool],
        ),
        storage=StorageOut(
            available=stored is not None,
            reason="" if stored is not None else "the Files area is not installed in this workspace",
            bytes=stored,
        ),
        records=billing.record_counts(),
        note="Usage as this workspace meters it: API-key spend in micro-dollars (1 cent = 10,000), "
        "tool calls from the log of calls. Prices and invoices are not kept here.",
    )
