"""A record made from others is no more visible than the least visible of them
(apps.core.records.derived_visibility): a copy, a combination or an export of a person's private
record is private to whoever made it, and nobody else (a member, a viewer) finds it."""

import json

from apps.catalogue.testing import call, ok
from apps.core import sharing
from apps.core.records import Visibility, derived_visibility
from apps.documents.tests.factories import DocumentFactory
from apps.files.models import File
from apps.files.tests.factories import FileFactory

SECRET = "Zanzibar-merger-7341"
READERS = ("member", "viewer")


def _unseen(people, file_id):
    """Nobody but the owner finds the file: not by id, not in the list, not by its text."""
    for role in READERS:
        found = call(people[role], "getFileEntity", {"fileId": file_id})
        assert found["isError"] and "not found" in json.dumps(found), role
        listed = ok(people[role], "listFiles", {"query": SECRET})
        assert listed["entries"]["items"] == [], role


def test_the_rule():
    private, workspace = File(visibility="private"), File(visibility="workspace")
    assert derived_visibility(workspace, workspace) == Visibility.WORKSPACE
    assert derived_visibility(workspace, private) == Visibility.PRIVATE
    assert derived_visibility(private) == Visibility.PRIVATE
    # A source with no visibility of its own (a workspace-wide record) hides nothing.
    assert derived_visibility(object()) == Visibility.WORKSPACE


def test_a_copy_of_a_private_file_is_private(people):
    source = FileFactory(actor=people["owner"], name=f"{SECRET}.txt", text=SECRET, visibility="private")

    copy = ok(people["owner"], "copyFile", {"fileId": source.pk})

    assert File.objects.get(pk=copy["id"]).visibility == "private"
    _unseen(people, copy["id"])


def test_a_copy_of_a_workspace_file_stays_the_workspaces(people):
    source = FileFactory(actor=people["owner"], name="plan.txt")

    copy = ok(people["owner"], "copyFile", {"fileId": source.pk})

    assert File.objects.get(pk=copy["id"]).visibility == "workspace"
    assert ok(people["viewer"], "getFileEntity", {"fileId": copy["id"]})["file"]["id"] == copy["id"]


def test_files_combined_with_a_private_one_are_private(people):
    open_file = FileFactory(actor=people["owner"], name="open.txt", text="Open")
    hidden = FileFactory(actor=people["owner"], name=f"{SECRET}.txt", text=SECRET, visibility="private")

    answer = ok(
        people["owner"], "combineFiles", {"fileIds": [open_file.pk, hidden.pk], "name": f"{SECRET}-both.txt"}
    )

    assert File.objects.get(pk=answer["file"]["id"]).visibility == "private"
    _unseen(people, answer["file"]["id"])


def test_the_pdf_of_a_private_document_is_private(people):
    document = DocumentFactory(actor=people["owner"], title=SECRET, visibility="private")

    answer = ok(people["owner"], "exportDocumentToPdf", {"documentId": document.pk})

    file_id = answer["file"]["id"]
    assert File.objects.get(pk=file_id).visibility == "private"
    _unseen(people, file_id)


def test_a_copy_of_a_file_shared_with_its_maker_is_theirs_alone(people):
    source = FileFactory(actor=people["owner"], name=f"{SECRET}.txt", text=SECRET, visibility="private")
    sharing.share_set(
        source, actor=people["owner"], person=people["member"], access="view", person_may_see=True
    )

    copy = ok(people["member"], "copyFile", {"fileId": source.pk})

    made = File.objects.get(pk=copy["id"])
    # Like a copy in a shared drive: the maker's, shared with nobody (the source's shares stay its own).
    assert (made.visibility, made.owner_id, made.shares.count()) == ("private", people["member"].pk, 0)
    assert call(people["viewer"], "getFileEntity", {"fileId": made.pk})["isError"]
