"""The Files area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.actors import Actor
from apps.core.kinds import Item, Kind, page
from apps.core.navigation import NavItem
from apps.files.attachments import AttachmentStore
from apps.files.permissions import FilesPerm

MB = 1024 * 1024


def describe(*, actor: Actor | None, ids: list[int]) -> dict[int, Item]:
    """Files as items other records carry (linked to a contact, attached to a task)."""
    from apps.files import selectors

    return {
        pk: Item(
            id=pk,
            title=file.name,
            url=file.path,
            mime_type=file.mime_type,
            size=file.size,
            updated_at=file.updated_at,
        )
        for pk, file in selectors.files_by_ids(actor=actor, file_ids=ids).items()
    }


area = areas.declare(
    title=_("Files"),
    group=areas.Group.CONTENT,
    description=_("The workspace's stored files, in folders"),
    words="file folder directory attachment upload download spreadsheet image photo scan pdf trash",
    hints={
        "createFileEntity": (
            "create store a new file csv txt markdown text with content, save notes as a file"
        ),
        "getFileEntity": (
            "size owner type of a file, when it was uploaded, who it is shared with and what it is "
            "attached to"
        ),
        "listFiles": "what files are in a folder browse, inside a folder, find a file by its name",
        "readFileContent": "read the text inside a file what it says, pull the text out of a pdf word excel",
        "downloadFileEntity": "download link get the bytes",
        "getFileWorkingPath": (
            "where is a file path location in the folder tree, the id of the file at a path"
        ),
        "moveFile": "move a file to another folder top level",
        "moveFileEntity": "move a file or a whole folder somewhere else, under another folder",
        "renameFileEntity": "rename change the name of a file or folder",
        "copyFile": "duplicate a file, make a copy of my own",
        "deleteFileEntity": "bin trash remove a file or folder, empty erase it from the trash for good",
        "restoreFile": "recover undelete bring back from the trash recycle bin",
        "listFileTrash": "what's in the trash recycle bin deleted files",
        "shareFile": "give a colleague access to a file, let someone see or edit it, make it private",
        "emailFileAsAttachment": "send a file by email as an attachment, email a file to a client",
        "attachEntityFile": "attach pin a file to a record task document deal, or detach it",
        "saveChatUploadToFiles": "save keep a pasted uploaded file from the chat in our files",
        "saveFileToContact": "save upload a new file onto a contact's record",
        "createFileFolder": "new folder directory for files",
    },
    profiles={
        "essentials": ("listFiles", "readFileContent", "createFileEntity", "saveChatUploadToFiles"),
        # What is shared with the client portal's users (apps.platform.portal).
        "portal": ("listFiles", "getFileEntity", "shareFile"),
        "operations": (
            "listFiles",
            "getFileEntity",
            "readFileContent",
            "createFileEntity",
            "saveChatUploadToFiles",
            "moveFileEntity",
            "shareFile",
        ),
        "people": ("listFiles", "readFileContent"),
        "media": ("listFiles", "getFileEntity", "readFileContent", "saveChatUploadToFiles"),
        "finance": ("readFileContent", "saveChatUploadToFiles"),
        "support": ("listFiles", "readFileContent"),
        "events": ("listFiles", "readFileContent", "saveChatUploadToFiles"),
        "marketing": ("emailFileAsAttachment",),
        "housekeeping": (
            "getFileEntity",
            "copyFile",
            "deleteFileEntity",
            "downloadFileEntity",
            "getFileWorkingPath",
            "listFileTrash",
            "moveFile",
            "renameFileEntity",
            "restoreFile",
            "attachEntityFile",
            "saveFileToContact",
            "createFileFolder",
        ),
    },
    nav=[NavItem("files", _("Files"), "files:browse", FilesPerm.VIEW, order=30)],
    kinds=[
        Kind(
            "file",
            "files.File",
            title="name",
            describe=describe,
            url=page("files:download-signed-in", "file_id"),
            search=("name", "description"),
        )
    ],
    not_kinds={"files.Folder": "a folder of the files' tree: links name a file, not where it is"},
    attachment_store=AttachmentStore(),
    settings={
        # The STORAGES entry that holds the files' bytes. "default" is django-tenants'
        # per-workspace prefix of MEDIA_ROOT; docs/files.md shows an S3-compatible entry.
        "ATRIUM_FILES_STORAGE": env.str("ATRIUM_FILES_STORAGE", "default"),
        # The largest file accepted, wherever bytes arrive (tools, other areas, exports).
        "ATRIUM_FILES_MAX_BYTES": env.int("ATRIUM_FILES_MAX_BYTES", 25 * MB, min=0),
        # downloadFileEntity gives files up to this size inline (base64; 64 KB keeps the answer
        # under the catalogue's 25k tokens); larger ones as a link.
        "ATRIUM_FILES_INLINE_MAX_BYTES": env.int("ATRIUM_FILES_INLINE_MAX_BYTES", 64 * 1024, min=0),
        # How long a download link of downloadFileEntity works (its origin: ATRIUM_SITE_*).
        "ATRIUM_FILES_DOWNLOAD_TTL_SECONDS": env.int("ATRIUM_FILES_DOWNLOAD_TTL_SECONDS", 600, min=1),
        # The largest file emailFileAsAttachment sends.
        "ATRIUM_FILES_EMAIL_MAX_BYTES": env.int("ATRIUM_FILES_EMAIL_MAX_BYTES", 10 * MB, min=0),
    },
)
