"""Every Documents tool through the real dispatcher: a normal call and its effect, bad input that
names the problem and writes nothing, refusals; the rich text is sanitised and the PDF is real."""

import io

import pytest
from django.test import override_settings
from django_tenants.utils import schema_context
from pypdf import PdfReader

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
from apps.documents.models import Document, DocumentFolder, DocumentShare, DocumentVersion
from apps.documents.tests.factories import DocumentFactory, DocumentFolderFactory
from apps.files import services as files
from apps.files.models import Attachment, File
from apps.files.tests.factories import FileFactory

DOCUMENT_TOOLS = tools_of("documents")
CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def test_the_area_has_its_nine_tools():
    assert sorted(spec.name for spec in DOCUMENT_TOOLS) == [
        "createDocument",
        "createDocumentFolder",
        "deleteDocument",
        "exportDocumentToPdf",
        "getDocument",
        "listDocuments",
        "moveDocument",
        "shareDocument",
        "updateDocument",
    ]


@pytest.mark.parametrize("spec", DOCUMENT_TOOLS, ids=lambda spec: spec.name)
def test_a_role_without_the_permission_cannot_call_it(acme, spec):
    assert_refused_without_its_permission(spec)


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("createDocument", {"title": "x"}),
        ("updateDocument", {"documentId": 1, "title": "x"}),
        ("exportDocumentToPdf", {"documentId": 1}),
        ("deleteDocument", {"documentId": 1}),
    ],
)
def test_viewers_may_read_but_not_write(people, name, arguments):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], name, arguments)


# --- writing ------------------------------------------------------------------------------------


def test_create_document_from_markdown_keeps_sanitised_html_and_version_one(people):
    folder = DocumentFolderFactory(actor=people["member"], name="Policies")

    answer = ok(
        people["member"],
        "createDocument",
        {
            "title": "  Travel   policy ",
            "content": "# Travel\n\nBook **economy**. [Portal](https://example.org)\n\n<script>alert(1)</script>",
            "folderId": folder.pk,
        },
    )

    document = Document.objects.get(pk=answer["id"])
    assert (answer["title"], answer["version"], answer["path"]) == (
        "Travel policy",
        1,
        "/Policies/Travel policy",
    )
    assert "<h1>Travel</h1>" in document.body_html
    assert "<strong>economy</strong>" in document.body_html
    assert 'href="https://example.org"' in document.body_html
    assert "<script>" not in document.body_html
    assert "Book economy. Portal" in document.body_text
    assert list(document.versions.values_list("number", flat=True)) == [1]


@pytest.mark.parametrize(
    ("content", "fmt", "kept", "gone"),
    [
        ('<p onclick="steal()">Hi<img src=x onerror=alert(1)></p>', "html", "<p>Hi</p>", "onerror"),
        (
            '<a href="javascript:alert(1)">x</a><iframe src="https://evil"></iframe>',
            "html",
            "x",
            "javascript:",
        ),
        ("<b>not bold</b>\n\nline", "text", "&lt;b&gt;not bold&lt;/b&gt;", "<b>"),
        ("<style>p{}</style>**b**", "markdown", "<strong>b</strong>", "<style>"),
    ],
)
def test_rich_text_is_sanitised_whatever_the_format(people, content, fmt, kept, gone):
    answer = ok(people["member"], "createDocument", {"title": "T", "content": content, "format": fmt})

    body = Document.objects.get(pk=answer["id"]).body_html
    assert kept in body
    assert gone not in body


def test_create_document_folder_nests(people):
    parent = ok(people["member"], "createDocumentFolder", {"name": "Legal"})
    child = ok(people["member"], "createDocumentFolder", {"name": "Contracts", "parentId": parent["id"]})

    assert child["path"] == "/Legal/Contracts"
    assert DocumentFolder.objects.get(pk=child["id"]).parent_id == parent["id"]


def test_update_document_keeps_every_previous_version(people):
    document = DocumentFactory(actor=people["member"], title="Plan", content="first")

    second = ok(
        people["member"], "updateDocument", {"documentId": document.pk, "content": "second", "note": "v2"}
    )
    third = ok(
        people["member"],
        "updateDocument",
        {"documentId": document.pk, "content": "\n\nthird part", "mode": "append", "title": "Plan B"},
    )
    same = ok(people["member"], "updateDocument", {"documentId": document.pk, "title": "Plan B"})

    assert (second["previousVersion"], second["document"]["version"], second["changed"]) == (1, 2, True)
    assert third["document"]["version"] == 3
    assert same["changed"] is False
    versions = {v.number: v for v in DocumentVersion.objects.filter(document=document)}
    assert sorted(versions) == [1, 2, 3]
    assert (versions[1].body_text, versions[2].body_text, versions[2].note) == ("first", "second", "v2")
    assert versions[3].body_text == "second\n\nthird part"
    assert versions[3].title == "Plan B"


def test_update_document_refuses_a_stale_version_and_changes_nothing(people):
    document = DocumentFactory(actor=people["member"], content="base")
    ok(people["member"], "updateDocument", {"documentId": document.pk, "content": "theirs"})

    message = refused(
        people["member"],
        "updateDocument",
        {"documentId": document.pk, "content": "mine", "expectedVersion": 1},
    )

    assert "is at version 2, not 1" in message
    assert Document.objects.get(pk=document.pk).body_text == "theirs"
    assert DocumentVersion.objects.filter(document=document).count() == 2


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"title": "   "}, "The title is empty"),
        ({"title": "x" * 301}, "`title`"),
        ({"title": "ok", "format": "docx"}, "`format`"),
        ({"title": "ok", "folderId": 999999}, "Document folder 999999 was not found"),
    ],
)
def test_create_document_refuses_bad_input(people, arguments, expected):
    assert expected in refused(people["member"], "createDocument", arguments)
    assert not Document.objects.exists()


@override_settings(ATRIUM_DOCUMENTS_MAX_CHARS=100)
def test_a_document_too_long_is_refused(people):
    document = DocumentFactory(actor=people["member"], content="short")

    message = refused(
        people["member"], "updateDocument", {"documentId": document.pk, "content": "word " * 100}
    )

    assert "the most is 100" in message or "at most 100" in message
    assert Document.objects.get(pk=document.pk).version == 1


def test_update_without_changes_is_refused(people):
    document = DocumentFactory(actor=people["member"])
    assert "Say what to change" in refused(people["member"], "updateDocument", {"documentId": document.pk})


def test_move_document(people):
    folder = DocumentFolderFactory(actor=people["member"])
    document = DocumentFactory(actor=people["member"])

    moved = ok(people["member"], "moveDocument", {"documentId": document.pk, "folderId": folder.pk})
    back = ok(people["member"], "moveDocument", {"documentId": document.pk, "folderId": None})
    unknown = refused(people["member"], "moveDocument", {"documentId": document.pk, "folderId": 999999})

    assert moved["folder"]["id"] == folder.pk
    assert back["folder"] is None
    assert "Document folder 999999 was not found" in unknown


def test_share_document_lets_one_person_see_a_private_document(people):
    document = DocumentFactory(actor=people["owner"], visibility="private")
    hidden = refused(people["member"], "getDocument", {"documentId": document.pk})

    shared = ok(
        people["owner"], "shareDocument", {"documentId": document.pk, "personEmail": "member@acme.example"}
    )
    seen = ok(people["member"], "getDocument", {"documentId": document.pk})
    read_only = refused(people["member"], "updateDocument", {"documentId": document.pk, "content": "mine"})

    assert f"Document {document.pk} was not found" in hidden
    assert [share["access"] for share in shared["sharedWith"]] == ["view"]
    assert seen["yourAccess"] == "view"
    assert "but not change it" in read_only
    assert DocumentShare.objects.filter(item=document, user=people["member"]).exists()


def test_only_the_owner_makes_a_document_private(people):
    document = DocumentFactory(actor=people["owner"])
    message = refused(people["member"], "shareDocument", {"documentId": document.pk, "visibility": "private"})
    assert "Only its owner" in message
    assert Document.objects.get(pk=document.pk).visibility == "workspace"


def test_delete_document_puts_it_in_the_trash(people, acme_client):
    document = DocumentFactory(actor=people["member"])

    asked = call(people["admin"], "deleteDocument", {"documentId": document.pk})
    deleted = ok(people["admin"], "deleteDocument", {"documentId": document.pk}, **CONFIRM)
    gone = refused(people["member"], "getDocument", {"documentId": document.pk})

    assert asked["isError"] and "Confirmation required" in asked["content"][0]["text"]
    assert deleted["inTrash"] is True
    assert "is in the trash" in gone
    assert Document.objects.get(pk=document.pk).deleted_at is not None
    assert DocumentVersion.objects.filter(document=document).exists()


def test_get_document_reads_an_earlier_version(people):
    document = DocumentFactory(actor=people["member"], title="Memo", content="old words")
    ok(people["member"], "updateDocument", {"documentId": document.pk, "content": "new words"})

    current = ok(people["viewer"], "getDocument", {"documentId": document.pk, "format": "text"})
    first = ok(people["viewer"], "getDocument", {"documentId": document.pk, "version": 1})
    missing = refused(people["viewer"], "getDocument", {"documentId": document.pk, "version": 7})

    assert (current["contentText"], current["contentHtml"]) == ("new words", None)
    assert (first["shownVersion"], first["contentText"]) == (1, "old words")
    assert [v["number"] for v in current["versions"]] == [2, 1]
    assert "has no version 7" in missing


def test_list_documents_by_folder_and_by_words(people):
    folder = DocumentFolderFactory(actor=people["member"], name="Board")
    DocumentFactory(actor=people["member"], title="Agenda", content="budget review", folder=folder)
    DocumentFactory(actor=people["member"], title="Elsewhere", content="nothing")

    root = ok(people["viewer"], "listDocuments", {})
    inside = ok(people["viewer"], "listDocuments", {"folderId": folder.pk})
    found = ok(people["viewer"], "listDocuments", {"query": "BUDGET"})

    assert "Board" in [f["name"] for f in root["folders"]]
    assert [d["title"] for d in inside["documents"]["items"]] == ["Agenda"]
    assert [d["title"] for d in found["documents"]["items"]] == ["Agenda"]


def test_ids_of_another_workspace_are_not_found(people, globex):
    with schema_context("globex"):
        from apps.accounts.models import User

        document = DocumentFactory(actor=User.objects.get(email="owner@globex.example"))

    for name, arguments in (
        ("getDocument", {"documentId": document.pk}),
        ("updateDocument", {"documentId": document.pk, "title": "x"}),
        ("exportDocumentToPdf", {"documentId": document.pk}),
    ):
        assert "was not found" in refused(people["owner"], name, arguments)


# --- export -------------------------------------------------------------------------------------


def test_export_document_to_pdf_saves_a_real_pdf_in_files(people):
    document = DocumentFactory(
        actor=people["member"],
        title="Offer: Q3/2026",
        content=(
            "# Offer\n\nDear client, the price is **1 200 €**.\n\n- item one\n- item two\n\n"
            "| a | b |\n|---|---|\n| 1 | 2 |"
        ),
    )

    answer = ok(people["member"], "exportDocumentToPdf", {"documentId": document.pk})

    file = File.objects.get(pk=answer["file"]["id"])
    data = files.file_bytes(file)
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)
    assert data.startswith(b"%PDF-")
    assert (file.mime_type, file.source, answer["file"]["path"]) == (
        "application/pdf",
        "export",
        "/Document exports/Offer- Q3-2026 v1.pdf",
    )
    assert "Dear client, the price is 1 200 €." in text
    assert "item two" in text
    assert Attachment.objects.filter(kind="file", item_id=file.pk, object_id=document.pk).exists()


def test_export_needs_the_right_to_add_files(acme):
    from apps.accounts.models import User

    writer = person_with({"documents.view", "documents.export", "files.view"}, email="writer@acme.example")
    document = DocumentFactory(actor=User.objects.get(email="member@acme.example"))

    message = refused(writer, "exportDocumentToPdf", {"documentId": document.pk})

    assert "may not add files" in message
    assert not File.objects.filter(source="export").exists()


def test_a_file_is_attached_to_a_contact_and_a_document(people):
    file = FileFactory(actor=people["member"])
    contact = ContactFactory(actor=people["member"])
    document = DocumentFactory(actor=people["member"])

    to_contact = ok(
        people["member"],
        "attachEntityFile",
        {"fileId": file.pk, "entityType": "contact", "entityId": contact.pk},
    )
    to_document = ok(
        people["member"],
        "attachEntityFile",
        {"fileId": file.pk, "entityType": "document", "entityId": document.pk},
    )
    again = ok(
        people["member"],
        "attachEntityFile",
        {"fileId": file.pk, "entityType": "document", "entityId": document.pk},
    )
    detached = ok(
        people["member"],
        "attachEntityFile",
        {"fileId": file.pk, "entityType": "contact", "entityId": contact.pk, "remove": True},
    )

    assert (to_contact["changed"], to_document["changed"], again["changed"], detached["changed"]) == (
        True,
        True,
        False,
        True,
    )
    assert Attachment.objects.filter(kind="file", item_id=file.pk, object_id=document.pk).count() == 1
    assert not ContactLink.objects.filter(contact=contact).exists()


# --- the scenario -------------------------------------------------------------------------------


def test_an_agent_writes_revises_exports_and_reads_back_a_document(people):
    """Write a document, update it twice, see its versions, export it to PDF, read the PDF's text
    back through Files, and hand it on to a contact."""
    agent = people["member"]
    folder = ok(agent, "createDocumentFolder", {"name": "Proposals"})
    created = ok(
        agent,
        "createDocument",
        {"title": "Proposal for Globex", "content": "# Scope\n\nPhase one.", "folderId": folder["id"]},
    )
    document_id = created["id"]
    ok(agent, "updateDocument", {"documentId": document_id, "content": "\n\nPhase two.", "mode": "append"})
    ok(
        agent,
        "updateDocument",
        {"documentId": document_id, "content": "# Scope\n\nPhase one.\n\nPhase two.\n\nPrice: 10 000 EUR."},
    )
    read = ok(agent, "getDocument", {"documentId": document_id})
    exported = ok(agent, "exportDocumentToPdf", {"documentId": document_id})
    pdf_text = ok(agent, "readFileContent", {"fileId": exported["file"]["id"]})
    contact = ContactFactory(actor=agent)
    ok(agent, "linkDocumentToContact", {"contactId": contact.pk, "documentId": document_id})
    ok(agent, "linkFileToContact", {"contactId": contact.pk, "fileId": exported["file"]["id"]})
    attachments = ok(people["viewer"], "getContactAttachments", {"contactId": contact.pk})
    after = ok(agent, "getDocument", {"documentId": document_id})

    assert [v["number"] for v in read["versions"]] == [3, 2, 1]
    assert "Price: 10 000 EUR." in read["contentText"]
    assert exported["version"] == 3
    assert "Proposal for Globex" in pdf_text["text"]
    assert "Price: 10 000 EUR." in pdf_text["text"]
    assert [d["title"] for d in attachments["documents"]] == ["Proposal for Globex"]
    assert [f["id"] for f in attachments["files"]] == [exported["file"]["id"]]
    assert [a["id"] for a in after["attachments"]] == [exported["file"]["id"]]


def test_the_documents_page_shows_documents_versions_and_restores_from_the_trash(people, acme_client):
    document = DocumentFactory(actor=people["member"], title="Handbook", content="**Welcome**")
    ok(people["member"], "updateDocument", {"documentId": document.pk, "content": "**Welcome** aboard"})
    ok(people["admin"], "deleteDocument", {"documentId": document.pk}, **CONFIRM)
    acme_client.force_login(people["admin"])

    listing = acme_client.get("/settings/documents/?view=trash").content.decode()
    detail = acme_client.get(f"/settings/documents/{document.pk}/").content.decode()
    first = acme_client.get(f"/settings/documents/{document.pk}/?version=1").content.decode()
    restored = acme_client.post(f"/settings/documents/{document.pk}/restore")

    assert "Handbook" in listing
    assert "<strong>Welcome</strong> aboard" in detail
    assert "aboard" not in first.split("<article")[1].split("</article>")[0]
    assert restored.status_code == 302
    assert Document.objects.get(pk=document.pk).deleted_at is None
