"""A mailbox's folders (labels) made, renamed and deleted on the real local mail server, and mail
moved into them: the server first, the copy after (a sync changes nothing back); names outside
ASCII go over IMAP in modified UTF-7 and come back as they were written; the special folders stay;
a folder with mail in it is not deleted; nobody but the mailbox's owner changes its folders."""

import uuid
from collections.abc import Iterator

import pytest

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, ok, refused
from apps.mail import servers, sync
from apps.mail.models import Folder, Mailbox, MailboxMember, Message
from apps.mail.tests.test_inbox_work import subjects_on_server

pytestmark = pytest.mark.usefixtures("mail_server")


def on_server(mailbox: Mailbox) -> set[str]:
    with servers.imap(mailbox) as client:
        return {name for name, _role in sync.folders(client)}


@pytest.fixture
def tag() -> str:
    return f"t{uuid.uuid4().hex[:6]}"


@pytest.fixture
def mailbox(filled: Mailbox, tag: str) -> Iterator[Mailbox]:
    """The owner's demo mailbox; the folders a test made (named with its tag) are taken off the
    server afterwards, which outlives the test's transaction."""
    yield filled
    with servers.imap(filled) as client:
        for name in sorted(on_server(filled), key=len, reverse=True):
            if tag in name:
                client.delete(sync.quoted(name))


def _names(answer: dict) -> list[str]:
    return [item["name"] for item in answer["items"]]


def test_a_folder_is_made_mail_moved_into_it_renamed_and_deleted_once_empty(mailbox, people, tag):
    owner = people["owner"]
    made = ok(
        owner, "manageInboxFolder", {"inboxId": mailbox.pk, "action": "create", "name": f"Clients {tag}"}
    )
    assert f"Clients {tag}" in _names(made) and f"Clients {tag}" in on_server(mailbox)
    ok(
        owner,
        "manageInboxFolder",
        {"inboxId": mailbox.pk, "action": "create", "name": f"Clients {tag}/ Acme "},
    )
    assert f"Clients {tag}/Acme" in on_server(mailbox)

    message = Message.objects.get(mailbox=mailbox, subject="Pricing for 40 seats")
    moved = ok(
        owner, "manageEmail", {"messageIds": [message.pk], "action": "move", "folder": f"Clients {tag}"}
    )
    assert moved["items"][0]["folder"] == f"Clients {tag}"

    renamed = ok(
        owner,
        "manageInboxFolder",
        {"inboxId": mailbox.pk, "action": "rename", "name": f"clients {tag}", "newName": f"Customers {tag}"},
    )
    assert {f"Customers {tag}", f"Customers {tag}/Acme"} <= set(_names(renamed))
    assert not {f"Clients {tag}", f"Clients {tag}/Acme"} & on_server(mailbox)
    assert "Pricing for 40 seats" in subjects_on_server(mailbox, f"Customers {tag}")
    folder = Folder.objects.get(mailbox=mailbox, name=f"Customers {tag}")
    assert Message.objects.get(pk=message.pk).folder_id == folder.pk
    assert sync.sync(mailbox) == 0  # the copy already holds it where it is
    assert Message.objects.get(pk=message.pk).folder_id == folder.pk

    # Not while it holds mail or subfolders.
    deleting = {"inboxId": mailbox.pk, "action": "delete", "name": f"Customers {tag}"}
    assert "has subfolders" in refused(owner, "manageInboxFolder", deleting)
    ok(owner, "manageInboxFolder", {**deleting, "name": f"Customers {tag}/Acme"})
    assert "holds 1 messages" in refused(owner, "manageInboxFolder", deleting)
    assert f"Customers {tag}" in on_server(mailbox)
    ok(owner, "manageEmail", {"messageIds": [message.pk], "action": "move", "folder": "inbox"})
    gone = ok(owner, "manageInboxFolder", deleting)
    assert f"Customers {tag}" not in _names(gone) and f"Customers {tag}" not in on_server(mailbox)
    assert "Pricing for 40 seats" in subjects_on_server(mailbox, "INBOX")


def test_a_name_outside_ascii_goes_in_modified_utf7_and_comes_back_as_written(mailbox, people, tag):
    owner = people["owner"]
    name = f"Réclamations & 日本 {tag}"
    assert sync.utf7_encode(name).startswith("R&AOk-clamations &- &ZeVnLA- ")
    assert sync.utf7_decode(sync.utf7_encode(name)) == name
    ok(owner, "manageInboxFolder", {"inboxId": mailbox.pk, "action": "create", "name": name})
    assert name in on_server(mailbox)
    sync.sync(mailbox)
    assert Folder.objects.filter(mailbox=mailbox, name=name).count() == 1


def test_bad_names_and_the_special_folders_are_refused_and_nothing_changes(mailbox, people, tag):
    owner = people["owner"]
    before = on_server(mailbox)
    folders = Folder.objects.filter(mailbox=mailbox).count()

    def refusal(**arguments: str) -> str:
        return refused(owner, "manageInboxFolder", {"inboxId": mailbox.pk, **arguments})

    assert "no * or %" in refusal(action="create", name=f"All * {tag}")
    assert "between its slashes" in refusal(action="create", name=f"a//{tag}")
    assert "already has a folder 'sent'" in refusal(action="create", name="sent")
    assert "already has a folder 'INBOX'" in refusal(action="create", name="INBOX")
    assert "Sent folder" in refusal(action="rename", name="sent", newName=f"Old {tag}")
    assert "Inbox folder" in refusal(action="delete", name="INBOX")
    assert "has no folder 'Nowhere'" in refusal(action="delete", name="Nowhere")
    ok(owner, "manageInboxFolder", {"inboxId": mailbox.pk, "action": "create", "name": f"Keep {tag}"})
    assert "cannot move into itself" in refusal(action="rename", name=f"Keep {tag}", newName=f"Keep {tag}/In")
    assert "newName" in refusal(action="rename", name=f"Keep {tag}", newName="")
    assert on_server(mailbox) == before | {f"Keep {tag}"}
    assert Folder.objects.filter(mailbox=mailbox).count() == folders + 1


def test_only_the_mailbox_s_owner_changes_its_folders(mailbox, people, tag):
    member, admin, viewer = people["member"], people["admin"], people["viewer"]
    creating = {"inboxId": mailbox.pk, "action": "create", "name": f"Theirs {tag}"}
    # Someone else's mailbox is not there for them, the administrators who connect it included.
    for person in (member, admin):
        assert "not found" in refused(person, "manageInboxFolder", creating)
    with pytest.raises(ToolNotFound):
        call(viewer, "manageInboxFolder", creating)
    # A member of a shared mailbox reads its mail but does not change its folders.
    MailboxMember.objects.create(mailbox=mailbox, user=member)
    assert "but not change it" in refused(member, "manageInboxFolder", creating)
    assert f"Theirs {tag}" not in on_server(mailbox)
