"""The Drafts folder of the mail server kept in step with the drafts, as mail programs keep it: a
saved draft is appended there (\\Draft, \\Seen), a changed one replaces its copy, a sent or deleted
one takes it away; a server out of reach keeps the draft, says its copy is pending and has it
written by the next sync; the sync never copies the service's own drafts back as messages."""

import uuid

import pytest
from django.test import override_settings

from apps.catalogue.dispatch import ScopeTooNarrow
from apps.catalogue.testing import call, ok
from apps.mail import servers, services, sync
from apps.mail.models import Draft, Folder, Message
from apps.mail.tests.test_mail_tools import CONFIRM

pytestmark = pytest.mark.usefixtures("mail_server")

DOWN = {"ATRIUM_MAIL_LOCAL_IMAP": "127.0.0.1:9"}


def on_server(mailbox) -> list[tuple[int, str, bytes]]:
    """(UID, flags, message) of each message in the server's Drafts folder."""
    with servers.imap(mailbox) as client:
        assert client.select(sync.quoted("Drafts"), readonly=True)[0] == "OK"
        _status, data = client.uid("SEARCH", "ALL")
        found = []
        for uid in (data[0] or b"").split():
            _status, fetched = client.uid("FETCH", uid.decode(), "(FLAGS BODY.PEEK[])")
            head, raw = fetched[0]
            found.append((int(uid), sync.FLAGS.search(head)[1].decode(), raw))
    return found


def imported_drafts(mailbox) -> int:
    return Message.objects.filter(mailbox=mailbox, folder__role=Folder.Role.DRAFTS).count()


def test_a_saved_draft_is_in_the_drafts_folder_and_its_update_replaces_it(filled, people):
    owner = people["owner"]
    customer = f"draft-{uuid.uuid4().hex[:8]}@example.org"
    given = {"to": [customer], "bcc": ["boss@example.org"], "subject": "Offer", "body": "One"}
    draft = ok(owner, "updateDraft", {"inboxId": filled.pk, **given})
    assert draft["serverCopy"] == "saved"
    [(uid, flags, raw)] = on_server(filled)
    assert {"\\Draft", "\\Seen"} <= set(flags.split())
    copy = sync.parse(raw)
    assert copy["Subject"] == "Offer" and customer in copy["To"] and "boss@example.org" in copy["Bcc"]
    assert "One" in copy.get_body(preferencelist=("plain",)).get_content()
    row = Draft.objects.get(pk=draft["id"])
    assert (row.server_folder, row.server_uid, row.server_version) == ("Drafts", uid, 1)
    assert row.server_uidvalidity and copy["Message-ID"] == row.message_id

    changed = ok(owner, "updateDraft", {"draftId": draft["id"], "body": "Two"})
    assert changed["serverCopy"] == "saved" and changed["version"] == 2
    [(new_uid, _flags, raw)] = on_server(filled)
    assert new_uid != uid and "Two" in sync.parse(raw).get_body(preferencelist=("plain",)).get_content()
    row.refresh_from_db()
    assert row.server_uid == new_uid and row.server_stale == []

    # The sync knows the copy for the draft it is: no message comes of it, the draft stays one.
    sync.sync(filled)
    assert imported_drafts(filled) == 0
    # Known by its Message-ID too, when its UID was never recorded (a process that stopped).
    Draft.objects.filter(pk=row.pk).update(server_uid=None)
    Folder.objects.filter(mailbox=filled, role=Folder.Role.DRAFTS).update(uidnext=1)
    sync.sync(filled)
    assert imported_drafts(filled) == 0
    listed = ok(owner, "listDrafts", {"inboxId": filled.pk})
    assert [item["id"] for item in listed["items"]].count(draft["id"]) == 1


def test_sending_or_deleting_a_draft_takes_its_copy_away(filled, people):
    owner = people["owner"]
    to_send = ok(owner, "updateDraft", {"inboxId": filled.pk, "to": ["a@example.org"], "subject": "Go"})
    to_delete = ok(owner, "updateDraft", {"inboxId": filled.pk, "to": ["b@example.org"], "subject": "Bin"})
    assert len(on_server(filled)) == 2

    ok(owner, "sendEmail", {"draftId": to_send["id"]}, **CONFIRM)
    assert [sync.parse(raw)["Subject"] for _uid, _flags, raw in on_server(filled)] == ["Bin"]
    assert ok(owner, "getDraft", {"draftId": to_send["id"]})["serverCopy"] == "none"

    deleted = ok(owner, "deleteDraft", {"draftId": to_delete["id"]}, **CONFIRM)
    assert deleted["serverCopy"] == "none" and on_server(filled) == []
    # Restored on the Mail page: its copy is back.
    services.draft_restore(actor=owner, draft=Draft.objects.get(pk=to_delete["id"]))
    assert [sync.parse(raw)["Subject"] for _uid, _flags, raw in on_server(filled)] == ["Bin"]


def test_a_server_out_of_reach_keeps_the_draft_and_the_next_sync_writes_its_copy(filled, people):
    owner = people["owner"]
    with override_settings(**DOWN):
        draft = ok(owner, "updateDraft", {"inboxId": filled.pk, "to": ["c@example.org"], "subject": "Later"})
    assert draft["serverCopy"] == "pending" and Draft.objects.get(pk=draft["id"]).server_pending
    assert on_server(filled) == []

    assert services.drafts_pending(mailbox=filled) == 1
    [(uid, _flags, raw)] = on_server(filled)
    assert sync.parse(raw)["Subject"] == "Later"
    assert ok(owner, "getDraft", {"draftId": draft["id"]})["serverCopy"] == "saved"

    # Changed while the server is down: the old copy stays until the server is back, then the
    # new one replaces it.
    with override_settings(**DOWN):
        changed = ok(owner, "updateDraft", {"draftId": draft["id"], "subject": "Later still"})
    assert changed["serverCopy"] == "pending" and changed["subject"] == "Later still"
    assert [found for found, _flags, _raw in on_server(filled)] == [uid]
    services.drafts_pending(mailbox=filled)
    [(new_uid, _flags, raw)] = on_server(filled)
    assert new_uid != uid and sync.parse(raw)["Subject"] == "Later still"

    # Deleted while it is down: the copy goes when it is back.
    with override_settings(**DOWN):
        assert ok(owner, "deleteDraft", {"draftId": draft["id"]}, **CONFIRM)["serverCopy"] == "pending"
    assert len(on_server(filled)) == 1
    services.drafts_pending(mailbox=filled)
    assert on_server(filled) == []
    assert not Draft.objects.get(pk=draft["id"]).server_pending


def test_a_read_only_credential_appends_nothing(filled, people):
    drafts = Draft.objects.count()
    # A credential that may only read is not offered the tool at all: it is asked for a wider scope.
    with pytest.raises(ScopeTooNarrow):
        call(people["owner"], "updateDraft", {"inboxId": filled.pk, "subject": "No"}, scopes={"mcp:read"})
    assert Draft.objects.count() == drafts and on_server(filled) == []
