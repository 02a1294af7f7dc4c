"""A normal call of every Documents tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`."""

import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.core import folders
from apps.documents import services
from apps.documents.models import Document, DocumentFolder


def unique(prefix: str = "Doc") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def make_document(
    actor: Any, title: str | None = None, content: str | None = None, **fields: Any
) -> Document:
    return services.document_create(
        actor=actor,
        title=title or unique("Plan"),
        content=content if content is not None else f"Body {unique('Secret')}",
        **fields,
    )


def make_document_folder(
    actor: Any, name: str | None = None, parent: DocumentFolder | None = None
) -> DocumentFolder:
    return folders.create(DocumentFolder, actor=actor, name=name or unique("Folder"), parent=parent)


def _document(actor: Any, arguments: dict[str, Any] | None = None) -> Sample:
    document = make_document(actor)
    return Sample({"documentId": document.pk, **(arguments or {})}, private=[document.title])


@sample("createDocument")
def create_document(actor: Any) -> Sample:
    return Sample({"title": "Minutes", "content": "# Minutes\n\n- decided"})


@sample("createDocumentFolder")
def create_document_folder(actor: Any) -> Sample:
    return Sample({"name": "Policies"})


@sample("getDocument")
def get_document(actor: Any) -> Sample:
    return _document(actor)


@sample("listDocuments")
def list_documents(actor: Any) -> Sample:
    document = make_document(actor)
    return Sample({"limit": 100}, private=[document.title])


@sample("updateDocument")
def update_document(actor: Any) -> Sample:
    return _document(actor, {"content": "New body"})


@sample("moveDocument")
def move_document(actor: Any) -> Sample:
    folder = make_document_folder(actor)
    return _document(actor, {"folderId": folder.pk})


@sample("shareDocument")
def share_document(actor: Any) -> Sample:
    return _document(actor, {"personEmail": "member@acme.example", "access": "view"})


@sample("deleteDocument")
def delete_document(actor: Any) -> Sample:
    return _document(actor)


@sample("exportDocumentToPdf")
def export_document_to_pdf(actor: Any) -> Sample:
    return _document(actor)
