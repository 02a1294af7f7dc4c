"""Items of other areas linked to a contact: documents, files, calendar events, e-mails."""

from typing import Annotated, Any

from pydantic import Field

from apps.catalogue.activity import Days, EmailOut, EmailQuery, HowManyEvents, carried, email_page, upcoming
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, page_of
from apps.contacts import errors, services
from apps.contacts.models import Contact
from apps.contacts.permissions import ContactsPerm
from apps.contacts.tools.common import ContactId, LinkOut, UpcomingEventsOut
from apps.core import kinds
from apps.core.errors import RecordNotFound
from apps.core.kinds import attachments, sources

# --- items of other areas: documents, files, events, e-mails --------------------------------------

AREA_TITLE = {"document": "Documents", "file": "Files"}


def _items(actor: Any, kind: str, ids: list[int]) -> dict[int, kinds.Item]:
    """The items of `kind` among `ids` that `actor` may see; AREA_NOT_AVAILABLE when their area
    is not installed."""
    found = kinds.describe(actor=actor, item_kind=kind, ids=ids)
    if found is None:
        title = AREA_TITLE[kind]
        raise errors.KindNotInstalled(title=title, kind=kind)
    return found


class LinkResultOut(Out):
    contact_id: int
    kind: str
    id: int
    title: str
    linked: bool
    changed: bool = Field(description="False: it already was so")


def _link(ctx: ToolContext, kind: str, contact_id: int, target_id: int, remove: bool) -> LinkResultOut:
    _items(ctx.actor, kind, [])  # an area that is not installed is said before anything else
    contact = Contact.objects.fetch(ctx.actor, contact_id)
    item = _items(ctx.actor, kind, [target_id]).get(target_id)
    if item is None and not remove:
        raise RecordNotFound(label=kind.capitalize(), id=target_id)
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
    document_id: Annotated[int, Field(ge=1, description="From listDocuments")],
    remove: Annotated[bool, Field(description="Unlink it instead")] = False,
) -> LinkResultOut:
    """Link a document to a contact, or unlink it. A file: linkFileToContact."""
    return _link(ctx, "document", contact_id, document_id, remove)


@tool("linkFileToContact", permission=ContactsPerm.EDIT, title="Link a file to a contact", idempotent=True)
def link_file_to_contact(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    file_id: Annotated[int, Field(ge=1, description="From listFiles")],
    remove: Annotated[bool, Field(description="Unlink it instead")] = False,
) -> LinkResultOut:
    """Link a stored file to a contact, or unlink it. A new file: saveFileToContact."""
    return _link(ctx, "file", contact_id, file_id, remove)


@tool("listContactFiles", permission=ContactsPerm.VIEW, title="List a contact's files", read_only=True)
def list_contact_files(
    ctx: ToolContext, *, contact_id: ContactId, limit: Limit = 25, offset: Offset = 0
) -> Page[LinkOut]:
    """List the files linked to a contact, newest first. Its documents too: getContactAttachments."""
    contact = Contact.objects.fetch(ctx.actor, contact_id)
    _items(ctx.actor, "file", [])  # an area that is not installed is said as the link tools say it
    linked = attachments.attachments_of(actor=ctx.actor, record=contact, item_kinds=("file",))
    files = [LinkOut.of_record(item) for item in linked]
    return page_of(files[offset : offset + limit], total=len(files), limit=limit, offset=offset)


class AttachmentsOut(Out):
    contact_id: int
    documents: list[LinkOut]
    files: list[LinkOut]
    unavailable_areas: list[str] = Field(description="Not installed here")


@tool(
    "getContactAttachments",
    permission=ContactsPerm.VIEW,
    title="Get a contact's documents and files",
    read_only=True,
)
def get_contact_attachments(ctx: ToolContext, *, contact_id: ContactId) -> AttachmentsOut:
    """Get the documents and files linked to a contact. Files, paged: listContactFiles."""
    contact = Contact.objects.fetch(ctx.actor, contact_id)
    found = carried(actor=ctx.actor, record=contact)
    if set(found.unavailable_areas) == {"documents", "files"}:
        raise errors.NoAttachmentAreas()
    return AttachmentsOut(
        contact_id=contact.pk,
        documents=[LinkOut.of_record(item) for item in found.documents],
        files=[LinkOut.of_record(item) for item in found.files],
        unavailable_areas=found.unavailable_areas,
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
    """List the calendar events coming up with a contact, soonest first."""
    contact = Contact.objects.fetch(ctx.actor, contact_id)
    found = upcoming(actor=ctx.actor, contacts=[contact], days=days, limit=limit)
    return UpcomingEventsOut.of_record(found, contact_id=contact.pk)


@tool(
    "searchContactEmails", permission=ContactsPerm.VIEW, title="Search e-mails with a contact", read_only=True
)
def search_contact_emails(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    query: EmailQuery = "",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[EmailOut]:
    """Search the e-mails to or from a contact, newest first."""
    contact = Contact.objects.fetch(ctx.actor, contact_id)
    sources.mailboxes()
    if not contact.addresses:
        raise errors.NoAddressToMatch(contact=contact.pk, details={"contact_id": ["no e-mail address"]})
    return email_page(actor=ctx.actor, addresses=contact.addresses, query=query, limit=limit, offset=offset)
