"""What a week of a team's documents found: a proposal drafted, revised and brought back to an
earlier version with its later history kept, shared with one colleague and not another, and
bad input refused without a crash."""

import contextlib
import secrets
import threading

import pytest
from django.db import connection
from django_tenants.utils import schema_context

from apps.accounts.models import User
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, ok, refused, text_of
from apps.documents import services
from apps.documents.models import Document, DocumentVersion
from apps.documents.tests.factories import DocumentFactory
from apps.files.models import File
from apps.files.tests.test_files_week import CONFIRM, HUGE, _failed_on_the_server


def test_a_proposal_is_revised_and_an_old_version_brought_back_keeps_the_later_ones(people):
    member = people["member"]
    draft = ok(
        member,
        "createDocument",
        {
            "title": "Proposal: Globex rollout",
            "content": "# Scope\n\n- Phase 1\n- Phase 2\n\n| a | b |\n|---|---|\n| 1 | 2 |",
        },
    )
    ok(
        member,
        "updateDocument",
        {"documentId": draft["id"], "content": "# Scope\n\nPhase 1 only.", "note": "cut"},
    )
    ok(member, "updateDocument", {"documentId": draft["id"], "content": "Budget: 10k", "mode": "append"})
    ok(member, "updateDocument", {"documentId": draft["id"], "title": "Proposal: Globex (v3)"})
    read = ok(member, "getDocument", {"documentId": draft["id"]})
    assert read["document"]["version"] == 4
    assert "Phase 1 only." in read["contentText"] and "Budget: 10k" in read["contentText"]
    assert [version["number"] for version in read["versions"]] == [4, 3, 2, 1]
    # Bring version 1 back: a fifth version with its body, the four before it kept.
    first = ok(member, "getDocument", {"documentId": draft["id"], "version": 1, "format": "html"})
    back = ok(
        member,
        "updateDocument",
        {
            "documentId": draft["id"],
            "content": first["contentHtml"],
            "format": "html",
            "title": first["title"],
            "expectedVersion": 4,
            "note": "back to version 1",
        },
    )
    assert back["changed"] and back["document"]["version"] == 5
    stored = Document.objects.get(pk=draft["id"])
    assert stored.body_html == DocumentVersion.objects.get(document=stored, number=1).body_html
    assert stored.title == "Proposal: Globex rollout"
    assert DocumentVersion.objects.filter(document=stored).count() == 5
    # An edit from a stale read is refused and loses nothing.
    said = refused(
        member, "updateDocument", {"documentId": draft["id"], "content": "oops", "expectedVersion": 4}
    )
    assert "version 5" in said
    assert Document.objects.get(pk=draft["id"]).body_html == stored.body_html


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("getDocument", {"documentId": 1, "version": HUGE}),
        ("createDocument", {"title": "A", "folderId": HUGE}),
        ("createDocumentFolder", {"name": "A", "parentId": HUGE}),
        ("listDocuments", {"folderId": HUGE}),
        ("moveDocument", {"documentId": 1, "folderId": HUGE}),
        ("updateDocument", {"documentId": 1, "content": "x", "expectedVersion": HUGE}),
        ("exportDocumentToPdf", {"documentId": 1, "version": HUGE}),
        ("exportDocumentToPdf", {"documentId": 1, "folderId": HUGE}),
    ],
)
def test_a_huge_number_is_refused_not_a_crash(people, name, arguments):
    member = people["member"]
    made = ok(member, "createDocument", {"title": "Numbers", "content": "one"})
    if "documentId" in arguments:
        arguments = {**arguments, "documentId": made["id"]}
    result = call(member, name, arguments)
    assert result["isError"] and not _failed_on_the_server(result), text_of(result)


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"title": "   "}, "title"),
        ({"title": "A", "content": "x" * 1_500_000, "format": "text"}, "content"),
    ],
)
def test_an_empty_title_or_an_oversized_body_is_refused_and_nothing_is_made(people, arguments, field):
    before = Document.objects.count()
    result = call(people["member"], "createDocument", arguments)
    assert result["isError"] and not _failed_on_the_server(result), text_of(result)
    assert Document.objects.count() == before


def test_a_private_proposal_is_shared_with_one_colleague_and_reaches_nobody_else(people, nora):
    member, viewer = people["member"], people["viewer"]
    proposal = ok(
        member,
        "createDocument",
        {
            "title": "Confidential pricing Zanzibar",
            "content": "Discount 40 percent quokka",
            "visibility": "private",
        },
    )
    ok(member, "updateDocument", {"documentId": proposal["id"], "content": "Discount 35 percent quokka"})
    for other in (nora, viewer):
        for word in ("Zanzibar", "quokka"):
            assert ok(other, "listDocuments", {"query": word})["documents"]["items"] == []
            assert ok(other, "searchWorkspace", {"query": word})["kinds"] == []
        for arguments in ({"documentId": proposal["id"]}, {"documentId": proposal["id"], "version": 1}):
            said = refused(other, "getDocument", arguments)
            assert "Zanzibar" not in said and "quokka" not in said
    ok(member, "shareDocument", {"documentId": proposal["id"], "personEmail": nora.email, "access": "edit"})
    assert ok(nora, "getDocument", {"documentId": proposal["id"], "version": 1})["contentText"].startswith(
        "Discount 40"
    )
    assert [item["id"] for item in ok(nora, "listDocuments", {"query": "quokka"})["documents"]["items"]] == [
        proposal["id"]
    ]
    refused(viewer, "getDocument", {"documentId": proposal["id"]})
    # Her edit keeps his text before it; she may not make it the workspace's.
    ok(nora, "updateDocument", {"documentId": proposal["id"], "content": "Signed off.", "mode": "append"})
    assert "Discount 35" in Document.objects.get(pk=proposal["id"]).body_text
    refused(nora, "shareDocument", {"documentId": proposal["id"], "visibility": "workspace"})
    # Her PDF of it is hers and private; the viewer finds it nowhere, he sees it as an attachment
    # he may not open.
    export = ok(nora, "exportDocumentToPdf", {"documentId": proposal["id"]})["file"]
    assert export["visibility"] == "private" and export["owner"]["email"] == nora.email
    assert ok(viewer, "listFiles", {"query": "Zanzibar"})["entries"]["items"] == []
    assert ok(viewer, "searchWorkspace", {"query": "Zanzibar"})["kinds"] == []
    attached = ok(member, "getDocument", {"documentId": proposal["id"]})["attachments"]
    assert [(item["id"], item["available"]) for item in attached] == [(export["id"], False)]
    assert "Zanzibar" not in str(attached)
    # Unshared: she reads it no more, by any version.
    ok(member, "shareDocument", {"documentId": proposal["id"], "personEmail": nora.email, "access": "none"})
    refused(nora, "getDocument", {"documentId": proposal["id"], "version": 2})
    refused(nora, "exportDocumentToPdf", {"documentId": proposal["id"], "version": 1})
    assert File.objects.filter(pk=export["id"]).exists()


def test_a_document_in_the_trash_is_neither_edited_nor_exported(people):
    member, admin = people["member"], people["admin"]
    doc = ok(member, "createDocument", {"title": "Old memo", "content": "gone soon"})
    with pytest.raises(ToolNotFound):  # a member's role does not delete documents
        call(member, "deleteDocument", {"documentId": doc["id"]}, **CONFIRM)
    ok(admin, "deleteDocument", {"documentId": doc["id"]}, **CONFIRM)
    for name, arguments in [
        ("updateDocument", {"documentId": doc["id"], "content": "x"}),
        ("exportDocumentToPdf", {"documentId": doc["id"]}),
        ("moveDocument", {"documentId": doc["id"], "folderId": None}),
        ("getDocument", {"documentId": doc["id"]}),
    ]:
        assert "trash" in refused(member, name, arguments)
    assert ok(member, "listDocuments", {"query": "memo"})["documents"]["items"] == []


@pytest.fixture
def minutes(committed):  # type: ignore[no-untyped-def]
    """A document of Acme's member, committed: two people append to it on two connections."""
    with schema_context("acme"):
        member = User.objects.get(email="member@acme.example")
        document = DocumentFactory(actor=member, title=f"Minutes {secrets.token_hex(4)}", content="Agenda")
    yield member, document
    with schema_context("acme"):
        Document.objects.filter(pk=document.pk).delete()


def test_two_people_appending_at_once_both_keep_their_lines(minutes, monkeypatch):
    """Each reads the document, then both save: the second waits for the first and appends to
    its version, rather than failing on the version number both would take."""
    member, document = minutes
    both_read = threading.Barrier(2, timeout=2)
    clean_body = services.clean_body

    def after_reading(*arguments, **keywords):  # type: ignore[no-untyped-def]
        with contextlib.suppress(threading.BrokenBarrierError):
            both_read.wait()  # with the row locked, the other is still waiting to read it
        return clean_body(*arguments, **keywords)

    monkeypatch.setattr(services, "clean_body", after_reading)
    answers: dict[str, dict] = {}  # type: ignore[type-arg]

    def append(line: str) -> None:
        try:
            with schema_context("acme"):
                answers[line] = call(
                    member, "updateDocument", {"documentId": document.pk, "content": line, "mode": "append"}
                )
        finally:
            connection.close()

    threads = [threading.Thread(target=append, args=(line,)) for line in ("Ada: yes", "Bo: no")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert all(not answer["isError"] for answer in answers.values()), answers
    # Each answer names the version it built on.
    built_on = sorted(answer["structuredContent"]["previousVersion"] for answer in answers.values())
    assert built_on == [1, 2]
    with schema_context("acme"):
        stored = Document.objects.get(pk=document.pk)
        assert stored.version == 3
        assert "Ada: yes" in stored.body_text and "Bo: no" in stored.body_text
        assert list(stored.versions.values_list("number", flat=True)) == [3, 2, 1]


@pytest.mark.parametrize(
    ("columns", "words"),
    [(3, 400), (40, 3)],
    ids=["a cell longer than a page", "forty columns"],
)
def test_a_proposal_with_a_long_or_wide_table_is_exported_to_pdf(people, columns, words):
    member = people["member"]
    head = "| " + " | ".join(f"Col{n}" for n in range(columns)) + " |\n|" + "---|" * columns + "\n"
    row = "| " + " | ".join(" ".join(f"w{n}" for n in range(words)) for _ in range(columns)) + " |\n"
    doc = ok(
        member,
        "createDocument",
        {"title": "Pricing table", "content": "Intro\n\n" + head + row + "\nThe end."},
    )
    export = ok(member, "exportDocumentToPdf", {"documentId": doc["id"]})["file"]
    text = ok(member, "readFileContent", {"fileId": export["id"], "maxChars": 80_000})["text"]
    assert "Pricing table" in text and "The end." in text
    if columns < 10:  # forty columns are narrow: their words break across lines
        assert f"w{words - 1}" in text


@pytest.mark.parametrize(
    "content",
    [
        "<p>Before</p><table><tr></tr></table><p>Deepest</p>",
        "<div>" * 500 + "<p>Deepest</p>" + "</div>" * 500,
        "<ul>" + "<li>level<ul>" * 300 + "<li>Deepest</li>" + "</ul></li>" * 300 + "</ul>",
    ],
    ids=["a table of no cells", "divs 500 deep", "a list 300 deep"],
)
def test_odd_html_is_exported_to_pdf_with_its_text(people, content):
    member = people["member"]
    doc = ok(member, "createDocument", {"title": "Pasted", "content": content, "format": "html"})
    export = ok(member, "exportDocumentToPdf", {"documentId": doc["id"]})["file"]
    text = ok(member, "readFileContent", {"fileId": export["id"], "maxChars": 80_000})["text"]
    assert "Deepest" in text


def test_the_pages_show_a_private_document_and_its_versions_to_nobody_else(people, nora, acme_client):
    member, admin = people["member"], people["admin"]
    secret = ok(
        member, "createDocument", {"title": "Zanzibar plan", "content": "quokka", "visibility": "private"}
    )
    ok(member, "updateDocument", {"documentId": secret["id"], "content": "quokka two"})
    gone = ok(
        member, "createDocument", {"title": "Zanzibar old", "content": "quokka", "visibility": "private"}
    )
    ok(admin, "deleteDocument", {"documentId": gone["id"]}, **CONFIRM)
    acme_client.force_login(nora)
    for url in ("/settings/documents/", "/settings/documents/?view=trash"):
        page = acme_client.get(url)
        assert page.status_code == 200 and "Zanzibar" not in page.content.decode()
    for url in (
        f"/settings/documents/{secret['id']}/",
        f"/settings/documents/{secret['id']}/?version=1",
        f"/settings/documents/{gone['id']}/",
        f"/settings/documents/{secret['id']}/?version=99999999999999999999",
    ):
        assert acme_client.get(url).status_code == 404, url
    acme_client.force_login(member)
    assert (
        acme_client.get(f"/settings/documents/{secret['id']}/?version=99999999999999999999").status_code
        == 404
    )
    assert "quokka" in acme_client.get(f"/settings/documents/{secret['id']}/?version=1").content.decode()


def test_a_save_outside_any_transaction_is_written(minutes):
    """A caller outside a tool call (a page, a script) has no transaction of its own."""
    member, document = minutes
    with schema_context("acme"):
        assert not connection.in_atomic_block
        saved, changed = services.document_update(actor=member, document=document, content="Next steps")
        assert changed and saved.version == 2
        assert Document.objects.get(pk=document.pk).body_text == "Next steps"
