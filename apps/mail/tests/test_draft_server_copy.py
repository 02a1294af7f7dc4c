"""The Drafts folder of the mail server kept in step with the drafts, as mail programs keep it: a
saved draft is appended there (\\Draft, \\Seen), a changed one replaces its copy, a sent or deleted
one takes it away; a server out of reach keeps the draft, says its copy is pending and has it
written by the next sync; the sync never copies the service's own drafts back as messages.

The server is written only after the call's transaction commits. A test's own transaction never
does: `written` runs a call, then what its commit would run (Django's captured on_commit hooks),
after its answer was made, which so says "pending" where a committed call says how it went (that
answer is seen directly, `test_the_answer_says_how_the_write_after_the_commit_went`)."""

import uuid

import pytest
from django.db import connection
from django.test import override_settings

from apps.catalogue.dispatch import ScopeTooNarrow
from apps.catalogue.testing import call, context_for, ok, refused
from apps.mail import drafts, servers, services, sync, tools
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


@pytest.fixture
def written(django_capture_on_commit_callbacks):
    """A tool call that must succeed, then what its commit runs (the IMAP work)."""

    def run(user, name, arguments, **context):
        with django_capture_on_commit_callbacks(execute=True):
            return ok(user, name, arguments, **context)

    return run


def imported_drafts(mailbox) -> int:
    return Message.objects.filter(mailbox=mailbox, folder__role=Folder.Role.DRAFTS).count()


def test_a_saved_draft_is_in_the_drafts_folder_and_its_update_replaces_it(filled, people, written):
    owner = people["owner"]
    customer = f"draft-{uuid.uuid4().hex[:8]}@example.org"
    given = {"to": [customer], "bcc": ["boss@example.org"], "subject": "Offer", "body": "One"}
    draft = written(owner, "updateDraft", {"inboxId": filled.pk, **given})
    assert draft["serverCopy"] == "pending"  # answered before the commit (see the module)
    assert ok(owner, "getDraft", {"draftId": draft["id"]})["serverCopy"] == "saved"
    [(uid, flags, raw)] = on_server(filled)
    assert {"\\Draft", "\\Seen"} <= set(flags.split())
    copy = sync.parse(raw)
    assert copy["Subject"] == "Offer" and customer in copy["To"] and "boss@example.org" in copy["Bcc"]
    assert "One" in copy.get_body(preferencelist=("plain",)).get_content()
    row = Draft.objects.get(pk=draft["id"])
    assert (row.server_folder, row.server_uid, row.server_version) == ("Drafts", uid, 1)
    assert row.server_uidvalidity and copy["Message-ID"] == row.message_id

    changed = written(owner, "updateDraft", {"draftId": draft["id"], "body": "Two"})
    assert changed["version"] == 2
    [(new_uid, _flags, raw)] = on_server(filled)
    assert new_uid != uid and "Two" in sync.parse(raw).get_body(preferencelist=("plain",)).get_content()
    row.refresh_from_db()
    assert row.server_uid == new_uid and row.server_stale == [] and not row.server_pending

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


def test_sending_or_deleting_a_draft_takes_its_copy_away(
    filled, people, written, django_capture_on_commit_callbacks
):
    owner = people["owner"]
    to_send = written(owner, "updateDraft", {"inboxId": filled.pk, "to": ["a@example.org"], "subject": "Go"})
    to_delete = written(
        owner, "updateDraft", {"inboxId": filled.pk, "to": ["b@example.org"], "subject": "Bin"}
    )
    assert len(on_server(filled)) == 2

    written(owner, "sendEmail", {"draftId": to_send["id"]}, **CONFIRM)
    assert [sync.parse(raw)["Subject"] for _uid, _flags, raw in on_server(filled)] == ["Bin"]
    assert ok(owner, "getDraft", {"draftId": to_send["id"]})["serverCopy"] == "none"

    deleted = written(owner, "deleteDraft", {"draftId": to_delete["id"]}, **CONFIRM)
    assert deleted["inTrash"] and on_server(filled) == []
    assert not Draft.objects.get(pk=to_delete["id"]).server_pending
    # Restored on the Mail page: its copy is back.
    with django_capture_on_commit_callbacks(execute=True):
        services.draft_restore(actor=owner, draft=Draft.objects.get(pk=to_delete["id"]))
    assert [sync.parse(raw)["Subject"] for _uid, _flags, raw in on_server(filled)] == ["Bin"]


def test_a_server_out_of_reach_keeps_the_draft_and_the_next_sync_writes_its_copy(filled, people, written):
    owner = people["owner"]
    with override_settings(**DOWN):
        draft = written(
            owner, "updateDraft", {"inboxId": filled.pk, "to": ["c@example.org"], "subject": "Later"}
        )
    assert draft["serverCopy"] == "pending" and Draft.objects.get(pk=draft["id"]).server_pending
    assert on_server(filled) == []

    assert services.drafts_pending(mailbox=filled) == 1
    [(uid, _flags, raw)] = on_server(filled)
    assert sync.parse(raw)["Subject"] == "Later"
    assert ok(owner, "getDraft", {"draftId": draft["id"]})["serverCopy"] == "saved"

    # Changed while the server is down: the old copy stays until the server is back, then the
    # new one replaces it.
    with override_settings(**DOWN):
        changed = written(owner, "updateDraft", {"draftId": draft["id"], "subject": "Later still"})
    assert changed["serverCopy"] == "pending" and changed["subject"] == "Later still"
    assert [found for found, _flags, _raw in on_server(filled)] == [uid]
    services.drafts_pending(mailbox=filled)
    [(new_uid, _flags, raw)] = on_server(filled)
    assert new_uid != uid and sync.parse(raw)["Subject"] == "Later still"

    # Deleted while it is down: the copy goes when it is back.
    with override_settings(**DOWN):
        assert written(owner, "deleteDraft", {"draftId": draft["id"]}, **CONFIRM)["serverCopy"] == "pending"
    assert Draft.objects.get(pk=draft["id"]).server_pending
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


def test_the_answer_says_how_the_write_after_the_commit_went(
    filled, people, django_capture_on_commit_callbacks
):
    # The tool as the dispatcher runs it, its answer read once the commit's hooks ran.
    context = context_for(people["owner"])
    with django_capture_on_commit_callbacks(execute=True):
        answer = tools.update_draft(context, inbox_id=filled.pk, to=["d@example.org"], subject="Now")
        assert answer.server_copy == "pending" and on_server(filled) == []
    assert answer.server_copy == "saved" and len(on_server(filled)) == 1

    with override_settings(**DOWN), django_capture_on_commit_callbacks(execute=True):
        answer = tools.update_draft(context, draft_id=answer.id, subject="Now, changed")
    assert answer.server_copy == "pending"
    assert [sync.parse(raw)["Subject"] for _uid, _flags, raw in on_server(filled)] == ["Now"]


def test_a_call_rolled_back_after_the_draft_was_saved_leaves_nothing_on_the_server(
    filled, people, monkeypatch, django_capture_on_commit_callbacks
):
    owner = people["owner"]
    existing = Draft.objects.count()

    def broken(draft):
        raise RuntimeError("a later step of the same call failed")

    monkeypatch.setattr(tools, "_draft", broken)
    with django_capture_on_commit_callbacks(execute=True) as hooks:
        text = refused(
            owner, "updateDraft", {"inboxId": filled.pk, "to": ["e@example.org"], "subject": "Gone"}
        )
    assert text.startswith("updateDraft failed because of an error on the server; nothing was changed")
    assert hooks == [] and Draft.objects.count() == existing
    assert on_server(filled) == []
    sync.sync(filled)
    assert imported_drafts(filled) == 0


def test_a_call_run_again_after_a_deadlock_appends_its_draft_once(
    filled, people, monkeypatch, django_capture_on_commit_callbacks
):
    owner = people["owner"]
    existing = Draft.objects.count()
    runs: list[int] = []
    answer_of = tools._draft

    def lost_once(draft):
        runs.append(draft.pk)
        if len(runs) == 1:  # chosen as a deadlock's victim, as PostgreSQL does, after the save
            with connection.cursor() as cursor:
                cursor.execute(
                    "DO $$ BEGIN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01'; END $$"
                )
        return answer_of(draft)

    monkeypatch.setattr(tools, "_draft", lost_once)
    with django_capture_on_commit_callbacks(execute=True):
        draft = ok(owner, "updateDraft", {"inboxId": filled.pk, "to": ["f@example.org"], "subject": "Once"})
    assert len(runs) == 2 and Draft.objects.count() == existing + 1
    [(uid, _flags, raw)] = on_server(filled)
    row = Draft.objects.get(pk=draft["id"])
    assert row.server_uid == uid and sync.parse(raw)["Message-ID"] == row.message_id


def test_a_try_whose_uid_was_not_recorded_takes_the_copy_it_appended(filled, people, written):
    # The APPEND reached the server, its UID was never recorded (no APPENDUID, a process that
    # stopped): the next try finds the copy by its Message-ID and version, and appends none.
    owner = people["owner"]
    draft = written(owner, "updateDraft", {"inboxId": filled.pk, "to": ["g@example.org"], "subject": "Kept"})
    [(uid, _flags, _raw)] = on_server(filled)
    Draft.objects.filter(pk=draft["id"]).update(server_uid=None, server_version=0, server_pending=True)
    assert services.drafts_pending(mailbox=filled) == 1
    assert [found for found, _flags, _raw in on_server(filled)] == [uid]
    assert Draft.objects.get(pk=draft["id"]).server_uid == uid

    # A later version is appended anew (the copy of the earlier one does not pass for it).
    written(owner, "updateDraft", {"draftId": draft["id"], "subject": "Kept, changed"})
    [(new_uid, _flags, raw)] = on_server(filled)
    assert new_uid != uid and sync.parse(raw)[drafts.VERSION_HEADER] == "<2>"
