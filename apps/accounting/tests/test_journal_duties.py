"""Separation of duties for manual journals: while the books separate duties, postJournal saves a
draft journal awaiting approval; another person posts it with approveJournal (its reversal with it)
or anyone discards it with discardJournal; its creator may not approve it, an admin neither.
Refusals come before the confirmation and write nothing."""

import pytest

from apps.accounting.models import DraftJournal, JournalEntry
from apps.accounting.tests.samples import ACCRUAL
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call

pytestmark = pytest.mark.django_db

JOURNAL = {"on": "2026-03-31", "narration": "Accrued audit fee", "lines": ACCRUAL, "reverseOn": "2026-04-01"}
CREATED_BY_YOU = "was created by you, and the books separate duties"


def test_off_the_journal_posts_at_once_as_before(people):
    posted = ok(people["member"], "postJournal", JOURNAL)
    assert posted["status"] == "posted"
    assert posted["note"] == f"Posted as entry {posted['id']}."
    assert posted["reversal"]["date"] == "2026-04-01"
    assert posted["lines"][0]["baseAmount"] == "1200.00"
    assert DraftJournal.objects.count() == 0
    assert JournalEntry.objects.filter(source="manual").count() == 2


def test_on_a_journal_waits_for_another_person_who_posts_it_and_its_reversal(people, acme_client):
    owner, member = people["owner"], people["member"]
    ok(owner, "setSeparationOfDuties", {"on": True})

    drafted = ok(member, "postJournal", JOURNAL)
    draft_id = drafted["id"]
    assert drafted["status"] == "awaiting_approval"
    assert f"saved as draft journal {draft_id}, awaiting approval" in drafted["note"]
    assert (drafted["reversal"], drafted["reverseOn"], drafted["rate"]) == (None, "2026-04-01", None)
    assert [(line["account"], line["debit"], line["credit"]) for line in drafted["lines"]] == [
        ("6000", "1200.00", "0.00"),
        ("2300", "0.00", "1200.00"),
    ]
    assert JournalEntry.objects.count() == 0

    waiting = ok(member, "listJournals", {"status": "awaiting_approval"})["items"]
    assert [(row["id"], row["status"], row["narration"]) for row in waiting] == [
        (draft_id, "awaiting_approval", "Accrued audit fee")
    ]
    assert ok(member, "listJournals", {"status": "awaiting_approval", "account": "6000"})["items"]
    assert ok(member, "listJournals", {"status": "awaiting_approval", "account": "4000"})["items"] == []
    assert ok(member, "listJournals", {"manual": True})["items"] == []
    acme_client.force_login(owner)
    page = acme_client.get("/settings/accounting/").content.decode()
    assert "Journals awaiting approval" in page and "Accrued audit fee" in page

    message = refused(member, "approveJournal", {"draftId": draft_id})
    assert f"Draft journal {draft_id} {CREATED_BY_YOU}" in message
    assert JournalEntry.objects.count() == 0

    approved = ok(owner, "approveJournal", {"draftId": draft_id})
    assert approved["status"] == "posted"
    assert approved["reversal"]["date"] == "2026-04-01"
    entry = JournalEntry.objects.get(pk=approved["id"])
    assert (entry.source, entry.posted_by_id, str(entry.date)) == ("manual", owner.pk, "2026-03-31")
    draft = DraftJournal.objects.get(pk=draft_id)
    assert (draft.status, draft.entry_id, draft.decided_by_id) == ("posted", entry.pk, owner.pk)
    assert ok(member, "listJournals", {"status": "awaiting_approval"})["items"] == []
    assert len(ok(member, "listJournals", {"manual": True})["items"]) == 2
    assert "Journals awaiting approval" not in acme_client.get("/settings/accounting/").content.decode()

    assert "is posted already" in refused(owner, "approveJournal", {"draftId": draft_id})
    assert "is posted already" in refused(member, "discardJournal", {"draftId": draft_id})
    assert JournalEntry.objects.count() == 2


def test_an_admin_may_not_approve_their_own_journal(people):
    owner, admin = people["owner"], people["admin"]
    ok(owner, "setSeparationOfDuties", {"on": True})
    drafted = ok(owner, "postJournal", {**JOURNAL, "reverseOn": None})
    assert CREATED_BY_YOU in refused(owner, "approveJournal", {"draftId": drafted["id"]})
    approved = ok(admin, "approveJournal", {"draftId": drafted["id"]})
    assert (approved["status"], approved["reversal"]) == ("posted", None)
    assert JournalEntry.objects.count() == 1


def test_a_draft_is_discarded_and_never_posts(people):
    owner, member = people["owner"], people["member"]
    ok(owner, "setSeparationOfDuties", {"on": True})
    drafted = ok(member, "postJournal", JOURNAL)
    discarded = ok(member, "discardJournal", {"draftId": drafted["id"]})
    assert (discarded["id"], discarded["status"]) == (drafted["id"], "discarded")
    assert "is discarded already" in refused(owner, "approveJournal", {"draftId": drafted["id"]})
    assert "is discarded already" in refused(owner, "discardJournal", {"draftId": drafted["id"]})
    assert [row["id"] for row in ok(member, "listJournals", {"status": "discarded"})["items"]] == [
        drafted["id"]
    ]
    assert ok(member, "listJournals", {"status": "awaiting_approval"})["items"] == []
    assert JournalEntry.objects.count() == 0


def test_bad_drafts_and_approvals_are_refused_writing_nothing(people):
    owner, member = people["owner"], people["member"]
    ok(owner, "setSeparationOfDuties", {"on": True})
    unbalanced = [{"account": "6000", "debit": "1200"}, {"account": "2300", "credit": "1100"}]
    assert "does not balance" in refused(member, "postJournal", {**JOURNAL, "lines": unbalanced})
    control = [{"account": "6000", "debit": "10"}, {"account": "1100", "credit": "10"}]
    assert "control or bank account" in refused(member, "postJournal", {**JOURNAL, "lines": control})
    assert "reverseOn" in refused(member, "postJournal", {**JOURNAL, "reverseOn": "2026-03-30"})
    assert refused(member, "approveJournal", {"draftId": 987654})
    assert DraftJournal.objects.count() == 0

    drafted = ok(member, "postJournal", JOURNAL)
    ok(owner, "setLockDate", {"lockDate": "2026-03-31"})
    assert "PERIOD_LOCKED" in refused(owner, "approveJournal", {"draftId": drafted["id"]}) or (
        "locked" in refused(owner, "approveJournal", {"draftId": drafted["id"]})
    )
    assert "locked" in refused(member, "postJournal", JOURNAL).lower()
    assert JournalEntry.objects.count() == 0
    assert DraftJournal.objects.get(pk=drafted["id"]).status == "awaiting_approval"

    # The lock moved back, another person posts it; a viewer neither sees nor calls the tools.
    ok(owner, "setLockDate", {"lockDate": None})
    with pytest.raises(ToolNotFound):
        call(people["viewer"], "approveJournal", {"draftId": drafted["id"]}, session=MemorySession())
    assert ok(owner, "approveJournal", {"draftId": drafted["id"]})["status"] == "posted"


def test_off_again_the_creator_approves_a_draft_left_waiting(people):
    owner, member = people["owner"], people["member"]
    ok(owner, "setSeparationOfDuties", {"on": True})
    drafted = ok(member, "postJournal", {**JOURNAL, "reverseOn": None})
    ok(owner, "setSeparationOfDuties", {"on": False})
    assert ok(member, "approveJournal", {"draftId": drafted["id"]})["status"] == "posted"
