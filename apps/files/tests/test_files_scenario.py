"""What an agent really does with files, end to end through the dispatcher, and what a person
then sees in the settings pages."""

import base64

from apps.catalogue.testing import confirmed, ok
from apps.contacts.tests.factories import ContactFactory
from apps.files.tests.factories import FileFactory, FolderFactory

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def test_an_agent_files_a_text_reads_it_attaches_it_to_a_contact_and_tidies_up(people):
    agent, admin = people["member"], people["admin"]
    folder = ok(agent, "createFileFolder", {"name": "Meetings"})
    created = ok(
        agent,
        "createFileEntity",
        {"name": "minutes.txt", "text": "Met Ada. Next step: send the offer.", "folderId": folder["id"]},
    )
    read = ok(agent, "readFileContent", {"fileId": created["id"]})
    contact = ContactFactory(actor=agent, first_name="Ada")
    ok(agent, "attachEntityFile", {"fileId": created["id"], "entityType": "contact", "entityId": contact.pk})
    listed = ok(agent, "listContactFiles", {"contactId": contact.pk})
    copy = ok(agent, "copyFile", {"fileId": created["id"], "name": "minutes-ada.txt"})
    where = ok(agent, "getFileWorkingPath", {"fileId": copy["id"]})
    download = ok(agent, "downloadFileEntity", {"fileId": copy["id"]})
    ok(admin, "deleteFileEntity", {"folderId": folder["id"]}, **CONFIRM)
    after_trash = ok(agent, "listContactFiles", {"contactId": contact.pk})
    ok(admin, "restoreFile", {"folderId": folder["id"]})
    after_restore = ok(agent, "listContactFiles", {"contactId": contact.pk})

    assert read["text"] == "Met Ada. Next step: send the offer."
    assert [(item["id"], item["title"], item["available"]) for item in listed["items"]] == [
        (created["id"], "minutes.txt", True)
    ]
    assert where["path"] == "/Meetings/minutes-ada.txt"
    assert base64.b64decode(download["contentBase64"]) == b"Met Ada. Next step: send the offer."
    assert after_trash["items"][0]["available"] is False
    assert after_restore["items"][0]["available"] is True


def test_the_files_page_shows_folders_files_and_the_trash(people, acme_client):
    folder = FolderFactory(actor=people["member"], name="Invoices")
    FileFactory(actor=people["member"], name="march.txt", folder=folder)
    gone = FileFactory(actor=people["member"], name="old-draft.txt")
    ok(people["admin"], "deleteFileEntity", {"fileId": gone.pk}, **CONFIRM)
    acme_client.force_login(people["viewer"])

    root = acme_client.get("/settings/files/").content.decode()
    inside = acme_client.get(f"/settings/files/?folder={folder.pk}").content.decode()
    trash = acme_client.get("/settings/files/?view=trash").content.decode()
    download = acme_client.get(f"/settings/files/{gone.pk}/download")

    assert "Invoices/" in root and "old-draft.txt" not in root
    assert "march.txt" in inside
    assert "old-draft.txt" in trash
    assert download.status_code == 404


def test_the_files_page_is_refused_without_files_view(acme, acme_client):
    from apps.catalogue.testing import person_without

    blind = person_without("files.view", email="blind-files@acme.example")
    acme_client.force_login(blind)

    assert acme_client.get("/settings/files/").status_code == 403
