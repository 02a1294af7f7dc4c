"""The Files area's public module: what other areas may use of it (docs/files.md, "The API other
areas call"). Nothing else of apps.files is theirs to import.

    file = api.file(actor=user, file_id=12)               # one the actor may see, or the kit's error
    data = api.file_bytes(file)                           # its bytes
    text = api.file_text(file)                            # its text (CannotExtract otherwise)
    folder = api.folder_ensure(actor=user, path="/Reports/2026")
    file = api.file_create(actor=user, name="summary.txt", content=b"...", folder=folder,
                           source=api.Source.TASK, origin="task 12")
    api.file_attach(actor=user, file=file, record=document)  # listed with the record
    api.erase([file.pk])                                  # the service's own erasure (privacy)
    api.trash_with([file.pk], actor=user)                 # to the trash with another area's record
    api.restore_with([file.pk])                           # and back with it
    link, until = api.download_link(file, actor=user)     # a signed link, no sign-in needed
    api.shared_with(user)                                 # the live files shared with a person

Bytes that are not a file yet: `guess_type(name, data)` and `text_of(data, mime_type)`. Tools that
take file content from an agent reuse `Name`, `Text`, `ContentBase64`, `content_of` and answer
`FileOut`. `File` and `Folder` are here for foreign keys' and answers' types.
"""

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import QuerySet, Sum
from django.utils import timezone

from apps.core import folders
from apps.core.actors import Actor, can
from apps.files import downloads
from apps.files.errors import CannotExtract
from apps.files.extract import PDF, guess_type, text_of
from apps.files.models import File, Folder
from apps.files.permissions import FilesPerm
from apps.files.services import (
    erase_rows,
    file_attach,
    file_bytes,
    file_create,
    file_text,
    folder_ensure,
    free_name,
    name_scope,
)
from apps.files.shapes import ContentBase64, FileOut, Name, Text, content_of

__all__ = [
    "PDF",
    "CannotExtract",
    "ContentBase64",
    "File",
    "FileOut",
    "Folder",
    "Name",
    "Source",
    "Text",
    "content_of",
    "download_link",
    "erase",
    "file",
    "file_attach",
    "file_bytes",
    "file_create",
    "file_text",
    "folder",
    "folder_ensure",
    "guess_type",
    "may_add",
    "restore_with",
    "shared_with",
    "shared_with_any",
    "storage_bytes",
    "text_of",
    "trash_with",
]

# Where a file came from (`file_create(source=...)`).
Source = File.Source


def file(*, actor: Actor | None, file_id: int) -> File:
    """The file `file_id` (with its folder) if the actor may see it: "not found" or "in the
    trash" otherwise."""
    found: File = File.objects.select_related("folder").fetch(actor, file_id)
    return found


def shared_with(user: Any) -> QuerySet[File]:
    """The files, not in the trash, shared with `user` by a share of their own (whatever their
    role would let them see otherwise): what the client portal shows its people."""
    return File.objects.filter(shares__user=user, deleted_at__isnull=True).order_by("name", "pk")


def shared_with_any(users: Any) -> QuerySet[File]:
    """The live files shared with any of `users` (a queryset of people), each once."""
    return File.objects.filter(shares__user__in=users, deleted_at__isnull=True).distinct()


def folder(*, actor: Actor, folder_id: int | None) -> Folder | None:
    """The files folder `folder_id` as the actor may see it; None (no id) is the root."""
    return folders.get(Folder, actor=actor, folder_id=folder_id)


def may_add(actor: Actor) -> bool:
    """Whether the actor's role may add files (what `file_create` requires)."""
    return can(actor, FilesPerm.EDIT)


def erase(file_ids: list[int]) -> None:
    """Erases these files whoever's they are, with every link to them, their bytes after the
    commit: for another area's erasure of personal data (a candidate's CV)."""
    found = list(File.objects.filter(pk__in=file_ids))
    if found:
        erase_rows(found)


def trash_with(file_ids: list[int], *, actor: Actor) -> list[int]:
    """Puts these live files in the trash whoever's they are, for another area whose record they
    belong to went to its trash (a design's renderings), its own rights checked; the ids trashed.
    Files' trash shows them; emptying it erases them."""
    found = list(File.objects.filter(pk__in=file_ids, deleted_at__isnull=True))
    folders.trash(found, actor=actor)
    return [file.pk for file in found]


def restore_with(file_ids: list[int]) -> list[int]:
    """Brings these files back from the trash with the record they belong to: where they were
    (the root, if their folder is in the trash too), renamed if their name is taken. The ids
    restored: one erased since (the trash emptied) is not among them."""
    restored = []
    for file in File.objects.filter(pk__in=file_ids, deleted_at__isnull=False).select_related("folder"):
        if file.folder is not None and file.folder.deleted_at is not None:
            file.folder = None
        file.name = free_name(file.folder, file.name, exclude_pk=file.pk, **name_scope(file))
        folders.untrash(file, also=("folder", "name"))
        restored.append(file.pk)
    return restored


def storage_bytes() -> int:
    """The bytes the workspace's files take, the trash included."""
    return File.objects.aggregate(total=Sum("size"))["total"] or 0


def download_link(file: File, *, actor: Actor) -> tuple[str, datetime]:
    """A short-lived signed link to the file's bytes for `actor` (what downloadFileEntity gives),
    and when it expires: it stops working sooner if the file is trashed or unshared."""
    until = timezone.now() + timedelta(seconds=settings.ATRIUM_FILES_DOWNLOAD_TTL_SECONDS)
    return downloads.url_for(file, actor), until
