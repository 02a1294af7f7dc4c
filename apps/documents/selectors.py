"""Reads about documents, filtered to what the actor may see (as files: apps.core.sharing).

Folders are seen by everyone whose role allows documents.view; a document when it is visible to
the workspace, or the actor owns it, or it is shared with them; documents.admin sees all. Anything
else, and anything of another workspace, is "not found".
"""

from typing import Any

from django.db.models import QuerySet

from apps.accounts.access import can
from apps.core import sharing
from apps.documents import errors
from apps.documents.models import Document, DocumentFolder, DocumentShare, DocumentVersion
from apps.documents.permissions import DocumentsPerm


def is_admin(actor: Any) -> bool:
    return can(actor, DocumentsPerm.ADMIN)


def document_visible(*, actor: Any, include_trashed: bool = False) -> QuerySet[Document]:
    if not can(actor, DocumentsPerm.VIEW):
        return Document.objects.none()
    rows = Document.objects.all()
    if not include_trashed:
        rows = rows.filter(deleted_at__isnull=True)
    return sharing.visible(rows, DocumentShare, actor, admin=is_admin(actor))


def folder_visible(*, actor: Any) -> QuerySet[DocumentFolder]:
    if not can(actor, DocumentsPerm.VIEW):
        return DocumentFolder.objects.none()
    return DocumentFolder.objects.filter(deleted_at__isnull=True)


def document_get(*, actor: Any, document_id: int, include_trashed: bool = False) -> Document:
    found = (
        document_visible(actor=actor, include_trashed=True)
        .select_related("folder", "owner", "updated_by")
        .filter(pk=document_id)
        .first()
    )
    if found is None:
        raise errors.DocumentNotFound(document_id)
    if found.deleted_at is not None and not include_trashed:
        raise errors.DocumentInTrash(document_id)
    return found


def access_of(actor: Any, document: Document) -> str:
    return sharing.access_of(document, actor, admin=is_admin(actor), can_edit=can(actor, DocumentsPerm.EDIT))


def document_get_for_edit(*, actor: Any, document_id: int, include_trashed: bool = False) -> Document:
    found = document_get(actor=actor, document_id=document_id, include_trashed=include_trashed)
    if access_of(actor, found) == "view":
        raise errors.DocumentReadOnly(document_id)
    return found


def folder_get(*, actor: Any, folder_id: int | None) -> DocumentFolder | None:
    if folder_id is None:
        return None
    found = folder_visible(actor=actor).filter(pk=folder_id).first()
    if found is None:
        raise errors.DocumentFolderNotFound(folder_id)
    return found


def version_get(*, document: Document, number: int) -> DocumentVersion:
    found = document.versions.filter(number=number).select_related("created_by").first()
    if found is None:
        raise errors.VersionNotFound(
            f"Document {document.pk} has no version {number}; it has versions 1 to {document.version}."
        )
    return found


def documents_by_ids(*, actor: Any, document_ids: list[int]) -> dict[int, Document]:
    rows = document_visible(actor=actor).filter(pk__in=document_ids).select_related("folder")
    return {row.pk: row for row in rows}
