"""Files and folders for tests, made through the services as a person makes them
(apps.core.factories): `FileFactory(actor=people["member"], name="a.txt", text="Alpha", folder=f)`
(`text` is the file's content, stored as UTF-8), `FolderFactory(actor=..., name="Contracts")`."""

from typing import Any

import factory

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
from apps.files import services
from apps.files.models import File, Folder


def _file(*, actor: Any, fields: dict[str, Any]) -> File:
    content = fields.pop("text").encode()
    return services.file_create(actor=actor, content=content, **fields)


class FileFactory(ServiceFactory):
    class Meta:
        model = File

    name = factory.Sequence(lambda n: f"{fake.word()}-{n:05d}.txt")
    text = numbered(fake.sentence, " ")
    _service = staticmethod(_file)


class FolderFactory(FolderBaseFactory):
    class Meta:
        model = Folder


@access_rows("files.Folder")
def _folders(people: dict[str, Any]) -> AccessRows:
    return AccessRows(everyone=[FolderFactory(actor=people["member"])])


@access_rows("files.File")
def _files(people: dict[str, Any]) -> AccessRows:
    return private_rows(people, lambda actor, visibility: FileFactory(actor=actor, visibility=visibility))


@factories.privacy_rows("files")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private file, and its copy."""
    owner = people["owner"]
    text = f"{marker} text"
    file = FileFactory(actor=owner, name=f"{marker}.txt", text=text, description=text, visibility="private")
    rows.add("fileId", "entityId", "id", record=file)
    rows.add("fileId", "entityId", "id", record=services.file_copy(actor=owner, file=file, folder=None))
