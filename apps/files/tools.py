"""The Files area of the catalogue (SPEC 4.7): thin doors onto services and selectors."""

import base64
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.kit import folder_tool, share_tool
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import (
    FolderOut,
    FolderRef,
    Limit,
    Offset,
    Out,
    Page,
    PersonRef,
    SharingOut,
    page_of,
    paginate,
)
from apps.core import folders as trees
from apps.core.errors import invalid
from apps.core.kinds import attachments
from apps.core.records import derived_visibility
from apps.files import downloads, errors, selectors, services
from apps.files.models import File, Folder
from apps.files.permissions import FilesPerm
from apps.files.shapes import (
    ContentBase64,
    EntryOut,
    FileId,
    FileOut,
    Name,
    Text,
    content_of,
)

Kind = Literal["file", "folder"]
IfExists = Annotated[
    Literal["rename", "error"], Field(description='If the name is taken: rename ("a (2).txt") or error')
]
Visibility = Annotated[
    Literal["workspace", "private"],
    Field(description="workspace: all who see files; private: you and shares"),
]
TargetFolder = Annotated[int | None, Field(ge=1, description="null: the root")]
Description = Annotated[str, Field(max_length=500, description="A short description")]
MimeType = Annotated[str | None, Field(max_length=150, description="Default: guessed")]
CHAT_FOLDER = "/Chat uploads"
CONTACT_FOLDER = "/Contacts"


def _folder(ctx: ToolContext, folder_id: int | None) -> Folder | None:
    return trees.get(Folder, actor=ctx.actor, folder_id=folder_id)


def _entity(ctx: ToolContext, kind: str, item_id: int, *, include_trashed: bool = False) -> Any:
    model = File if kind == "file" else Folder
    return model.objects.fetch(ctx.actor, item_id, trash=include_trashed)


def _one_of(file_id: int | None, folder_id: int | None) -> tuple[str, int]:
    if (file_id is None) == (folder_id is None):
        raise errors.OneItem(details={"file_id": ["give fileId or folderId"]})
    return ("file", file_id) if file_id is not None else ("folder", folder_id)  # type: ignore[return-value]


def _not_both(first: str, first_given: Any, second: str, second_given: Any) -> None:
    """Two arguments that each say where: one of them, or neither (the default)."""
    if first_given not in (None, False) and second_given not in (None, False):
        raise invalid(second, _("give {first} or {second}, not both"), first=first, second=second)


# --- creating -----------------------------------------------------------------------------------


def _save(ctx: ToolContext, name: str, content: bytes, folder: int | str, **fields: Any) -> File:
    """A new file in the folder with this id, or at this path (made where missing)."""
    target = (
        services.folder_ensure(actor=ctx.actor, path=folder)
        if isinstance(folder, str)
        else _folder(ctx, folder)
    )
    return services.file_create(actor=ctx.actor, name=name, content=content, folder=target, **fields)


@tool("createFileEntity", permission=FilesPerm.EDIT, title="Create a file")
def create_file_entity(
    ctx: ToolContext,
    *,
    name: Name,
    text: Text = None,
    content_base64: ContentBase64 = None,
    folder_id: TargetFolder = None,
    mime_type: MimeType = None,
    description: Description = "",
    visibility: Visibility = "workspace",
    if_exists: IfExists = "rename",
) -> FileOut:
    """Store a new file from text or base64. From the user's chat upload: saveChatUploadToFiles."""
    file = services.file_create(
        actor=ctx.actor,
        name=name,
        content=content_of(text, content_base64),
        folder=_folder(ctx, folder_id),
        mime_type=mime_type,
        description=description,
        visibility=visibility,
        if_exists=if_exists,
    )
    return FileOut.of(file)


folder_tool(
    "createFileFolder",
    model=Folder,
    permission=FilesPerm.EDIT,
    title="Create a folder",
    description="Create a folder in the workspace's files (not for documents: createDocumentFolder).",
)


@tool("saveChatUploadToFiles", permission=FilesPerm.EDIT, title="Save a chat upload to files")
def save_chat_upload_to_files(
    ctx: ToolContext,
    *,
    name: Name,
    content_base64: ContentBase64 = None,
    text: Text = None,
    mime_type: MimeType = None,
    folder_id: Annotated[int | None, Field(ge=1, description='Default: "Chat uploads"')] = None,
) -> FileOut:
    """Keep a file the user gave you in this conversation. Other content: createFileEntity."""
    file = _save(
        ctx,
        name,
        content_of(text, content_base64),
        folder_id or CHAT_FOLDER,
        mime_type=mime_type,
        source=File.Source.CHAT,
        origin=f"session {ctx.session.session_id}",
    )
    return FileOut.of(file)


class SavedToContactOut(Out):
    file: FileOut
    contact_id: int
    linked: bool


@tool("saveFileToContact", permission=FilesPerm.EDIT, title="Save a file to a contact")
def save_file_to_contact(
    ctx: ToolContext,
    *,
    contact_id: Annotated[int, Field(ge=1, le=2**63 - 1, description="From searchContacts")],
    name: Name,
    text: Text = None,
    content_base64: ContentBase64 = None,
    mime_type: MimeType = None,
    folder_id: Annotated[int | None, Field(ge=1, description='Default: "Contacts"')] = None,
    description: Description = "",
) -> SavedToContactOut:
    """Store a new file and link it to a contact at once. A stored file: linkFileToContact."""
    contact = attachments.carrier_named("contact").fetch(actor=ctx.actor, pk=contact_id, action="change")
    file = _save(
        ctx,
        name,
        content_of(text, content_base64),
        folder_id or CONTACT_FOLDER,
        mime_type=mime_type,
        description=description,
        source=File.Source.CONTACT,
        origin=f"contact {contact.pk}",
        # What is filed on a private contact is about it: no more visible than the contact.
        visibility=derived_visibility(contact),
    )
    services.file_attach(actor=ctx.actor, file=file, record=contact)
    return SavedToContactOut(file=FileOut.of(file), contact_id=contact.pk, linked=True)


@tool("copyFile", permission=FilesPerm.EDIT, title="Copy a file")
def copy_file(
    ctx: ToolContext,
    *,
    file_id: FileId,
    folder_id: Annotated[int | None, Field(ge=1, description="Default: the same folder")] = None,
    to_root: Annotated[bool, Field(description="Copy it to the root instead")] = False,
    name: Annotated[
        str | None, Field(min_length=1, max_length=255, description='Default: "name (2).ext"')
    ] = None,
) -> FileOut:
    """Copy a file, into the same folder or another; the copy is yours. To move it: moveFile."""
    _not_both("folderId", folder_id, "toRoot", to_root)
    file = File.objects.select_related("folder", "owner").fetch(ctx.actor, file_id)
    folder = None if to_root else (_folder(ctx, folder_id) if folder_id else file.folder)
    return FileOut.of(services.file_copy(actor=ctx.actor, file=file, folder=folder, name=name))


# --- reading ------------------------------------------------------------------------------------


class AttachedToOut(Out):
    entity_type: str
    entity_id: int


class FileDetailOut(Out):
    file: FileOut
    sharing: SharingOut
    attached_to: list[AttachedToOut]
    emailed: int = Field(description="Times e-mailed out")
    your_access: str


@tool("getFileEntity", permission=FilesPerm.VIEW, title="Get a file", read_only=True)
def get_file_entity(
    ctx: ToolContext,
    *,
    file_id: FileId,
    include_trashed: Annotated[bool, Field(description="Even if in the trash")] = False,
) -> FileDetailOut:
    """Get a file's details, sharing and attachments. Its text: readFileContent; bytes: downloadFileEntity."""
    file = File.objects.select_related("folder", "owner", "created_by").fetch(
        ctx.actor, file_id, trash=include_trashed
    )
    attached = [
        AttachedToOut(entity_type=kind, entity_id=pk)
        for kind, pk in attachments.records_with(item_kind="file", item_id=file.pk)
    ]
    return FileDetailOut(
        file=FileOut.of(file),
        sharing=SharingOut.of(file),
        attached_to=attached,
        emailed=file.deliveries.count(),
        your_access=File.access.level(ctx.actor, file),
    )


class ListingOut(Out):
    folder: FolderRef | None = Field(description="null: the root, or a search")
    entries: Page[EntryOut]


def _listing(folders: Any, files: Any, *, limit: int, offset: int) -> Page[EntryOut]:
    """Folders first, then files, paged as one list."""
    folder_count, file_count = folders.count(), files.count()
    window: list[Any] = list(folders[offset : offset + limit]) if offset < folder_count else []
    start = max(0, offset - folder_count)
    window += list(files[start : start + limit - len(window)])
    return page_of(
        [EntryOut.of(item) for item in window], total=folder_count + file_count, limit=limit, offset=offset
    )


@tool("listFiles", permission=FilesPerm.VIEW, title="List files and folders", read_only=True)
def list_files(
    ctx: ToolContext,
    *,
    folder_id: Annotated[int | None, Field(ge=1, description="Default: the root")] = None,
    path: Annotated[str | None, Field(max_length=2000, description='Or its path: "/Contracts/2026"')] = None,
    query: Annotated[str | None, Field(max_length=200, description="In names, anywhere")] = None,
    mime_type: Annotated[str | None, Field(max_length=150, description='A type or family: "image/"')] = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> ListingOut:
    """List a folder's sub-folders and files, or find them by name with `query`. Trash: listFileTrash."""
    _not_both("folderId", folder_id, "path", path)
    folders: QuerySet[Folder]
    files: QuerySet[File]
    if query and query.strip():
        folder = None
        folders = Folder.objects.restrict(ctx.actor).filter(name__icontains=query.strip())
        files = File.objects.restrict(ctx.actor).filter(name__icontains=query.strip())
    else:
        folder = selectors.folder_by_path(actor=ctx.actor, path=path) if path else _folder(ctx, folder_id)
        folders, files = selectors.folder_contents(actor=ctx.actor, folder=folder)
    if mime_type:
        folders = folders.none()
        wanted = mime_type.strip().lower()
        files = (
            files.filter(mime_type__startswith=wanted)
            if wanted.endswith("/")
            else files.filter(mime_type=wanted)
        )
    files = files.select_related("folder").order_by("name", "id")
    return ListingOut(
        folder=FolderRef.of(folder),
        entries=_listing(folders.order_by("name", "id"), files, limit=limit, offset=offset),
    )


class ContentOut(Out):
    file_id: int
    name: str
    mime_type: str
    text: str
    offset: int
    total_chars: int
    next_offset: int | None = Field(description="null at the end")


@tool("readFileContent", permission=FilesPerm.VIEW, title="Read a file's text", read_only=True)
def read_file_content(
    ctx: ToolContext,
    *,
    file_id: FileId,
    offset: Annotated[int, Field(ge=0, description="In characters: the last nextOffset")] = 0,
    max_chars: Annotated[int, Field(ge=100, le=80_000, description="At most")] = 20_000,
) -> ContentOut:
    """Read a stored file's text: text, CSV, JSON, PDF, Word, Excel, PowerPoint. Bytes: downloadFileEntity."""
    file = File.objects.select_related("folder", "owner").fetch(ctx.actor, file_id)
    whole = services.file_text(file)
    part = whole[offset : offset + max_chars]
    end = offset + len(part)
    return ContentOut.of_record(
        file,
        file_id=file.pk,
        text=part,
        offset=offset,
        total_chars=len(whole),
        next_offset=end if end < len(whole) else None,
    )


class DownloadOut(Out):
    file: FileOut
    url: str = Field(description="Until expiresAt, no sign-in needed")
    expires_at: datetime
    content_base64: str | None
    inline: bool


@tool("downloadFileEntity", permission=FilesPerm.VIEW, title="Download a file", read_only=True)
def download_file_entity(
    ctx: ToolContext,
    *,
    file_id: FileId,
    mode: Annotated[
        Literal["auto", "inline", "link"],
        Field(description="auto: bytes inline when small, else only the link"),
    ] = "auto",
) -> DownloadOut:
    """Get a file's bytes as base64 and a short-lived download link. Its text: readFileContent."""
    file = File.objects.select_related("folder", "owner").fetch(ctx.actor, file_id)
    limit = int(settings.ATRIUM_FILES_INLINE_MAX_BYTES)
    if mode == "inline" and file.size > limit:
        raise errors.TooLargeInline(
            file=file.pk, size=file.size, limit=limit, details={"mode": ["too large for inline"]}
        )
    inline = mode == "inline" or (mode == "auto" and file.size <= limit)
    return DownloadOut(
        file=FileOut.of(file),
        url=downloads.url_for(file, ctx.actor),
        expires_at=timezone.now() + timedelta(seconds=settings.ATRIUM_FILES_DOWNLOAD_TTL_SECONDS),
        content_base64=base64.b64encode(services.file_bytes(file)).decode() if inline else None,
        inline=inline,
    )


class WorkingPathOut(Out):
    type: str
    id: int | None = Field(description="null for the root")
    name: str
    path: str
    folders: list[FolderRef] = Field(description="From the root down")
    download_path: str | None = Field(description="A file's short-lived download link")


@tool("getFileWorkingPath", permission=FilesPerm.VIEW, title="Get a file's path", read_only=True)
def get_file_working_path(
    ctx: ToolContext,
    *,
    file_id: Annotated[int | None, Field(ge=1, description="A file, for its path")] = None,
    folder_id: Annotated[int | None, Field(ge=1, description="Or a folder")] = None,
    path: Annotated[
        str | None, Field(max_length=2000, description='Or a path, for its id: "/A/b.pdf"')
    ] = None,
) -> WorkingPathOut:
    """Get a file's or folder's path from the root, or the id at a path."""
    if path is not None:
        folder_path, _slash, leaf = path.strip().rstrip("/").rpartition("/")
        parent = selectors.folder_by_path(actor=ctx.actor, path=folder_path)
        file = (
            File.objects.restrict(ctx.actor).filter(folder=parent, name__iexact=leaf).first()
            if leaf
            else None
        )
        if file is not None:
            file_id = file.pk
        elif leaf:
            folder_id = selectors.folder_by_path(actor=ctx.actor, path=path).pk  # type: ignore[union-attr]
        else:
            return WorkingPathOut(type="folder", id=None, name="", path="/", folders=[], download_path=None)
    kind, item_id = _one_of(file_id, folder_id)
    item = _entity(ctx, kind, item_id)
    chain = trees.ancestors(item.folder if kind == "file" else item)
    return WorkingPathOut.of_record(
        item,
        type=kind,
        folders=chain,
        download_path=downloads.path_for(item, ctx.actor) if kind == "file" else None,
    )


# --- changing -----------------------------------------------------------------------------------


@tool("moveFile", permission=FilesPerm.EDIT, title="Move a file", idempotent=True)
def move_file(
    ctx: ToolContext,
    *,
    file_id: FileId,
    folder_id: Annotated[int | None, Field(ge=1, description="null: the root")],
) -> FileOut:
    """Move a file into another folder. A folder, or an answer with either: moveFileEntity."""
    file = File.objects.select_related("folder", "owner").fetch(ctx.actor, file_id)
    return FileOut.of(services.file_move(actor=ctx.actor, file=file, folder=_folder(ctx, folder_id)))


class EntityOut(Out):
    type: str
    file: FileOut | None
    folder: FolderOut | None


def _entity_out(item: Any) -> EntityOut:
    if isinstance(item, File):
        return EntityOut(type="file", file=FileOut.of(item), folder=None)
    return EntityOut(type="folder", file=None, folder=FolderOut.of_record(item))


@tool("moveFileEntity", permission=FilesPerm.EDIT, title="Move a file or folder", idempotent=True)
def move_file_entity(
    ctx: ToolContext,
    *,
    type: Annotated[Kind, Field(description="What id names")],
    id: Annotated[int, Field(ge=1, le=2**63 - 1, description="From listFiles")],
    target_folder_id: Annotated[int | None, Field(ge=1, description="null: the root")],
) -> EntityOut:
    """Move a file or a whole folder into another folder, or to the root. A file only: moveFile."""
    target = _folder(ctx, target_folder_id)
    item = _entity(ctx, type, id)
    if type == "file":
        return _entity_out(services.file_move(actor=ctx.actor, file=item, folder=target))
    return _entity_out(services.folder_move(actor=ctx.actor, folder=item, parent=target))


@tool("renameFileEntity", permission=FilesPerm.EDIT, title="Rename a file or folder", idempotent=True)
def rename_file_entity(
    ctx: ToolContext,
    *,
    type: Annotated[Kind, Field(description="What id names")],
    id: Annotated[int, Field(ge=1, le=2**63 - 1, description="From listFiles")],
    name: Annotated[
        str, Field(min_length=1, max_length=255, description="Free in its folder; keep the extension")
    ],
) -> EntityOut:
    """Rename a file or a folder. A name may not contain / \\ : * ? " < > |."""
    item = _entity(ctx, type, id)
    if type == "file":
        return _entity_out(services.file_rename(actor=ctx.actor, file=item, name=name))
    return _entity_out(services.folder_rename(actor=ctx.actor, folder=item, name=name))


share_tool(
    "shareFile",
    model=File,
    title="Share a file",
    id_argument=("file_id", FileId),
)


class AttachedOut(Out):
    file_id: int
    entity_type: str
    entity_id: int
    attached: bool
    changed: bool = Field(description="False: it already was so")


@tool("attachEntityFile", permission=FilesPerm.EDIT, title="Attach a file to a record", idempotent=True)
def attach_entity_file(
    ctx: ToolContext,
    *,
    file_id: FileId,
    entity_type: Annotated[
        str,
        Field(min_length=1, max_length=50, description="A record kind: contact, document, task, ..."),
    ],
    entity_id: Annotated[int, Field(ge=1, le=2**63 - 1, description="Of that kind")],
    remove: Annotated[bool, Field(description="Detach it instead")] = False,
) -> AttachedOut:
    """Attach a stored file to a record of any area (a task, a document, ...), or detach it."""
    _record, _item, changed = attachments.attach(
        actor=ctx.actor,
        item_kind="file",
        item_id=file_id,
        entity_type=entity_type,
        entity_id=entity_id,
        remove=remove,
    )
    return AttachedOut(
        file_id=file_id, entity_type=entity_type, entity_id=entity_id, attached=not remove, changed=changed
    )


class SentOut(Out):
    file_id: int
    recipients: list[str]
    subject: str
    sent_at: datetime


@tool(
    "emailFileAsAttachment",
    permission=FilesPerm.EMAIL,
    title="E-mail a file as an attachment",
    markers=Marker.GATED,
    open_world=True,
)
def email_file_as_attachment(
    ctx: ToolContext,
    *,
    file_id: FileId,
    to: Annotated[
        list[Annotated[str, Field(max_length=254)]],
        Field(min_length=1, max_length=20, description="E-mail addresses"),
    ],
    subject: Annotated[str, Field(max_length=200, description="Default: the file's name")] = "",
    message: Annotated[str, Field(max_length=20_000, description="The e-mail's text")] = "",
) -> SentOut:
    """E-mail a stored file as an attachment, from your mailbox (kept in its Sent folder)."""
    file = File.objects.select_related("folder", "owner").fetch(ctx.actor, file_id)
    delivery = services.file_email(actor=ctx.actor, file=file, to=to, subject=subject, message=message)
    return SentOut.of_record(delivery)


# --- the trash ----------------------------------------------------------------------------------


class DeletedOut(Out):
    type: str
    id: int
    permanently: bool
    count: int = Field(description="Files and folders that went")


@tool(
    "deleteFileEntity",
    permission=FilesPerm.DELETE,
    title="Delete a file or folder",
    markers=Marker.DESTRUCTIVE,
)
def delete_file_entity(
    ctx: ToolContext,
    *,
    file_id: Annotated[int | None, Field(ge=1, description="A file")] = None,
    folder_id: Annotated[int | None, Field(ge=1, description="Or a folder, with all in it")] = None,
    permanently: Annotated[bool, Field(description="Erase what is already in the trash")] = False,
) -> DeletedOut:
    """Put a file or a folder in the trash (restoreFile brings it back), or erase it from there."""
    kind, item_id = _one_of(file_id, folder_id)
    item = _entity(ctx, kind, item_id, include_trashed=True)
    if kind == "file":
        delete_file = services.file_erase if permanently else services.file_trash
        delete_file(actor=ctx.actor, file=item)
        count = 1
    else:
        delete_folder = services.folder_erase if permanently else services.folder_trash
        count = delete_folder(actor=ctx.actor, folder=item)
    return DeletedOut(type=kind, id=item_id, permanently=permanently, count=count)


class RestoredOut(Out):
    type: str
    id: int
    path: str
    count: int = Field(description="Files and folders that came back")


@tool("restoreFile", permission=FilesPerm.DELETE, title="Restore from the trash", idempotent=True)
def restore_file(
    ctx: ToolContext,
    *,
    file_id: Annotated[int | None, Field(ge=1, description="A trashed file")] = None,
    folder_id: Annotated[int | None, Field(ge=1, description="Or a trashed folder")] = None,
    into_folder_id: Annotated[int | None, Field(ge=1, description="Default: where it was")] = None,
    to_root: Annotated[bool, Field(description="To the root instead")] = False,
) -> RestoredOut:
    """Bring a file or folder back from the trash (listFileTrash), where it was or elsewhere."""
    kind, item_id = _one_of(file_id, folder_id)
    _not_both("intoFolderId", into_folder_id, "toRoot", to_root)
    item = _entity(ctx, kind, item_id, include_trashed=True)
    target: Folder | Literal[False] | None = (
        None if to_root else (_folder(ctx, into_folder_id) if into_folder_id else False)
    )
    if kind == "file":
        item, count = services.file_restore(actor=ctx.actor, file=item, folder=target), 1
    else:
        count = services.folder_restore(actor=ctx.actor, folder=item, parent=target)
    return RestoredOut.of_record(item, type=kind, count=count)


class TrashEntryOut(Out):
    type: str
    id: int
    name: str
    was_in: str = Field(description="Its folder's path")
    size: int | None
    deleted_at: datetime | None
    deleted_by: PersonRef | None


def _trash_entry(item: Any) -> TrashEntryOut:
    is_file = isinstance(item, File)
    parent = item.folder if is_file else item.parent
    kind, size = ("file", item.size) if is_file else ("folder", None)
    return TrashEntryOut.of_record(item, type=kind, was_in=parent.path if parent else "/", size=size)


@tool("listFileTrash", permission=FilesPerm.VIEW, title="List the trash", read_only=True)
def list_file_trash(ctx: ToolContext, *, limit: Limit = 50, offset: Offset = 0) -> Page[TrashEntryOut]:
    """List the files' trash, newest first. Restore: restoreFile."""
    return paginate(services.trash_entries(actor=ctx.actor), limit=limit, offset=offset, item=_trash_entry)
