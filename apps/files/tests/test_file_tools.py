"""Every Files tool through the real dispatcher: a normal call with its effect on the records and
the storage, bad input that names the problem and writes nothing, and refusals."""

import base64
import email
import email.policy
import imaplib
import io
import os
import uuid

import pytest
from django.core import mail
from django.db import transaction
from django.test import override_settings
from django_tenants.utils import schema_context

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import (
    assert_refused_without_its_permission,
    call,
    confirmed,
    ok,
    person_with,
    refused,
    tools_of,
)
from apps.contacts.models import ContactLink
from apps.contacts.tests.factories import ContactFactory
from apps.core.kinds.testing import without_areas
from apps.files import blobs, services
from apps.files.models import Attachment, Delivery, File, FileShare, Folder
from apps.files.tests.factories import FileFactory, FolderFactory
from apps.mail.testing import using_local_server

FILE_TOOLS = tools_of("files")


def stored_keys() -> set[str]:
    """Every key in the active workspace's storage under files/."""
    root = blobs.storage().path("files")
    found = set()
    for folder, _dirs, names in os.walk(root):
        for name in names:
            found.add(os.path.relpath(os.path.join(folder, name), blobs.storage().path("")))
    return found


# --- refusals -----------------------------------------------------------------------------------


def test_the_area_has_its_nineteen_tools():
    assert sorted(spec.name for spec in FILE_TOOLS) == sorted(
        [
            "attachEntityFile",
            "copyFile",
            "createFileEntity",
            "createFileFolder",
            "deleteFileEntity",
            "downloadFileEntity",
            "emailFileAsAttachment",
            "getFileEntity",
            "getFileWorkingPath",
            "listFileTrash",
            "listFiles",
            "moveFile",
            "moveFileEntity",
            "readFileContent",
            "renameFileEntity",
            "restoreFile",
            "saveChatUploadToFiles",
            "saveFileToContact",
            "shareFile",
        ]
    )


@pytest.mark.parametrize("spec", FILE_TOOLS, ids=lambda spec: spec.name)
def test_a_role_without_the_permission_cannot_call_it(acme, spec):
    assert_refused_without_its_permission(spec)


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("createFileEntity", {"name": "a.txt", "text": "x"}),
        ("deleteFileEntity", {"fileId": 1}),
        ("restoreFile", {"fileId": 1}),
        ("emailFileAsAttachment", {"fileId": 1, "to": ["a@example.org"]}),
    ],
)
def test_viewers_may_read_but_not_change(people, name, arguments):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], name, arguments)


def test_members_may_not_empty_the_trash(people):
    file = FileFactory(actor=people["member"])
    with pytest.raises(ToolNotFound):
        call(people["member"], "deleteFileEntity", {"fileId": file.pk})


# --- creating -----------------------------------------------------------------------------------


def test_create_file_entity_stores_text_and_binary_content(people):
    text = ok(people["member"], "createFileEntity", {"name": "notes.md", "text": "# Hi\nthere"})
    pdf_bytes = b"%PDF-1.4\n%binary\x00\xff"
    binary = ok(
        people["member"],
        "createFileEntity",
        {"name": "scan", "contentBase64": base64.b64encode(pdf_bytes).decode(), "description": "a scan"},
    )

    stored = File.objects.get(pk=text["id"])
    assert services.file_bytes(stored) == b"# Hi\nthere"
    assert (text["path"], text["mimeType"], text["size"], text["textReadable"]) == (
        "/notes.md",
        "text/markdown",
        10,
        True,
    )
    assert (binary["mimeType"], binary["size"], binary["description"]) == (
        "application/pdf",
        len(pdf_bytes),
        "a scan",
    )
    assert services.file_bytes(File.objects.get(pk=binary["id"])) == pdf_bytes
    assert text["owner"]["email"] == "member@acme.example"


def test_a_taken_name_gets_a_number_or_is_refused(people):
    folder = FolderFactory(actor=people["member"])
    FileFactory(actor=people["member"], name="Report.txt", folder=folder)

    second = ok(
        people["member"], "createFileEntity", {"name": "report.txt", "text": "2", "folderId": folder.pk}
    )
    message = refused(
        people["member"],
        "createFileEntity",
        {"name": "REPORT.txt", "text": "3", "folderId": folder.pk, "ifExists": "error"},
    )

    assert second["name"] == "report (2).txt"
    assert "already in that folder" in message


def test_create_file_folder_nests_folders(people):
    parent = ok(people["member"], "createFileFolder", {"name": "Contracts"})
    child = ok(people["member"], "createFileFolder", {"name": "2026", "parentId": parent["id"]})

    assert child["path"] == "/Contracts/2026"
    assert child["parent"]["id"] == parent["id"]
    assert Folder.objects.get(pk=child["id"]).parent_id == parent["id"]


def test_save_chat_upload_to_files_keeps_it_in_the_chat_folder(people):
    answer = ok(
        people["member"],
        "saveChatUploadToFiles",
        {"name": "pasted.csv", "contentBase64": base64.b64encode(b"a,b\n1,2\n").decode()},
    )

    file = File.objects.get(pk=answer["id"])
    assert answer["path"] == "/Chat uploads/pasted.csv"
    assert (file.source, file.mime_type) == ("chat", "text/csv")
    assert file.origin.startswith("session ")


def test_save_file_to_contact_links_it_to_the_contact(people):
    contact = ContactFactory(actor=people["member"])

    answer = ok(
        people["member"], "saveFileToContact", {"contactId": contact.pk, "name": "id.txt", "text": "ok"}
    )
    listed = ok(people["viewer"], "listContactFiles", {"contactId": contact.pk})

    assert answer["file"]["path"] == "/Contacts/id.txt"
    assert ContactLink.objects.filter(contact=contact, kind="file", target_id=answer["file"]["id"]).exists()
    assert [(item["id"], item["title"], item["available"]) for item in listed["items"]] == [
        (answer["file"]["id"], "id.txt", True)
    ]


def test_save_file_to_a_contact_one_may_not_change_writes_nothing(people):
    contact = ContactFactory(actor=people["owner"], visibility="private")
    before = stored_keys()

    message = refused(
        people["member"], "saveFileToContact", {"contactId": contact.pk, "name": "x.txt", "text": "x"}
    )

    assert f"Contact {contact.pk} was not found" in message
    assert not File.objects.filter(name="x.txt").exists()
    assert stored_keys() == before


def test_copy_file_duplicates_the_bytes_under_a_new_key(people):
    folder = FolderFactory(actor=people["member"])
    file = FileFactory(actor=people["member"], name="a.txt", text="same bytes")

    copy = ok(people["member"], "copyFile", {"fileId": file.pk, "folderId": folder.pk})
    beside = ok(people["member"], "copyFile", {"fileId": file.pk})

    copied = File.objects.get(pk=copy["id"])
    assert copy["path"] == f"/{folder.name}/a.txt"
    assert beside["name"] == "a (2).txt"
    assert copied.blob != file.blob
    assert services.file_bytes(copied) == b"same bytes"
    assert copied.source == "copy"


# --- reading ------------------------------------------------------------------------------------


def test_get_file_entity_tells_sharing_attachments_and_access(people):
    file = FileFactory(actor=people["member"])
    contact = ContactFactory(actor=people["member"])
    ok(
        people["member"],
        "attachEntityFile",
        {"fileId": file.pk, "entityType": "contact", "entityId": contact.pk},
    )

    answer = ok(people["viewer"], "getFileEntity", {"fileId": file.pk})

    assert answer["file"]["id"] == file.pk
    assert answer["attachedTo"] == [{"entityType": "contact", "entityId": contact.pk}]
    assert answer["sharing"]["visibility"] == "workspace"
    assert answer["yourAccess"] == "view"


def test_list_files_gives_folders_first_then_files_and_searches_by_name(people):
    folder = FolderFactory(actor=people["member"], name="Zeta")
    FileFactory(actor=people["member"], name="alpha.txt")
    FileFactory(actor=people["member"], name="inside-alpha.txt", folder=folder)
    FileFactory(actor=people["member"], name="photo.png", text="\x89PNG")

    root = ok(people["viewer"], "listFiles", {"limit": 100})
    inside = ok(people["viewer"], "listFiles", {"path": "/zeta"})
    found = ok(people["viewer"], "listFiles", {"query": "alpha"})
    images = ok(people["viewer"], "listFiles", {"mimeType": "image/"})
    paged = ok(people["viewer"], "listFiles", {"limit": 1, "offset": 1})

    names = [entry["name"] for entry in root["entries"]["items"]]
    assert names.index("Zeta") < names.index("alpha.txt")
    assert [entry["name"] for entry in inside["entries"]["items"]] == ["inside-alpha.txt"]
    assert inside["folder"]["path"] == "/Zeta"
    assert {entry["name"] for entry in found["entries"]["items"]} == {"alpha.txt", "inside-alpha.txt"}
    assert [entry["name"] for entry in images["entries"]["items"]] == ["photo.png"]
    assert paged["entries"]["items"][0]["type"] == "file"


def _office_files() -> dict[str, tuple[bytes, str]]:
    import docx
    from openpyxl import Workbook
    from pptx import Presentation
    from reportlab.pdfgen import canvas

    pdf = io.BytesIO()
    page = canvas.Canvas(pdf)
    page.drawString(72, 720, "Invoice 42 total 99 EUR")
    page.save()
    word = io.BytesIO()
    document = docx.Document()
    document.add_paragraph("Contract between Acme and Globex")
    document.save(word)
    sheet = io.BytesIO()
    workbook = Workbook()
    workbook.active.title = "Budget"
    workbook.active.append(["item", "cost"])
    workbook.active.append(["rent", 1200])
    workbook.save(sheet)
    slides = io.BytesIO()
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Roadmap 2027"
    deck.save(slides)
    return {
        "invoice.pdf": (pdf.getvalue(), "Invoice 42 total 99 EUR"),
        "contract.docx": (word.getvalue(), "Contract between Acme and Globex"),
        "budget.xlsx": (sheet.getvalue(), "rent\t1200"),
        "roadmap.pptx": (slides.getvalue(), "Roadmap 2027"),
        "notes.txt": ("Ünïcode notes".encode(), "Ünïcode notes"),
    }


@pytest.mark.parametrize("name", ["invoice.pdf", "contract.docx", "budget.xlsx", "roadmap.pptx", "notes.txt"])
def test_read_file_content_extracts_text_of_each_format(people, name):
    data, expected = _office_files()[name]
    created = ok(
        people["member"], "createFileEntity", {"name": name, "contentBase64": base64.b64encode(data).decode()}
    )

    answer = ok(people["viewer"], "readFileContent", {"fileId": created["id"]})

    assert expected in answer["text"]
    assert answer["nextOffset"] is None
    assert File.objects.get(pk=created["id"]).text == answer["text"]


def test_read_file_content_pages_a_long_text(people):
    file = FileFactory(actor=people["member"], text="x" * 250)

    first = ok(people["viewer"], "readFileContent", {"fileId": file.pk, "maxChars": 100})
    last = ok(people["viewer"], "readFileContent", {"fileId": file.pk, "maxChars": 100, "offset": 200})

    assert (len(first["text"]), first["nextOffset"], first["totalChars"]) == (100, 100, 250)
    assert (len(last["text"]), last["nextOffset"]) == (50, None)


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("photo.png", b"\x89PNG\r\n\x1a\n\x00\x00binary", "have no text to read"),
        ("broken.docx", b"PK\x03\x04 not really a zip", "could not be read"),
        ("broken.pdf", b"%PDF-1.4 garbage", "could not be read"),
    ],
)
def test_read_file_content_says_when_there_is_no_text(people, name, content, expected):
    file = services.file_create(actor=people["member"], name=name, content=content)

    assert expected in refused(people["viewer"], "readFileContent", {"fileId": file.pk})


def test_download_file_entity_gives_small_files_inline_and_a_working_link(people, acme_client):
    file = FileFactory(actor=people["member"], name="hello.txt", text="hello bytes")

    answer = ok(people["viewer"], "downloadFileEntity", {"fileId": file.pk})
    response = acme_client.get(_link_path(answer["url"]))

    assert base64.b64decode(answer["contentBase64"]) == b"hello bytes"
    assert answer["inline"] is True
    assert answer["url"].startswith("http://")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == b"hello bytes"
    assert 'filename="hello.txt"' in response["Content-Disposition"]


def _link_path(url: str) -> str:
    return "/" + url.split("://", 1)[1].split("/", 1)[1]


def test_download_links_stop_working_when_tampered_trashed_or_in_another_workspace(
    people, acme_client, globex_client
):
    file = FileFactory(actor=people["member"])
    link = _link_path(ok(people["viewer"], "downloadFileEntity", {"fileId": file.pk, "mode": "link"})["url"])

    elsewhere = globex_client.get(link)
    tampered = acme_client.get(link[:-3] + "abc")
    services.file_trash(actor=people["admin"], file=file)
    trashed = acme_client.get(link)

    assert (elsewhere.status_code, tampered.status_code, trashed.status_code) == (404, 404, 404)


@override_settings(ATRIUM_FILES_INLINE_MAX_BYTES=10)
def test_large_files_come_as_a_link_only(people):
    file = FileFactory(actor=people["member"], text="more than ten bytes")

    answer = ok(people["viewer"], "downloadFileEntity", {"fileId": file.pk})
    message = refused(people["viewer"], "downloadFileEntity", {"fileId": file.pk, "mode": "inline"})

    assert (answer["inline"], answer["contentBase64"]) == (False, None)
    assert "Use mode link" in message


def test_get_file_working_path_goes_both_ways(people):
    parent = FolderFactory(actor=people["member"], name="Contracts")
    child = FolderFactory(actor=people["member"], name="2026", parent=parent)
    file = FileFactory(actor=people["member"], name="offer.pdf", folder=child)

    by_id = ok(people["viewer"], "getFileWorkingPath", {"fileId": file.pk})
    by_path = ok(people["viewer"], "getFileWorkingPath", {"path": "/contracts/2026/OFFER.pdf"})
    folder = ok(people["viewer"], "getFileWorkingPath", {"path": "/Contracts/2026"})

    assert by_id["path"] == "/Contracts/2026/offer.pdf"
    assert [f["name"] for f in by_id["folders"]] == ["Contracts", "2026"]
    assert by_id["downloadPath"].startswith("/files/download/")
    assert (by_path["type"], by_path["id"]) == ("file", file.pk)
    assert (folder["type"], folder["id"]) == ("folder", child.pk)


# --- changing -----------------------------------------------------------------------------------


def test_move_file_and_move_file_entity(people):
    source, target = FolderFactory(actor=people["member"]), FolderFactory(actor=people["member"])
    file = FileFactory(actor=people["member"], folder=source)

    moved = ok(people["member"], "moveFile", {"fileId": file.pk, "folderId": target.pk})
    to_root = ok(people["member"], "moveFileEntity", {"type": "file", "id": file.pk, "targetFolderId": None})
    folder = ok(
        people["member"], "moveFileEntity", {"type": "folder", "id": source.pk, "targetFolderId": target.pk}
    )

    assert moved["folder"]["id"] == target.pk
    assert to_root["file"]["folder"] is None
    assert folder["folder"]["path"] == f"/{target.name}/{source.name}"


def test_a_folder_cannot_move_into_its_own_sub_folder(people):
    parent = FolderFactory(actor=people["member"])
    child = FolderFactory(actor=people["member"], parent=parent)

    message = refused(
        people["member"], "moveFileEntity", {"type": "folder", "id": parent.pk, "targetFolderId": child.pk}
    )
    itself = refused(
        people["member"], "moveFileEntity", {"type": "folder", "id": parent.pk, "targetFolderId": parent.pk}
    )

    assert "cannot be moved into itself or one of its own sub-folders" in message
    assert "cannot be moved into itself" in itself
    assert Folder.objects.get(pk=parent.pk).parent_id is None


def test_rename_file_entity(people):
    file = FileFactory(actor=people["member"], name="draft.txt")
    folder = FolderFactory(actor=people["member"], name="Old")

    renamed = ok(people["member"], "renameFileEntity", {"type": "file", "id": file.pk, "name": "final.txt"})
    folder_renamed = ok(
        people["member"], "renameFileEntity", {"type": "folder", "id": folder.pk, "name": "New"}
    )

    assert renamed["file"]["name"] == "final.txt"
    assert folder_renamed["folder"]["path"] == "/New"


@pytest.mark.parametrize("name", ["a/b.txt", "..", "what?.txt", "   ", "con", "x" * 256, "bell\x07.txt"])
def test_names_that_are_not_allowed_are_refused(people, name):
    file = FileFactory(actor=people["member"], name="keep.txt")

    message = refused(people["member"], "renameFileEntity", {"type": "file", "id": file.pk, "name": name})

    assert "not allowed" in message or "at most 255" in message or "`name`" in message
    assert File.objects.get(pk=file.pk).name == "keep.txt"


def test_share_file_makes_a_private_file_visible_to_one_person(people):
    file = FileFactory(actor=people["owner"], visibility="private")
    hidden = refused(people["member"], "getFileEntity", {"fileId": file.pk})

    shared = ok(
        people["owner"],
        "shareFile",
        {"fileId": file.pk, "personEmail": "member@acme.example", "access": "edit"},
    )
    seen = ok(people["member"], "getFileEntity", {"fileId": file.pk})
    still_hidden = refused(people["viewer"], "getFileEntity", {"fileId": file.pk})

    assert f"File {file.pk} was not found" in hidden
    assert shared["sharedWith"] == [
        {
            "person": {
                "id": people["member"].pk,
                "email": "member@acme.example",
                "name": people["member"].full_name or "member@acme.example",
            },
            "access": "edit",
        }
    ]
    assert seen["yourAccess"] == "edit"
    assert f"File {file.pk} was not found" in still_hidden
    assert FileShare.objects.filter(item=file, user=people["member"], access="edit").exists()


def test_share_file_refuses_unknown_people_and_saying_nothing(people):
    file = FileFactory(actor=people["member"])

    assert "Nobody in this workspace" in refused(
        people["member"], "shareFile", {"fileId": file.pk, "personEmail": "x@nowhere.example"}
    )
    assert "Say what to change" in refused(people["member"], "shareFile", {"fileId": file.pk})


def test_attach_entity_file_names_what_is_wrong(people):
    file = FileFactory(actor=people["member"])

    unknown_type = refused(
        people["member"], "attachEntityFile", {"fileId": file.pk, "entityType": "spaceship", "entityId": 1}
    )
    unknown_record = refused(
        people["member"], "attachEntityFile", {"fileId": file.pk, "entityType": "contact", "entityId": 999999}
    )
    unknown_file = refused(
        people["member"],
        "attachEntityFile",
        {"fileId": 999999, "entityType": "contact", "entityId": ContactFactory(actor=people["member"]).pk},
    )

    assert "'spaceship' is not a kind of record" in unknown_type and "contact" in unknown_type
    assert "Contact 999999 was not found" in unknown_record
    assert "File 999999 was not found" in unknown_file
    assert not Attachment.objects.exists() and not ContactLink.objects.filter(target_id=999999).exists()


def test_email_file_as_attachment_sends_from_the_person_s_mailbox_through_the_mail_app(people):
    file = FileFactory(actor=people["member"], name="offer.txt", text="the offer")
    recipient = f"buyer-{file.pk}-{uuid.uuid4().hex[:8]}@example.org"
    with using_local_server() as server:
        answer = ok(
            people["member"],
            "emailFileAsAttachment",
            {"fileId": file.pk, "to": [recipient], "subject": "Our offer", "message": "See attached."},
            capabilities={"elicitation": {}},
            elicit=confirmed,
        )
        host, _, port = server["ATRIUM_MAIL_LOCAL_IMAP"].rpartition(":")
        client = imaplib.IMAP4(host, int(port))
        client.login(recipient, server["ATRIUM_MAIL_LOCAL_PASSWORD"])
        client.select("INBOX", readonly=True)
        _status, data = client.fetch("1:*", "(BODY.PEEK[])")
        client.logout()
    received = [
        email.message_from_bytes(item[1], policy=email.policy.default)
        for item in data
        if isinstance(item, tuple)
    ]
    assert len(received) == 1 and answer["recipients"] == [recipient]
    [sent] = received
    assert sent["From"].addresses[0].addr_spec == "member@acme.example" and sent["Subject"] == "Our offer"
    [attached] = list(sent.iter_attachments())
    assert attached.get_filename() == "offer.txt" and attached.get_content() in (b"the offer", "the offer")
    assert mail.outbox == [] and Delivery.objects.filter(file=file).count() == 1


def test_email_file_as_attachment_sends_a_real_email_once_confirmed(people):
    """Without the Email Inbox area the file goes through Django's e-mail backend."""
    with without_areas("emailinbox"):
        file = FileFactory(actor=people["member"], name="offer.txt", text="the offer")
        mail.outbox.clear()

        asked = call(people["member"], "emailFileAsAttachment", {"fileId": file.pk, "to": ["a@example.org"]})
        assert asked["isError"] and "Confirmation required" in asked["content"][0]["text"]
        assert mail.outbox == []

        answer = ok(
            people["member"],
            "emailFileAsAttachment",
            {
                "fileId": file.pk,
                "to": ["A@example.org", "b@example.org"],
                "subject": "Our offer",
                "message": "See attached.",
            },
            capabilities={"elicitation": {}},
            elicit=confirmed,
        )

        [sent] = mail.outbox
        assert (sent.subject, sent.to, sent.body) == (
            "Our offer",
            ["a@example.org", "b@example.org"],
            "See attached.",
        )
        assert sent.attachments[0][0] == "offer.txt" and sent.attachments[0][1] in (b"the offer", "the offer")
        assert sent.reply_to == ["member@acme.example"]
        assert answer["recipients"] == ["a@example.org", "b@example.org"]
        assert Delivery.objects.filter(file=file).count() == 1


def test_email_file_refuses_bad_addresses_and_large_files(people):
    file = FileFactory(actor=people["member"], text="x" * 100)
    mail.outbox.clear()
    context = {"capabilities": {"elicitation": {}}, "elicit": confirmed}

    bad = refused(
        people["member"], "emailFileAsAttachment", {"fileId": file.pk, "to": ["not an address"]}, **context
    )
    with override_settings(ATRIUM_FILES_EMAIL_MAX_BYTES=50):
        large = refused(
            people["member"], "emailFileAsAttachment", {"fileId": file.pk, "to": ["a@example.org"]}, **context
        )

    assert "is not an e-mail address" in bad
    assert "e-mails carry at most" in large
    assert mail.outbox == [] and not Delivery.objects.exists()


# --- the trash ----------------------------------------------------------------------------------


def test_delete_and_restore_a_file(people):
    folder = FolderFactory(actor=people["member"])
    file = FileFactory(actor=people["member"], name="gone.txt", folder=folder)
    context = {"capabilities": {"elicitation": {}}, "elicit": confirmed}

    deleted = ok(people["admin"], "deleteFileEntity", {"fileId": file.pk}, **context)
    trash = ok(people["viewer"], "listFileTrash", {})
    listed = ok(people["viewer"], "listFiles", {"folderId": folder.pk})
    FileFactory(actor=people["member"], name="gone.txt", folder=folder)
    restored = ok(people["admin"], "restoreFile", {"fileId": file.pk})

    assert (deleted["permanently"], deleted["count"]) == (False, 1)
    assert [(entry["id"], entry["wasIn"]) for entry in trash["items"]] == [(file.pk, folder.path)]
    assert listed["entries"]["total"] == 0
    assert restored["path"] == f"{folder.path}/gone (2).txt"
    assert File.objects.get(pk=file.pk).deleted_at is None


def test_a_folder_goes_to_the_trash_and_comes_back_with_its_contents(people):
    top = FolderFactory(actor=people["member"])
    inner = FolderFactory(actor=people["member"], parent=top)
    file = FileFactory(actor=people["member"], folder=inner)
    already = FileFactory(actor=people["member"], folder=inner)
    services.file_trash(actor=people["admin"], file=already)
    context = {"capabilities": {"elicitation": {}}, "elicit": confirmed}

    deleted = ok(people["admin"], "deleteFileEntity", {"folderId": top.pk}, **context)
    trash = ok(people["viewer"], "listFileTrash", {})
    half = refused(people["admin"], "restoreFile", {"folderId": inner.pk})
    restored = ok(people["admin"], "restoreFile", {"folderId": top.pk})

    assert deleted["count"] == 3
    assert {entry["id"] for entry in trash["items"]} == {top.pk, already.pk}
    assert f"went to the trash with folder {top.pk}" in half
    assert restored["count"] == 3
    assert File.objects.get(pk=file.pk).deleted_at is None
    assert File.objects.get(pk=already.pk).deleted_at is not None


def test_restoring_into_a_trashed_folder_is_refused(people):
    folder = FolderFactory(actor=people["member"])
    file = FileFactory(actor=people["member"], folder=folder)
    services.file_trash(actor=people["admin"], file=file)
    services.folder_trash(actor=people["admin"], folder=folder)

    message = refused(people["admin"], "restoreFile", {"fileId": file.pk})
    to_root = ok(people["admin"], "restoreFile", {"fileId": file.pk, "toRoot": True})

    assert "which is in the trash too" in message
    assert to_root["path"] == f"/{file.name}"


def test_erasing_removes_the_row_links_and_then_the_bytes(people, django_capture_on_commit_callbacks):
    file = FileFactory(actor=people["member"])
    contact = ContactFactory(actor=people["member"])
    ok(people["member"], "linkFileToContact", {"contactId": contact.pk, "fileId": file.pk})
    key = file.blob
    context = {"capabilities": {"elicitation": {}}, "elicit": confirmed}

    not_yet = refused(
        people["admin"], "deleteFileEntity", {"fileId": file.pk, "permanently": True}, **context
    )
    ok(people["admin"], "deleteFileEntity", {"fileId": file.pk}, **context)
    with django_capture_on_commit_callbacks(execute=True):
        erased = ok(people["admin"], "deleteFileEntity", {"fileId": file.pk, "permanently": True}, **context)

    assert "is not in the trash" in not_yet
    assert erased["permanently"] is True
    assert not File.objects.filter(pk=file.pk).exists()
    assert not ContactLink.objects.filter(target_id=file.pk).exists()
    assert not blobs.exists(key)


# --- bad input: nothing half-written ------------------------------------------------------------


@override_settings(ATRIUM_FILES_MAX_BYTES=1000)
@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("createFileEntity", {"name": "big.txt", "text": "x" * 1001}),
        ("createFileEntity", {"name": "big.bin", "contentBase64": base64.b64encode(b"x" * 1001).decode()}),
        (
            "saveChatUploadToFiles",
            {"name": "big.bin", "contentBase64": base64.b64encode(b"x" * 2000).decode()},
        ),
    ],
)
def test_a_file_over_the_limit_is_refused_and_nothing_is_written(people, name, arguments):
    before = stored_keys()

    message = refused(people["member"], name, arguments)

    assert "over this workspace's limit of 1000 bytes" in message
    assert not File.objects.filter(name__startswith="big").exists()
    assert stored_keys() == before


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"name": "a.txt"}, "either as `text` or as `contentBase64`"),
        ({"name": "a.txt", "text": "x", "contentBase64": "eA=="}, "either as `text` or as `contentBase64`"),
        ({"name": "a.bin", "contentBase64": "!!not base64!!"}, "not valid base64"),
        ({"name": "a/b.txt", "text": "x"}, "is not allowed"),
        ({"name": "a.txt", "text": "x", "folderId": 999999}, "Folder 999999 was not found"),
        ({"name": "a.txt", "text": "x", "colour": "red"}, "`colour` is not an argument it takes"),
    ],
)
def test_create_file_entity_refuses_bad_input(people, arguments, expected):
    before = stored_keys()

    assert expected in refused(people["member"], "createFileEntity", arguments)
    assert (
        not File.objects.exists() or not File.objects.filter(name__in=["a.txt", "a.bin", "a/b.txt"]).exists()
    )
    assert stored_keys() == before


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("getFileEntity", {"fileId": "{file}"}),
        ("readFileContent", {"fileId": "{file}"}),
        ("downloadFileEntity", {"fileId": "{file}"}),
        ("copyFile", {"fileId": "{file}"}),
        ("moveFile", {"fileId": "{file}", "folderId": None}),
        ("renameFileEntity", {"type": "file", "id": "{file}", "name": "x.txt"}),
        ("shareFile", {"fileId": "{file}", "visibility": "private"}),
        ("getFileWorkingPath", {"fileId": "{file}"}),
        ("listFiles", {"folderId": "{folder}"}),
        ("createFileFolder", {"name": "x", "parentId": "{folder}"}),
    ],
)
def test_ids_of_another_workspace_are_not_found(people, globex, name, arguments):
    with schema_context("globex"):
        from apps.accounts.models import User

        stranger = User.objects.get(email="owner@globex.example")
        folder = FolderFactory(actor=stranger)
        file = FileFactory(actor=stranger, folder=folder)
    filled = {
        key: (file.pk if value == "{file}" else folder.pk if value == "{folder}" else value)
        for key, value in arguments.items()
    }

    message = refused(people["owner"], name, filled)

    assert "was not found" in message


def test_bytes_written_in_a_transaction_that_rolls_back_are_removed(people):
    with pytest.raises(RuntimeError), transaction.atomic():
        file = FileFactory(actor=people["member"])
        key = file.blob
        assert blobs.exists(key)
        raise RuntimeError("the caller fails after the file was written")

    assert not blobs.exists(key)
    assert not File.objects.filter(blob=key).exists()


def test_a_person_with_only_files_view_reads_but_does_not_write(acme):
    from apps.accounts.models import User

    reader = person_with({"files.view"}, email="reader@acme.example")
    file = FileFactory(actor=User.objects.get(email="member@acme.example"))

    assert ok(reader, "getFileEntity", {"fileId": file.pk})["file"]["id"] == file.pk
    with pytest.raises(ToolNotFound):
        call(reader, "createFileEntity", {"name": "a.txt", "text": "x"})
