"""What a week of a team's files found: folders tidied, moved and copied, odd and big uploads,
the trash, and one person's private file reaching nobody else on the way."""

import base64
import io
import zipfile

import pytest
from django.test import override_settings

from apps.catalogue.testing import call, confirmed, ok, refused, text_of
from apps.core import folders as trees
from apps.files.models import File, Folder

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
HUGE = 2**70


def _failed_on_the_server(result: dict) -> bool:  # type: ignore[type-arg]
    return result["isError"] and "error on the server" in text_of(result)


def _file(user, name: str, text: str = "hello", **extra):  # type: ignore[no-untyped-def]
    return ok(user, "createFileEntity", {"name": name, "text": text, **extra})


def _folder(user, name: str, parent: int | None = None) -> int:  # type: ignore[no-untyped-def]
    return ok(user, "createFileFolder", {"name": name, "parentId": parent})["id"]


# --- bad input is refused, never a crash ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("createFileEntity", {"name": "a.txt", "text": "x", "folderId": HUGE}),
        ("createFileFolder", {"name": "A", "parentId": HUGE}),
        ("listFiles", {"folderId": HUGE}),
        ("copyFile", {"fileId": 1, "folderId": HUGE}),
        ("moveFileEntity", {"type": "folder", "id": 1, "targetFolderId": HUGE}),
        ("getFileWorkingPath", {"folderId": HUGE}),
        ("restoreFile", {"folderId": HUGE}),
        ("deleteFileEntity", {"fileId": HUGE}),
        ("saveChatUploadToFiles", {"name": "a.txt", "text": "x", "folderId": HUGE}),
    ],
)
def test_a_huge_id_is_not_found_not_a_crash(people, name, arguments):
    result = call(people["admin"], name, arguments, **CONFIRM)
    assert result["isError"] and not _failed_on_the_server(result), text_of(result)


@pytest.mark.parametrize(
    "arguments",
    [
        {"name": "a.txt", "text": "x", "description": "nul \x00 here"},
        {"name": "a.txt", "text": "x", "mimeType": "text/pl\x00ain"},
        {"name": "a\x00.txt", "text": "x"},
    ],
)
def test_nul_in_what_a_file_is_called_is_refused(people, arguments):
    before = File.objects.count()
    result = call(people["member"], "createFileEntity", arguments)
    assert result["isError"] and not _failed_on_the_server(result), text_of(result)
    assert File.objects.count() == before


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("listFiles", {"query": "a\x00b"}),
        ("listFiles", {"path": "/a\x00b"}),
        ("listFiles", {"mimeType": "text/\x00"}),
        ("getFileWorkingPath", {"path": "/x/a\x00b.txt"}),
    ],
)
def test_nul_in_a_search_is_refused_or_finds_nothing(people, name, arguments):
    result = call(people["member"], name, arguments)
    assert not _failed_on_the_server(result), text_of(result)


def test_names_that_read_as_paths_are_refused_and_a_long_one_is_copied_within_the_limit(people):
    member = people["member"]
    for bad in ("../x", "..", "a/b", "x.", "   ", "con", "a\tb\x01"):
        said = refused(member, "createFileEntity", {"name": bad, "text": "x"})
        assert "name" in said
    longest = "n" * 251 + ".txt"
    made = _file(member, longest)
    assert made["name"] == longest
    # A copy of it beside it, and a file of its name, take a free name within the limit.
    copy = ok(member, "copyFile", {"fileId": made["id"]})
    assert copy["name"] == "n" * 247 + " (2).txt"
    again = ok(member, "createFileEntity", {"name": longest, "text": "x"})
    assert again["name"] == "n" * 247 + " (3).txt"
    no_stem = "a." + "e" * 253  # all extension
    ok(member, "createFileEntity", {"name": no_stem, "text": "x"})
    assert ok(member, "createFileEntity", {"name": no_stem, "text": "y"})["name"] == no_stem[:251] + " (2)"


# --- odd and big files ---------------------------------------------------------------------------


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def _pdf_with_a_filter(name: bytes, *, to_unicode: bytes = b"") -> bytes:
    """A well-formed one-page PDF whose page's text is encoded with the filter `name`;
    `to_unicode`: the characters its font's ToUnicode map gives "A" and "B" (hex UTF-16)."""
    stream = (
        b"BT /F1 12 Tf 72 712 Td (Hello) Tj ET" if not to_unicode else b"BT /F1 12 Tf 72 712 Td (AB) Tj ET"
    )
    cmap = (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def "
        b"1 begincodespacerange <00> <FF> endcodespacerange 2 beginbfchar %s endbfchar "
        b"endcmap CMapName currentdict /CMap defineresource pop end end" % to_unicode
    )
    bodies = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter %s >>\nstream\n%s\nendstream" % (len(stream), name, stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica%s >>"
        % (b" /ToUnicode 6 0 R" if to_unicode else b""),
    ]
    if to_unicode:
        bodies.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap))
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(bodies, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(bodies) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(bodies) + 1, table)
    return bytes(out)


@pytest.mark.parametrize(
    ("name", "data", "mime_type"),
    [
        ("scan.pdf", _pdf_with_a_filter(b"/ASCII85DeGode"), None),  # a filter no reader knows
        ("notes.docx", b"this is not a word file", None),
        ("sheet.xlsx", b"this is not a workbook", None),
        ("slides.pptx", b"this is not a deck", None),
        ("notes.docx", _zip({"hello.txt": b"hi"}), None),
        ("sheet.xlsx", _zip({"hello.txt": b"hi"}), None),
        ("slides.pptx", _zip({"hello.txt": b"hi"}), None),
        ("scan.pdf", b"%PDF-1.4 broken", None),
        ("report.bin", b"plain words", "application/pdf"),
        (
            "report.bin",
            b"plain words",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        ),
        ("report.bin", b"plain words", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
        (
            "report.bin",
            b"plain words",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ),
    ],
)
def test_a_damaged_office_file_or_pdf_says_so_when_read(people, name, data, mime_type):
    member = people["member"]
    made = ok(
        member,
        "createFileEntity",
        {"name": name, "contentBase64": base64.b64encode(data).decode(), "mimeType": mime_type},
    )
    result = call(member, "readFileContent", {"fileId": made["id"]})
    assert result["isError"] and not _failed_on_the_server(result), text_of(result)


def test_empty_unicode_and_binary_files_are_kept_byte_for_byte(people):
    member = people["member"]
    empty = _file(member, "empty.txt", "")
    assert empty["size"] == 0
    assert ok(member, "readFileContent", {"fileId": empty["id"]})["text"] == ""
    raw = bytes(range(256)) * 4
    binary = ok(
        member, "createFileEntity", {"name": "blob.bin", "contentBase64": base64.b64encode(raw).decode()}
    )
    got = ok(member, "downloadFileEntity", {"fileId": binary["id"], "mode": "inline"})
    assert base64.b64decode(got["contentBase64"]) == raw
    emoji = _file(member, "📎 Ümlaut résumé.md", "# Café ☕")
    assert ok(member, "readFileContent", {"fileId": emoji["id"]})["text"] == "# Café ☕"
    # NUL is refused as text (no store keeps it), kept as bytes, and left out of the text read.
    assert "`text`" in refused(member, "createFileEntity", {"name": "nul.txt", "text": "a\x00b"})
    nul = ok(
        member, "createFileEntity", {"name": "nul.txt", "contentBase64": base64.b64encode(b"a\x00b").decode()}
    )
    assert nul["size"] == 3


@override_settings(ATRIUM_FILES_MAX_BYTES=1000)
def test_a_file_over_the_limit_is_refused_and_nothing_is_written(people):
    member, before = people["member"], File.objects.count()
    said = refused(member, "createFileEntity", {"name": "big.txt", "text": "x" * 1001})
    assert "limit" in said
    said = refused(
        member,
        "createFileEntity",
        {"name": "big.bin", "contentBase64": base64.b64encode(b"x" * 1001).decode()},
    )
    assert "limit" in said
    assert File.objects.count() == before
    assert _file(member, "fits.txt", "x" * 1000)["size"] == 1000


# --- folders: move, rename, copy, cycles ---------------------------------------------------------


def test_a_folder_moved_into_itself_or_its_child_is_refused_and_keeps_its_children(people):
    member = people["member"]
    top = _folder(member, "Proposals")
    child = _folder(member, "2026", top)
    grandchild = _folder(member, "Q1", child)
    inside = _file(member, "draft.txt", folderId=grandchild)
    for target in (top, child, grandchild):
        said = refused(member, "moveFileEntity", {"type": "folder", "id": top, "targetFolderId": target})
        assert "inside" in said or "itself" in said
    assert Folder.objects.get(pk=top).parent_id is None
    ok(member, "moveFileEntity", {"type": "folder", "id": child, "targetFolderId": None})
    assert ok(member, "getFileWorkingPath", {"fileId": inside["id"]})["path"] == "/2026/Q1/draft.txt"


def test_a_tree_moved_under_another_stays_within_the_depth_the_trash_reaches(people):
    """Each chain alone is allowed; one under the other would be deeper than the trash, the paths
    and the erasure follow."""
    member, admin = people["member"], people["admin"]
    depth = trees.MAX_DEPTH // 2 + 2
    first = parent = None
    for level in range(depth):
        parent = _folder(member, f"a{level}", parent)
        first = first or parent
    second = other = None
    for level in range(depth):
        other = _folder(member, f"b{level}", other)
        second = second or other
    deepest = _file(member, "deep.txt", folderId=other)
    result = call(member, "moveFileEntity", {"type": "folder", "id": second, "targetFolderId": parent})
    if not result["isError"]:
        # Moved: everything below still goes to the trash with the top folder, and comes back.
        path = ok(member, "getFileWorkingPath", {"fileId": deepest["id"]})["path"]
        assert path.count("/") == 2 * depth + 1
        ok(admin, "deleteFileEntity", {"folderId": first}, **CONFIRM)
        assert File.objects.get(pk=deepest["id"]).deleted_at is not None
    else:
        assert "deep" in text_of(result)
        assert Folder.objects.get(pk=second).parent_id is None


def test_moving_and_renaming_keep_every_file_and_answer_the_new_path(people):
    member = people["member"]
    inbox = _folder(member, "Inbox")
    archive = _folder(member, "Archive")
    made = [_file(member, f"scan-{n}.pdf", folderId=inbox) for n in range(3)]
    ok(member, "moveFileEntity", {"type": "folder", "id": inbox, "targetFolderId": archive})
    renamed = ok(member, "renameFileEntity", {"type": "folder", "id": inbox, "name": "2026 scans"})
    assert renamed["folder"]["path"] == "/Archive/2026 scans"
    listed = ok(member, "listFiles", {"path": "/Archive/2026 scans"})["entries"]["items"]
    assert sorted(item["id"] for item in listed) == sorted(item["id"] for item in made)
    moved = ok(member, "moveFile", {"fileId": made[0]["id"], "folderId": None})
    assert moved["path"] == "/scan-0.pdf"
    copy = ok(member, "copyFile", {"fileId": made[0]["id"], "folderId": archive})
    assert copy["path"] == "/Archive/scan-0.pdf" and copy["sha256"] == made[0]["sha256"]
    # A name taken in the target is refused, and nothing moves.
    clash = _file(member, "scan-1.pdf")
    said = refused(member, "moveFile", {"fileId": clash["id"], "folderId": inbox})
    assert "already" in said
    assert File.objects.get(pk=clash["id"]).folder_id is None


# --- the trash -----------------------------------------------------------------------------------


def test_a_folder_trashed_and_restored_brings_back_exactly_what_went_with_it(people):
    member, admin = people["member"], people["admin"]
    top = _folder(member, "Week")
    sub = _folder(member, "Mon", top)
    kept = _file(member, "kept.txt", folderId=sub)
    gone_first = _file(member, "gone-first.txt", folderId=sub)
    ok(admin, "deleteFileEntity", {"fileId": gone_first["id"]}, **CONFIRM)
    went = ok(admin, "deleteFileEntity", {"folderId": top}, **CONFIRM)
    assert went["count"] == 3
    trash = ok(admin, "listFileTrash")["items"]
    assert {(item["type"], item["id"]) for item in trash} == {("folder", top), ("file", gone_first["id"])}
    # The file that went first cannot come back into a folder in the trash: the hint names the
    # argument that takes it elsewhere.
    said = refused(admin, "restoreFile", {"fileId": gone_first["id"]})
    assert "intoFolderId" in said or "toRoot" in said
    came = ok(admin, "restoreFile", {"folderId": top})
    assert came["count"] == 3
    assert File.objects.get(pk=kept["id"]).deleted_at is None
    assert File.objects.get(pk=gone_first["id"]).deleted_at is not None


# --- one person's private file reaches nobody else -----------------------------------------------


def test_a_private_file_in_a_shared_folder_reaches_nobody_else(people, nora):
    member, viewer = people["member"], people["viewer"]
    team = _folder(member, "Team")
    secret = _file(member, "salaries-2026.csv", "name,pay\nAda,99000", folderId=team, visibility="private")
    public = _file(member, "menu.txt", "soup", folderId=team)
    for other in (nora, viewer):
        listed = ok(other, "listFiles", {"folderId": team})["entries"]
        assert [item["id"] for item in listed["items"]] == [public["id"]] and listed["total"] == 1
        assert ok(other, "listFiles", {"query": "salaries"})["entries"]["items"] == []
        for name, arguments in [
            ("getFileEntity", {"fileId": secret["id"]}),
            ("readFileContent", {"fileId": secret["id"]}),
            ("downloadFileEntity", {"fileId": secret["id"]}),
            ("getFileWorkingPath", {"fileId": secret["id"]}),
            ("getFileWorkingPath", {"path": "/Team/salaries-2026.csv"}),
        ]:
            said = refused(other, name, arguments)
            assert "99000" not in said
            # What it says is what it says of a file that does not exist.
            missing = {
                key: (HUGE // 2**10 if key == "fileId" else "/Team/nothing-here.csv") for key in arguments
            }
            assert said.replace(str(secret["id"]), "?").replace("salaries-2026", "nothing-here") == refused(
                other, name, missing
            ).replace(str(HUGE // 2**10), "?")
        said = refused(nora, "copyFile", {"fileId": secret["id"]})
        assert "not found" in said
    # Shared with one colleague, not another.
    ok(member, "shareFile", {"fileId": secret["id"], "personEmail": nora.email, "access": "view"})
    assert ok(nora, "readFileContent", {"fileId": secret["id"]})["text"].startswith("name,pay")
    refused(viewer, "readFileContent", {"fileId": secret["id"]})
    # Her copy is hers and private; the viewer still sees nothing of either.
    copy = ok(nora, "copyFile", {"fileId": secret["id"], "folderId": team})
    assert copy["visibility"] == "private" and copy["owner"]["email"] == nora.email
    assert [item["id"] for item in ok(viewer, "listFiles", {"folderId": team})["entries"]["items"]] == [
        public["id"]
    ]
    # A view share does not let her rename, move or share it on.
    for name, arguments in [
        ("renameFileEntity", {"type": "file", "id": secret["id"], "name": "x.csv"}),
        ("moveFile", {"fileId": secret["id"], "folderId": None}),
        ("shareFile", {"fileId": secret["id"], "personEmail": viewer.email}),
    ]:
        refused(nora, name, arguments)
    assert File.objects.get(pk=secret["id"]).name == "salaries-2026.csv"


def test_a_private_file_attached_to_a_shared_record_is_not_named_to_others(people, nora):
    from apps.documents.tests.factories import DocumentFactory

    member = people["member"]
    document = DocumentFactory(actor=member, title="Offer for Globex")
    secret = _file(member, "margin-calc.xlsx.txt", "cost 10 price 30", visibility="private")
    ok(
        member,
        "attachEntityFile",
        {"fileId": secret["id"], "entityType": "document", "entityId": document.pk},
    )
    seen = ok(nora, "getDocument", {"documentId": document.pk})["attachments"]
    assert [(item["id"], item["available"]) for item in seen] == [(secret["id"], False)]
    assert "margin" not in str(seen)
    # Nor can she attach it elsewhere, or learn its name by trying.
    said = refused(
        nora, "attachEntityFile", {"fileId": secret["id"], "entityType": "document", "entityId": document.pk}
    )
    assert "margin" not in said


def test_trashing_a_folder_does_not_reveal_or_take_files_the_deleter_cannot_see(people, nora, acme):
    """A role that deletes files but does not see every one: trashing a shared folder must not
    count, take or erase someone's private file it cannot see."""
    from apps.catalogue.testing import person_with

    tidy = person_with({"files.view", "files.edit", "files.delete"}, email="tidy@acme.example")
    member = people["member"]
    team = _folder(member, "Shared drafts")
    _file(member, "plan.txt", folderId=team)
    secret = _file(nora, "my-private-notes.txt", "do not share", folderId=team, visibility="private")
    went = ok(tidy, "deleteFileEntity", {"folderId": team}, **CONFIRM)
    assert went["count"] == 2  # the folder and the file it sees
    # Nora's file stays hers, live, at the root; nothing of it is in the answer.
    still = File.objects.get(pk=secret["id"])
    assert still.deleted_at is None and still.folder_id is None
    assert ok(nora, "getFileEntity", {"fileId": secret["id"]})["file"]["path"] == "/my-private-notes.txt"
    ok(tidy, "deleteFileEntity", {"folderId": team, "permanently": True}, **CONFIRM)
    assert File.objects.filter(pk=secret["id"]).exists()
    # Nothing of the folder is left in the trash.
    assert ok(people["admin"], "listFileTrash")["items"] == []


def test_a_file_shared_to_read_is_neither_erased_nor_restored_by_its_reader(people, nora):
    """A role that deletes files, holding a view share of someone's private file: the trash is no
    way round the share."""
    from apps.catalogue.testing import person_with

    tidy = person_with({"files.view", "files.edit", "files.delete"}, email="tidy@acme.example")
    secret = _file(nora, "offer-letter.txt", "signed", visibility="private")
    ok(nora, "shareFile", {"fileId": secret["id"], "personEmail": tidy.email, "access": "view"})
    refused(tidy, "deleteFileEntity", {"fileId": secret["id"]}, **CONFIRM)
    ok(people["admin"], "deleteFileEntity", {"fileId": secret["id"]}, **CONFIRM)
    refused(tidy, "restoreFile", {"fileId": secret["id"]})
    refused(tidy, "deleteFileEntity", {"fileId": secret["id"], "permanently": True}, **CONFIRM)
    assert File.objects.get(pk=secret["id"]).deleted_at is not None
    ok(people["admin"], "restoreFile", {"fileId": secret["id"]})
    assert File.objects.get(pk=secret["id"]).deleted_at is None


def test_restoring_a_folder_brings_back_every_file_and_counts_what_the_restorer_sees(people, nora):
    from apps.catalogue.testing import person_with

    tidy = person_with({"files.view", "files.edit", "files.delete"}, email="tidy@acme.example")
    team = _folder(people["member"], "Board")
    _file(people["member"], "agenda.txt", folderId=team)
    secret = _file(nora, "my-notes.txt", "mine", folderId=team, visibility="private")
    assert ok(people["admin"], "deleteFileEntity", {"folderId": team}, **CONFIRM)["count"] == 3
    assert ok(tidy, "restoreFile", {"folderId": team})["count"] == 2
    assert ok(nora, "readFileContent", {"fileId": secret["id"]})["text"] == "mine"
    assert File.objects.get(pk=secret["id"]).folder_id == team


def test_erasing_a_folder_keeps_the_files_the_eraser_may_not_delete(people, nora):
    from apps.catalogue.testing import person_with

    tidy = person_with({"files.view", "files.edit", "files.delete"}, email="tidy@acme.example")
    admin = people["admin"]
    team = _folder(people["member"], "Old projects")
    plan = _file(people["member"], "plan.txt", folderId=team)
    secret = _file(nora, "my-review.txt", "private words", folderId=team, visibility="private")
    ok(admin, "deleteFileEntity", {"folderId": team}, **CONFIRM)  # an admin takes every file
    assert File.objects.get(pk=secret["id"]).trashed_with_id == team
    went = ok(tidy, "deleteFileEntity", {"folderId": team, "permanently": True}, **CONFIRM)
    assert went["count"] == 1
    assert not File.objects.filter(pk=plan["id"]).exists()
    kept = File.objects.get(pk=secret["id"])
    assert kept.deleted_at is not None and kept.folder_id is None and kept.trashed_with_id is None
    assert [item["id"] for item in ok(admin, "listFileTrash")["items"]] == [secret["id"]]
    ok(admin, "restoreFile", {"fileId": secret["id"]})
    assert ok(nora, "readFileContent", {"fileId": secret["id"]})["text"] == "private words"


def test_a_pdf_with_a_known_filter_is_read(people):
    member = people["member"]
    data = _pdf_with_a_filter(b"/FlateDecode").replace(b" /Filter /FlateDecode", b"")
    made = ok(
        member, "createFileEntity", {"name": "ok.pdf", "contentBase64": base64.b64encode(data).decode()}
    )
    assert ok(member, "readFileContent", {"fileId": made["id"]})["text"] == "Hello"


def test_a_pdf_whose_font_maps_to_half_a_character_is_read_with_a_replacement(people):
    """A ToUnicode map giving a lone UTF-16 surrogate (and NUL): text no store keeps."""
    member = people["member"]
    data = _pdf_with_a_filter(b"/FlateDecode", to_unicode=b"<41> <D835> <42> <0000>").replace(
        b" /Filter /FlateDecode", b""
    )
    made = ok(
        member, "createFileEntity", {"name": "odd-font.pdf", "contentBase64": base64.b64encode(data).decode()}
    )
    assert ok(member, "readFileContent", {"fileId": made["id"]})["text"] == "\ufffd"
    assert File.objects.get(pk=made["id"]).text == "\ufffd"


def test_a_refused_save_leaves_no_folder_made_for_it(people):
    """The default folders a save makes ("Chat uploads", "Document exports") go with a refused
    file: nothing half-written."""
    from apps.documents.tests.factories import DocumentFactory

    member, before = people["member"], (Folder.objects.count(), File.objects.count())
    refused(member, "saveChatUploadToFiles", {"name": "a/b.txt", "text": "x"})
    document = DocumentFactory(actor=member, title="Memo")
    refused(member, "exportDocumentToPdf", {"documentId": document.pk, "fileName": "../memo.pdf"})
    assert (Folder.objects.count(), File.objects.count()) == before


def test_the_files_page_shows_a_private_file_to_nobody_else(people, nora, acme_client):
    member, admin = people["member"], people["admin"]
    team = _folder(member, "Team")
    secret = _file(member, "salaries-2026.csv", "x", folderId=team, visibility="private")
    gone = _file(member, "old-salaries.csv", "x", visibility="private")
    ok(admin, "deleteFileEntity", {"fileId": gone["id"]}, **CONFIRM)
    acme_client.force_login(nora)
    for url in (f"/settings/files/?folder={team}", "/settings/files/?view=trash", "/settings/files/"):
        page = acme_client.get(url)
        assert page.status_code == 200 and "salaries" not in page.content.decode()
    for url in (
        f"/settings/files/{secret['id']}/download",
        f"/settings/files/{gone['id']}/download",
        "/settings/files/?folder=99999999999999999999",
    ):
        assert acme_client.get(url).status_code == 404, url


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("getFileEntity", {"fileId": "abc"}),
        ("getFileEntity", {"fileId": 1.5}),
        ("getFileEntity", {"fileId": True}),
        ("getFileEntity", {"fileId": None}),
        ("getFileEntity", {"fileId": [1]}),
        ("createFileEntity", {"name": 123, "text": "x"}),
        ("createFileEntity", {"name": "a.txt", "text": {"a": 1}}),
        ("createFileEntity", {"name": "a.txt", "contentBase64": 12}),
        ("createFileEntity", {"name": "a.txt", "text": "x", "visibility": "public"}),
        ("createFileEntity", {"name": "a.txt"}),
        ("createFileEntity", {"name": "a.txt", "text": "x", "contentBase64": "eA=="}),
        ("createFileEntity", {"name": "a.txt", "contentBase64": "not base64!"}),
        ("emailFileAsAttachment", {"fileId": 1, "to": "a@example.net"}),
        ("emailFileAsAttachment", {"fileId": 1, "to": []}),
        ("moveFileEntity", {"type": "file", "id": 1}),
        ("moveFileEntity", {"type": "link", "id": 1, "targetFolderId": None}),
        ("readFileContent", {"fileId": 1, "offset": -1}),
        ("readFileContent", {"fileId": 1, "offset": 2**80}),
        ("listFiles", {"limit": 0}),
        ("listFiles", {"offset": 2**80}),
        ("deleteFileEntity", {}),
        ("restoreFile", {"fileId": 1, "folderId": 1}),
    ],
)
def test_arguments_of_the_wrong_kind_are_refused_not_a_crash(people, name, arguments):
    result = call(people["admin"], name, arguments, **CONFIRM)
    assert result["isError"] and not _failed_on_the_server(result), text_of(result)


def test_a_file_saved_to_a_private_contact_is_as_private_as_the_contact(people, nora):
    from apps.contacts.tests.factories import ContactFactory

    member = people["member"]
    private = ContactFactory(actor=member, first_name="Quintessa", visibility="private")
    public = ContactFactory(actor=member, first_name="Ada")
    saved = ok(
        member,
        "saveFileToContact",
        {"contactId": private.pk, "name": "quintessa-passport.txt", "text": "passport no. 123"},
    )["file"]
    assert saved["visibility"] == "private" and saved["path"] == "/Contacts/quintessa-passport.txt"
    assert ok(nora, "listFiles", {"path": "/Contacts"})["entries"]["items"] == []
    assert ok(nora, "listFiles", {"query": "quintessa"})["entries"]["items"] == []
    refused(nora, "readFileContent", {"fileId": saved["id"]})
    assert ok(member, "readFileContent", {"fileId": saved["id"]})["text"] == "passport no. 123"
    # A workspace contact's file is the workspace's, as before.
    assert (
        ok(member, "saveFileToContact", {"contactId": public.pk, "name": "ada.txt", "text": "x"})["file"][
            "visibility"
        ]
        == "workspace"
    )


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("copyFile", {"folderId": 1, "toRoot": True}, "give folderId or toRoot, not both"),
        ("listFiles", {"folderId": 1, "path": "/Contracts"}, "give folderId or path, not both"),
        ("restoreFile", {"fileId": 1, "intoFolderId": 1, "toRoot": True}, "give intoFolderId or toRoot"),
    ],
)
def test_two_arguments_that_each_say_where_are_not_both_given(people, name, arguments, said):
    from apps.files.tests.factories import FileFactory

    given = dict(arguments)
    if "fileId" in given or name == "copyFile":
        given["fileId"] = FileFactory(actor=people["admin"], name="where.txt", text="x").pk

    assert said in refused(people["admin"], name, given)


def test_a_colleague_s_private_file_takes_no_name_from_anyone(people, nora):
    member = people["member"]
    team = _folder(member, "Team")
    secret = _file(nora, "layoffs.xlsx", "who", folderId=team, visibility="private")
    _file(nora, "budget.xlsx", "sums", folderId=team, visibility="private")
    _file(nora, "notes.txt", "mine", folderId=team, visibility="private")
    # Her names are free for the member: nothing they cannot see refuses or changes one.
    made = _file(member, "layoffs.xlsx", "nothing", folderId=team, ifExists="error")
    assert made["name"] == "layoffs.xlsx"
    plan = _file(member, "plan.xlsx", folderId=team)
    ok(member, "renameFileEntity", {"type": "file", "id": plan["id"], "name": "Budget.xlsx"})
    assert File.objects.get(pk=plan["id"]).name == "Budget.xlsx"
    notes = _file(member, "notes.txt", "elsewhere")
    ok(member, "moveFile", {"fileId": notes["id"], "folderId": team})
    copy = ok(member, "copyFile", {"fileId": made["id"], "folderId": team})
    assert copy["name"] == "layoffs (2).xlsx"  # beside the member's own, as ever
    # Her own names stay apart from hers and from the workspace's.
    again = _file(nora, "layoffs.xlsx", "draft", folderId=team, visibility="private")
    assert again["name"] == "layoffs (3).xlsx"
    assert File.objects.get(pk=secret["id"]).name == "layoffs.xlsx"
