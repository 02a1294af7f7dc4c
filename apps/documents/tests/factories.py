"""Documents and their folders for tests, made through the services as a person makes them
(apps.core.factories): `DocumentFactory(actor=people["member"], title="Plan", visibility="private")`,
`DocumentFolderFactory(actor=people["member"], name="Board", parent=top)`."""

from typing import Any

from apps.core import factories
from apps.core.factories import (
    AccessRows,
    FolderBaseFactory,
    ServiceFactory,
    access_rows,
    fake,
    numbered,
    private_rows,
)
from apps.documents import services
from apps.documents.models import Document, DocumentFolder


def _document(*, actor: Any, fields: dict[str, Any]) -> Document:
    return services.document_create(actor=actor, **fields)


class DocumentFactory(ServiceFactory):
    class Meta:
        model = Document

    title = numbered(fake.catch_phrase, " ")
    content = numbered(fake.sentence, " ")
    _service = staticmethod(_document)


class DocumentFolderFactory(FolderBaseFactory):
    class Meta:
        model = DocumentFolder


@access_rows("documents.DocumentFolder")
def _folders(people: dict[str, Any]) -> AccessRows:
    return AccessRows(everyone=[DocumentFolderFactory(actor=people["member"])])


@access_rows("documents.Document")
def _documents(people: dict[str, Any]) -> AccessRows:
    return private_rows(
        people,
        lambda actor, visibility: DocumentFactory(actor=actor, visibility=visibility),
    )


@factories.privacy_rows("documents")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private document, and its PDF in Files."""
    owner = people["owner"]
    document = DocumentFactory(
        actor=owner, title=f"{marker} plan", content=f"# {marker}\n\n{marker} body", visibility="private"
    )
    rows.add("documentId", "entityId", record=document)
    rows.add("fileId", "entityId", record=services.document_export_pdf(actor=owner, document=document))
