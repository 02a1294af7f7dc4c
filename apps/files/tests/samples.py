"""A normal call of every Files tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py). Each creates what it needs as `actor`."""

import base64
import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.contacts.tests.factories import ContactFactory
from apps.files import services
from apps.files.tests.factories import FileFactory, FolderFactory
from apps.mail.testing import using_local_server


def _file(actor: Any, arguments: dict[str, Any] | None = None, **fields: Any) -> Sample:
    file = FileFactory(actor=actor, **fields)
    return Sample({"fileId": file.pk, **(arguments or {})}, private=[file.name])


@sample("createFileEntity")
def create_file_entity(actor: Any) -> Sample:
    return Sample({"name": "hello.txt", "text": "Hello"})


@sample("createFileFolder")
def create_file_folder(actor: Any) -> Sample:
    return Sample({"name": "Contracts"})


@sample("saveChatUploadToFiles")
def save_chat_upload_to_files(actor: Any) -> Sample:
    return Sample({"name": "pasted.csv", "contentBase64": base64.b64encode(b"a,b\n1,2\n").decode()})


@sample("saveFileToContact")
def save_file_to_contact(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    return Sample(
        {"contactId": contact.pk, "name": "scan.txt", "text": "signed"}, private=[contact.first_name]
    )


@sample("copyFile")
def copy_file(actor: Any) -> Sample:
    return _file(actor)


@sample("getFileEntity")
def get_file_entity(actor: Any) -> Sample:
    return _file(actor)


@sample("listFiles")
def list_files(actor: Any) -> Sample:
    file = FileFactory(actor=actor)
    return Sample({"limit": 100}, private=[file.name])


@sample("readFileContent")
def read_file_content(actor: Any) -> Sample:
    secret = f"Secret{uuid.uuid4().hex[:10]}"
    file = FileFactory(actor=actor, text=f"the text {secret}")
    return Sample({"fileId": file.pk}, private=[file.name, secret])


@sample("downloadFileEntity")
def download_file_entity(actor: Any) -> Sample:
    return _file(actor)


@sample("getFileWorkingPath")
def get_file_working_path(actor: Any) -> Sample:
    folder = FolderFactory(actor=actor)
    return _file(actor, folder=folder)


@sample("moveFile")
def move_file(actor: Any) -> Sample:
    folder = FolderFactory(actor=actor)
    return _file(actor, {"folderId": folder.pk})


@sample("moveFileEntity")
def move_file_entity(actor: Any) -> Sample:
    folder, target = FolderFactory(actor=actor), FolderFactory(actor=actor)
    return Sample({"type": "folder", "id": folder.pk, "targetFolderId": target.pk}, private=[folder.name])


@sample("renameFileEntity")
def rename_file_entity(actor: Any) -> Sample:
    file = FileFactory(actor=actor)
    return Sample({"type": "file", "id": file.pk, "name": "renamed.txt"}, private=[file.name])


@sample("shareFile")
def share_file(actor: Any) -> Sample:
    return _file(actor, {"personEmail": "member@acme.example", "access": "edit"})


@sample("attachEntityFile")
def attach_entity_file(actor: Any) -> Sample:
    contact = ContactFactory(actor=actor)
    return _file(actor, {"entityType": "contact", "entityId": contact.pk})


@sample("emailFileAsAttachment")
def email_file_as_attachment(actor: Any) -> Sample:
    # Sent from the person's mailbox through the mail app, on the test process's mail server.
    sent = _file(actor, {"to": ["partner@example.org"], "subject": "The file"})
    sent.around = using_local_server
    return sent


@sample("deleteFileEntity")
def delete_file_entity(actor: Any) -> Sample:
    return _file(actor)


@sample("restoreFile")
def restore_file(actor: Any) -> Sample:
    file = FileFactory(actor=actor)
    services.file_trash(actor=actor, file=file)
    return Sample({"fileId": file.pk}, private=[file.name])


@sample("listFileTrash")
def list_file_trash(actor: Any) -> Sample:
    file = FileFactory(actor=actor)
    services.file_trash(actor=actor, file=file)
    return Sample({}, private=[file.name])
