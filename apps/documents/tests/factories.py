"""Documents and their folders for tests, made through the services as a person makes them
(apps.core.factories): `DocumentFactory(actor=people["member"], title="Plan", visibility="private")`,
`DocumentFolderFactory(actor=people["member"], name="Board", parent=top)`."""

from typing import Any

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
