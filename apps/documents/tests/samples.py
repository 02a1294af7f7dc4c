"""A normal call of every Documents tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`."""

from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.documents.tests.factories import DocumentFactory, DocumentFolderFactory


def _document(actor: Any, arguments: dict[str, Any] | None = None) -> Sample:
    document = DocumentFactory(actor=actor)
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
    document = DocumentFactory(actor=actor)
    return Sample({"limit": 100}, private=[document.title])


@sample("updateDocument")
def update_document(actor: Any) -> Sample:
    return _document(actor, {"content": "New body"})


@sample("moveDocument")
def move_document(actor: Any) -> Sample:
    folder = DocumentFolderFactory(actor=actor)
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
