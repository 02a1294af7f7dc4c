"""The Documents area of the catalogue (SPEC 4.7): thin doors onto services and selectors."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.kit import folder_tool, share_tool
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import (
    FolderRef,
    Limit,
    Offset,
    Out,
    Page,
    PersonRef,
    SharingOut,
    id_field,
    paginate,
)
from apps.core import folders, search
from apps.core.errors import ValidationFailed
from apps.core.kinds import attachments
from apps.documents import selectors, services
from apps.documents.models import Document, DocumentFolder
from apps.documents.permissions import DocumentsPerm
from apps.files.models import Folder
from apps.files.shapes import FileOut

DocumentId = Annotated[int, id_field("listDocuments")]
Format = Annotated[
    Literal["markdown", "html", "text"],
    Field(description="How `content` is written: markdown (default), html, or plain text"),
]
Content = Annotated[
    str,
    Field(
        max_length=2_000_000, description="The body, written as `format` says (HTML is cleaned of scripts)"
    ),
]
Title = Annotated[str, Field(min_length=1, max_length=300, description="The document's title")]
FolderArg = Annotated[int | None, Field(ge=1, description="The document folder; null: the root")]


class DocumentSummary(Out):
    id: int
    title: str
    path: str = Field(description="Folders and title from the root")
    folder: FolderRef | None
    version: int = Field(description="The current version (1 when created, one more each update)")
    visibility: str
    owner: PersonRef | None
    updated_by: PersonRef | None
    excerpt: str = Field(description="The first words of its text")
    in_trash: bool
    created_at: datetime
    updated_at: datetime


class VersionOut(Out):
    number: int
    title: str
    note: str
    created_by: PersonRef | None
    created_at: datetime


class AttachmentOut(Out):
    kind: str
    id: int
    title: str
    available: bool


class DocumentOut(Out):
    document: DocumentSummary
    shown_version: int = Field(description="The version whose content is given")
    title: str
    content_html: str | None = Field(description="The body as sanitised HTML")
    content_text: str | None = Field(description="The body as plain text")
    versions: list[VersionOut] = Field(description="Every version, newest first (at most 100)")
    sharing: SharingOut
    attachments: list[AttachmentOut] = Field(description="Files attached to it (its PDF exports among them)")
    your_access: str = Field(description="admin, owner, edit or view")


@tool("createDocument", permission=DocumentsPerm.EDIT, title="Create a document")
def create_document(
    ctx: ToolContext,
    *,
    title: Title,
    content: Content = "",
    format: Format = "markdown",
    folder_id: FolderArg = None,
    visibility: Annotated[
        Literal["workspace", "private"],
        Field(description="workspace (default: everyone who may see documents) or private"),
    ] = "workspace",
) -> DocumentSummary:
    """Write a new rich-text document (a proposal, minutes, a policy) with a title and a body in
    Markdown (default), HTML or plain text, optionally in a folder (createDocumentFolder). It
    starts at version 1; updateDocument keeps every earlier version."""
    document = services.document_create(
        actor=ctx.actor,
        title=title,
        content=content,
        fmt=format,
        folder=folders.get(DocumentFolder, actor=ctx.actor, folder_id=folder_id),
        visibility=visibility,
    )
    return DocumentSummary.of_record(document)


folder_tool(
    "createDocumentFolder",
    model=DocumentFolder,
    permission=DocumentsPerm.EDIT,
    title="Create a document folder",
    description="Create a folder for documents, at the root or inside another document folder.",
)


@tool("getDocument", permission=DocumentsPerm.VIEW, title="Get a document", read_only=True)
def get_document(
    ctx: ToolContext,
    *,
    document_id: DocumentId,
    version: Annotated[
        int | None, Field(ge=1, description="An earlier version to read; default: the current")
    ] = None,
    format: Annotated[
        Literal["text", "html", "both"],
        Field(description="The body as text, sanitised HTML, or both (default)"),
    ] = "both",
) -> DocumentOut:
    """Read a document: its body (as text and/or HTML), its versions with who saved each and
    when, who it is shared with and the files attached to it. Pass `version` to read an earlier
    version."""
    document = Document.objects.select_related("folder", "owner", "updated_by").fetch(ctx.actor, document_id)
    shown: Any = selectors.version_get(document=document, number=version) if version else document
    attached = attachments.attachments_of(actor=ctx.actor, record=document, item_kinds=("file",))
    return DocumentOut(
        document=DocumentSummary.of_record(document),
        shown_version=version or document.version,
        title=shown.title,
        content_html=shown.body_html if format in {"html", "both"} else None,
        content_text=shown.body_text if format in {"text", "both"} else None,
        versions=[VersionOut.of_record(v) for v in document.versions.select_related("created_by")[:100]],
        sharing=SharingOut.of(document),
        attachments=[AttachmentOut.of_record(attachment) for attachment in attached],
        your_access=Document.access.level(ctx.actor, document),
    )


class DocumentListOut(Out):
    folder: FolderRef | None = Field(description="The folder listed; null: the root (or a search)")
    folders: list[FolderRef] = Field(description="Its sub-folders (empty for a search)")
    documents: Page[DocumentSummary]


@tool("listDocuments", permission=DocumentsPerm.VIEW, title="List documents", read_only=True)
def list_documents(
    ctx: ToolContext,
    *,
    folder_id: Annotated[int | None, Field(ge=1, description="The folder to list; default: the root")] = None,
    query: Annotated[
        str | None,
        Field(max_length=200, description="Find documents with these words in the title or text, anywhere"),
    ] = None,
    sort: Annotated[
        Literal["title", "-updated"], Field(description="By title (default) or most recently updated first")
    ] = "title",
    limit: Limit = 25,
    offset: Offset = 0,
) -> DocumentListOut:
    """List the documents of a folder (and its sub-folders), or search every document you may see
    by words in its title or text with `query`."""
    rows = Document.objects.restrict(ctx.actor).select_related("folder", "owner", "updated_by")
    folder = None
    inside: list[Any] = []
    if search.words(query):
        rows = search.matching(rows, query, ("title", "body_text"))
    else:
        folder = folders.get(DocumentFolder, actor=ctx.actor, folder_id=folder_id)
        rows = rows.filter(folder=folder)
        inside = list(DocumentFolder.objects.restrict(ctx.actor).filter(parent=folder)[:200])
    rows = rows.order_by(*(("title", "id") if sort == "title" else ("-updated_at", "-id")))
    return DocumentListOut(
        folder=FolderRef.of(folder),
        folders=[FolderRef.of(item) for item in inside],  # type: ignore[misc]
        documents=paginate(rows, limit=limit, offset=offset, item=DocumentSummary.of_record),
    )


class UpdatedDocumentOut(Out):
    document: DocumentSummary
    changed: bool = Field(description="False when nothing differed (no new version)")
    previous_version: int = Field(description="The version before this update (kept; getDocument reads it)")


@tool("updateDocument", permission=DocumentsPerm.EDIT, title="Update a document")
def update_document(
    ctx: ToolContext,
    *,
    document_id: DocumentId,
    title: Annotated[str | None, Field(min_length=1, max_length=300, description="A new title")] = None,
    content: Annotated[
        str | None,
        Field(max_length=2_000_000, description="The new body (or what to append), as `format` says"),
    ] = None,
    format: Format = "markdown",
    mode: Annotated[
        Literal["replace", "append"],
        Field(description="replace the body (default) or append `content` to it"),
    ] = "replace",
    expected_version: Annotated[
        int | None,
        Field(ge=1, description="The version you read; refused if someone saved a newer one since"),
    ] = None,
    note: Annotated[str, Field(max_length=300, description="What changed, kept with the version")] = "",
) -> UpdatedDocumentOut:
    """Change a document's title and/or body. Each update is saved as a new version and the
    previous one is kept (getDocument lists them). Pass `expectedVersion` to be sure nobody saved
    in between."""
    if title is None and content is None:
        raise ValidationFailed(
            "Say what to change: `title` and/or `content`.", details={"content": ["nothing given"]}
        )
    document = Document.objects.fetch(ctx.actor, document_id)
    previous = document.version
    document, changed = services.document_update(
        actor=ctx.actor,
        document=document,
        title=title,
        content=content,
        fmt=format,
        expected_version=expected_version,
        note=note,
        append=mode == "append",
    )
    return UpdatedDocumentOut(
        document=DocumentSummary.of_record(document), changed=changed, previous_version=previous
    )


@tool("moveDocument", permission=DocumentsPerm.EDIT, title="Move a document", idempotent=True)
def move_document(
    ctx: ToolContext,
    *,
    document_id: DocumentId,
    folder_id: Annotated[
        int | None, Field(ge=1, description="The document folder to move it to; null: the root")
    ],
) -> DocumentSummary:
    """Move a document into another document folder, or to the root (null)."""
    document = Document.objects.fetch(ctx.actor, document_id)
    folder = folders.get(DocumentFolder, actor=ctx.actor, folder_id=folder_id)
    return DocumentSummary.of_record(
        services.document_move(actor=ctx.actor, document=document, folder=folder)
    )


share_tool(
    "shareDocument",
    model=Document,
    permission=DocumentsPerm.SHARE,
    title="Share a document",
    id_argument=("document_id", DocumentId),
    description="""Share a document with a person of the workspace (view or edit), stop sharing (none),
    and/or make it private or visible to everyone who may see documents.""",
)


class DeletedDocumentOut(Out):
    id: int
    title: str
    in_trash: bool


@tool(
    "deleteDocument",
    permission=DocumentsPerm.DELETE,
    title="Delete a document",
    markers=Marker.DESTRUCTIVE,
)
def delete_document(ctx: ToolContext, *, document_id: DocumentId) -> DeletedDocumentOut:
    """Put a document in the trash, with its versions; an administrator can restore it from the
    Documents settings page. Its PDF exports stay in Files."""
    document = Document.objects.fetch(ctx.actor, document_id)
    document = services.document_trash(actor=ctx.actor, document=document)
    return DeletedDocumentOut.of_record(document)


class ExportOut(Out):
    document_id: int
    version: int
    file: FileOut


@tool("exportDocumentToPdf", permission=DocumentsPerm.EXPORT, title="Export a document to PDF")
def export_document_to_pdf(
    ctx: ToolContext,
    *,
    document_id: DocumentId,
    version: Annotated[
        int | None, Field(ge=1, description="An earlier version to export; default: the current")
    ] = None,
    folder_id: Annotated[
        int | None, Field(ge=1, description='The Files folder to save it in; default: "Document exports"')
    ] = None,
    file_name: Annotated[
        str | None,
        Field(min_length=1, max_length=255, description='The PDF\'s name; default: "<title> v<n>.pdf"'),
    ] = None,
) -> ExportOut:
    """Render a document to a PDF (title, version line, then its headings, lists, tables, quotes
    and code) and save it in Files, attached to the document. readFileContent reads it back,
    downloadFileEntity and emailFileAsAttachment hand it on."""
    document = Document.objects.fetch(ctx.actor, document_id)
    folder = folders.get(Folder, actor=ctx.actor, folder_id=folder_id)
    file = services.document_export_pdf(
        actor=ctx.actor, document=document, folder=folder, name=file_name, version=version
    )
    return ExportOut(document_id=document.pk, version=version or document.version, file=FileOut.of(file))
