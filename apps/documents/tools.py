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
from apps.core.kinds import attachments
from apps.documents import errors, selectors, services
from apps.documents.models import Document, DocumentFolder
from apps.documents.permissions import DocumentsPerm
from apps.files import api as files
from apps.files.api import FileOut

DocumentId = Annotated[int, id_field("listDocuments")]
Format = Annotated[Literal["markdown", "html", "text"], Field(description="How content is written")]
Content = Annotated[str, Field(max_length=2_000_000, description="The body, as format says")]
Title = Annotated[str, Field(min_length=1, max_length=300, description="The document's title")]
FolderArg = Annotated[int | None, Field(ge=1, description="A document folder; null: the root")]


class DocumentSummary(Out):
    id: int
    title: str
    path: str
    folder: FolderRef | None
    version: int
    visibility: str
    owner: PersonRef | None
    updated_by: PersonRef | None
    excerpt: str
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
    content_html: str | None
    content_text: str | None
    versions: list[VersionOut] = Field(description="Newest first (100)")
    sharing: SharingOut
    attachments: list[AttachmentOut]
    your_access: str


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
        Field(description="workspace: all who see documents; private: you and shares"),
    ] = "workspace",
) -> DocumentSummary:
    """Write a new rich-text document (Markdown, HTML or text). A stored file instead: createFileEntity."""
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
    description="Create a folder for documents (not for files: createFileFolder).",
)


@tool("getDocument", permission=DocumentsPerm.VIEW, title="Get a document", read_only=True)
def get_document(
    ctx: ToolContext,
    *,
    document_id: DocumentId,
    version: Annotated[int | None, Field(ge=1, description="Default: the current")] = None,
    format: Annotated[Literal["text", "html", "both"], Field(description="The body's form")] = "both",
) -> DocumentOut:
    """Read a document: its body as text and/or HTML, its versions, sharing and attached files."""
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
    folder: FolderRef | None = Field(description="null: the root, or a search")
    folders: list[FolderRef]
    documents: Page[DocumentSummary]


@tool("listDocuments", permission=DocumentsPerm.VIEW, title="List documents", read_only=True)
def list_documents(
    ctx: ToolContext,
    *,
    folder_id: Annotated[int | None, Field(ge=1, description="Default: the root")] = None,
    query: Annotated[
        str | None, Field(max_length=200, description="Words in the title or text, anywhere")
    ] = None,
    sort: Annotated[Literal["title", "-updated"], Field(description="-updated: newest first")] = "title",
    limit: Limit = 25,
    offset: Offset = 0,
) -> DocumentListOut:
    """List a folder's documents and sub-folders, or find documents by words with `query`."""
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
    changed: bool = Field(description="False: nothing differed, no new version")
    previous_version: int


@tool("updateDocument", permission=DocumentsPerm.EDIT, title="Update a document")
def update_document(
    ctx: ToolContext,
    *,
    document_id: DocumentId,
    title: Annotated[str | None, Field(min_length=1, max_length=300, description="A new title")] = None,
    content: Annotated[
        str | None, Field(max_length=2_000_000, description="The new body, or what to append")
    ] = None,
    format: Format = "markdown",
    mode: Annotated[
        Literal["replace", "append"], Field(description="Replace the body or add to it")
    ] = "replace",
    expected_version: Annotated[
        int | None, Field(ge=1, description="The version you read; refused if a newer one exists")
    ] = None,
    note: Annotated[str, Field(max_length=300, description="What changed")] = "",
) -> UpdatedDocumentOut:
    """Change a document's title or body, as a new version; earlier ones are kept."""
    if title is None and content is None:
        raise errors.NoTitleOrContent(details={"content": ["nothing given"]})
    document = Document.objects.fetch(ctx.actor, document_id)
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
    # The version it built on, read under the service's lock (another save may have come first).
    previous = document.version - 1 if changed else document.version
    return UpdatedDocumentOut(
        document=DocumentSummary.of_record(document), changed=changed, previous_version=previous
    )


@tool("moveDocument", permission=DocumentsPerm.EDIT, title="Move a document", idempotent=True)
def move_document(
    ctx: ToolContext,
    *,
    document_id: DocumentId,
    folder_id: Annotated[int | None, Field(ge=1, description="A document folder; null: the root")],
) -> DocumentSummary:
    """Move a document into another document folder, or to the root."""
    document = Document.objects.fetch(ctx.actor, document_id)
    folder = folders.get(DocumentFolder, actor=ctx.actor, folder_id=folder_id)
    return DocumentSummary.of_record(
        services.document_move(actor=ctx.actor, document=document, folder=folder)
    )


share_tool(
    "shareDocument",
    model=Document,
    title="Share a document",
    id_argument=("document_id", DocumentId),
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
    """Put a document and its versions in the trash (an administrator can restore it)."""
    document = Document.objects.fetch(ctx.actor, document_id)
    document = services.document_trash(actor=ctx.actor, document=document)
    return DeletedDocumentOut.of_record(document)


class ExportOut(Out):
    document_id: int
    version: int
    file: FileOut


@tool(
    "exportDocumentToPdf",
    permission=DocumentsPerm.EXPORT,
    title="Export a document to PDF",
    long_running=True,
)
def export_document_to_pdf(
    ctx: ToolContext,
    *,
    document_id: DocumentId,
    version: Annotated[int | None, Field(ge=1, description="Default: the current")] = None,
    folder_id: Annotated[
        int | None, Field(ge=1, description='A Files folder; default: "Document exports"')
    ] = None,
    file_name: Annotated[
        str | None, Field(min_length=1, max_length=255, description='Default: "<title> v<n>.pdf"')
    ] = None,
) -> ExportOut:
    """Save a document as a PDF in Files, attached to it. To send it: emailFileAsAttachment."""
    document = Document.objects.fetch(ctx.actor, document_id)
    folder = files.folder(actor=ctx.actor, folder_id=folder_id)
    file = services.document_export_pdf(
        actor=ctx.actor, document=document, folder=folder, name=file_name, version=version
    )
    return ExportOut(document_id=document.pk, version=version or document.version, file=FileOut.of(file))
