"""Reads about files and folders, filtered to what the actor may see.

Folders are seen by everyone whose role allows files.view. A file is seen when it is visible to
the whole workspace, or the actor owns it, or it is shared with them; files.admin sees every
file. Anything else, and anything of another workspace, is "not found".
"""

from typing import Any

from django.db.models import QuerySet

from apps.accounts.access import can
from apps.core import sharing
from apps.files import errors
from apps.files.models import File, FileShare, Folder
from apps.files.permissions import FilesPerm


def is_admin(actor: Any) -> bool:
    return can(actor, FilesPerm.ADMIN)


def file_visible(*, actor: Any, include_trashed: bool = False, only_trashed: bool = False) -> QuerySet[File]:
    if not can(actor, FilesPerm.VIEW):
        return File.objects.none()
    rows = File.objects.all()
    if only_trashed:
        rows = rows.filter(deleted_at__isnull=False)
    elif not include_trashed:
        rows = rows.filter(deleted_at__isnull=True)
    return sharing.visible(rows, FileShare, actor, admin=is_admin(actor))


def folder_visible(
    *, actor: Any, include_trashed: bool = False, only_trashed: bool = False
) -> QuerySet[Folder]:
    if not can(actor, FilesPerm.VIEW):
        return Folder.objects.none()
    rows = Folder.objects.all()
    if only_trashed:
        return rows.filter(deleted_at__isnull=False)
    return rows if include_trashed else rows.filter(deleted_at__isnull=True)


def file_get(*, actor: Any, file_id: int, include_trashed: bool = False) -> File:
    found = (
        file_visible(actor=actor, include_trashed=True)
        .select_related("folder", "owner", "created_by")
        .filter(pk=file_id)
        .first()
    )
    if found is None:
        raise errors.FileNotFound(file_id)
    if found.deleted_at is not None and not include_trashed:
        raise errors.InTrash("File", file_id)
    return found


def file_get_for_edit(*, actor: Any, file_id: int, include_trashed: bool = False) -> File:
    found = file_get(actor=actor, file_id=file_id, include_trashed=include_trashed)
    if access_of(actor, found) == "view":
        raise errors.FileReadOnly(file_id)
    return found


def access_of(actor: Any, file: File) -> str:
    return sharing.access_of(file, actor, admin=is_admin(actor), can_edit=can(actor, FilesPerm.EDIT))


def folder_get(*, actor: Any, folder_id: int | None, include_trashed: bool = False) -> Folder | None:
    """The folder with this id (None: the root)."""
    if folder_id is None:
        return None
    found = folder_visible(actor=actor, include_trashed=True).filter(pk=folder_id).first()
    if found is None:
        raise errors.FolderNotFound(folder_id)
    if found.deleted_at is not None and not include_trashed:
        raise errors.InTrash("Folder", folder_id)
    return found


def folder_by_path(*, actor: Any, path: str) -> Folder | None:
    """The live folder at "/A/B" (case-insensitive); "/" is the root (None)."""
    folder = None
    for part in [part for part in path.strip().split("/") if part]:
        folder = folder_visible(actor=actor).filter(parent=folder, name__iexact=part.strip()).first()
        if folder is None:
            raise errors.FolderNotFound(path)
    return folder


def folder_contents(*, actor: Any, folder: Folder | None) -> tuple[QuerySet[Folder], QuerySet[File]]:
    return (
        folder_visible(actor=actor).filter(parent=folder),
        file_visible(actor=actor).filter(folder=folder).select_related("owner", "folder"),
    )


def files_by_ids(*, actor: Any, file_ids: list[int]) -> dict[int, File]:
    """The live files among `file_ids` that `actor` may see (for links and attachments)."""
    rows = file_visible(actor=actor).filter(pk__in=file_ids).select_related("folder")
    return {row.pk: row for row in rows}
