"""Period close: the lock date (an admin's, by tool and on the Accounting page) and manual
journals (balanced, narrated, dated, refused in a locked period, reversed by a reversing entry,
reversed automatically on a day); reading the journal entries."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from apps.accounting.lib import ledger
from apps.accounting.models import JournalEntry
from apps.accounting.tests.factories import issued
from apps.accounting.tests.samples import ACCRUAL, manual_journal
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without

pytestmark = pytest.mark.django_db


def balances() -> dict[str, Decimal]:
    return {row.code: row.debit - row.credit for row in ledger.trial_balance().rows}


@pytest.mark.parametrize(
    ("name", "permission", "arguments"),
    [
        ("setLockDate", "accounting.admin", {"lockDate": "2025-12-31"}),
        ("postJournal", "accounting.post", {"on": "2026-03-31", "narration": "x", "lines": ACCRUAL}),
        ("reverseJournal", "accounting.post", {"entryId": 1}),
        ("listJournals", "accounting.view", {}),
    ],
)
def test_a_role_without_the_permission_cannot_call_it(acme, name, permission, arguments):
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments, session=MemorySession())


def test_the_lock_date_is_set_moved_and_cleared_by_an_admin(people):
    owner = people["owner"]

    answer = ok(owner, "setLockDate", {"lockDate": "2026-03-31"})
    assert (answer["lockDate"], answer["previous"]) == ("2026-03-31", None)
    assert ok(people["viewer"], "getAccountingSummary")["lockDate"] == "2026-03-31"
    moved = ok(owner, "setLockDate", {"lockDate": "2026-04-30"})
    assert (moved["lockDate"], moved["previous"]) == ("2026-04-30", "2026-03-31")

    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()
    assert "`lockDate`: is after today" in refused(owner, "setLockDate", {"lockDate": tomorrow})
    assert ledger.books().lock_date == date(2026, 4, 30)
    assert ok(owner, "setLockDate", {"lockDate": None})["lockDate"] is None


def test_the_accounting_page_moves_the_lock_date_for_admins_only(people, acme_client):
    acme_client.force_login(people["owner"])
    page = acme_client.get("/settings/accounting/").content.decode()
    assert 'action="/settings/accounting/lock-date/"' in page

    shown = acme_client.post("/settings/accounting/lock-date/", {"lock_date": "2026-02-28"}, follow=True)
    assert "locked up to 2026-02-28" in shown.content.decode()
    assert ledger.books().lock_date == date(2026, 2, 28)
    later = (timezone.localdate() + timedelta(days=3)).isoformat()
    refusal = acme_client.post("/settings/accounting/lock-date/", {"lock_date": later}, follow=True)
    assert "is after today" in refusal.content.decode()
    assert ledger.books().lock_date == date(2026, 2, 28)

    acme_client.force_login(person_without("accounting.admin", email="no-lock@acme.example"))
    assert acme_client.post("/settings/accounting/lock-date/", {"lock_date": ""}).status_code == 403
    page = acme_client.get("/settings/accounting/").content.decode()
    assert "lock-date/" not in page
    assert ledger.books().lock_date == date(2026, 2, 28)


def test_a_manual_journal_posts_balanced_with_its_narration(people):
    member = people["member"]

    posted = ok(
        member, "postJournal", {"on": "2026-03-31", "narration": "Accrued audit fee", "lines": ACCRUAL}
    )

    assert (posted["journal"], posted["source"], posted["narration"]) == (
        "GEN",
        "manual",
        "Accrued audit fee",
    )
    assert [(line["account"], line["debit"], line["credit"]) for line in posted["lines"]] == [
        ("6000", "1200.00", "0.00"),
        ("2300", "0.00", "1200.00"),
    ]
    assert posted["reversal"] is None and posted["reversedBy"] is None
    assert balances() == {"6000": Decimal("1200.00"), "2300": Decimal("-1200.00")}
    assert ledger.trial_balance().balanced


def test_a_manual_journal_in_another_currency_is_posted_at_its_rate(people):
    posted = ok(
        people["member"],
        "postJournal",
        {
            "on": "2026-03-02",
            "narration": "Prepaid US subscription",
            "currency": "USD",
            "lines": [{"account": "1300", "debit": "100"}, {"account": "6300", "credit": "100"}],
        },
    )
    assert posted["currency"] == "USD" and Decimal(posted["rate"]) > 0
    assert ledger.trial_balance().balanced


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {"lines": [{"account": "6000", "debit": "100"}, {"account": "2300", "credit": "90"}]},
            "does not balance",
        ),
        ({"narration": "   "}, "`narration`: say why"),
        (
            {"lines": [{"account": "6000", "debit": "10", "credit": "10"}, ACCRUAL[1]]},
            "give a debit or a credit",
        ),
        (
            {"lines": [{"account": "6000", "debit": "1.005"}, {"account": "2300", "credit": "1.005"}]},
            "decimals",
        ),
        ({"lines": [{"account": "9999", "debit": "1"}, ACCRUAL[1]]}, "there is no account 9999"),
        ({"lines": [{"account": "1200", "debit": "1200"}, ACCRUAL[1]]}, "control or bank account"),
        ({"lines": [{"account": "1100", "debit": "1200"}, ACCRUAL[1]]}, "control or bank account"),
        ({"reverseOn": "2026-03-31"}, "`reverseOn`: must be after"),
        ({"currency": "XXX"}, "currency"),
    ],
)
def test_a_journal_that_does_not_hold_is_refused_and_posts_nothing(people, arguments, expected):
    message = refused(
        people["member"],
        "postJournal",
        {"on": "2026-03-31", "narration": "Accrual", "lines": ACCRUAL, **arguments},
    )
    assert expected in message
    assert not JournalEntry.objects.exists()


def test_a_journal_is_refused_in_a_locked_period_and_its_reversal_too(people):
    member = people["member"]
    ok(people["owner"], "setLockDate", {"lockDate": "2026-03-31"})

    message = refused(
        member, "postJournal", {"on": "2026-03-31", "narration": "Late accrual", "lines": ACCRUAL}
    )
    assert "PERIOD_LOCKED" in message or "locked period" in message

    ok(people["owner"], "setLockDate", {"lockDate": None})
    entry = manual_journal(member)
    ok(people["owner"], "setLockDate", {"lockDate": "2026-04-05"})
    assert "locked period" in refused(member, "reverseJournal", {"entryId": entry.pk, "on": "2026-04-01"})
    reversal = ok(member, "reverseJournal", {"entryId": entry.pk, "on": "2026-04-06"})
    assert reversal["date"] == "2026-04-06"


def test_a_journal_is_reversed_once_by_a_reversing_entry(people):
    member = people["member"]
    entry = manual_journal(member)

    reversal = ok(member, "reverseJournal", {"entryId": entry.pk, "on": "2026-04-01"})

    assert (reversal["reverses"], reversal["source"], reversal["date"]) == (entry.pk, "manual", "2026-04-01")
    assert reversal["narration"] == "Reversal of Accrued audit fee"
    assert [(line["account"], line["debit"], line["credit"]) for line in reversal["lines"]] == [
        ("6000", "0.00", "1200.00"),
        ("2300", "1200.00", "0.00"),
    ]
    assert balances() == {}
    assert {row.code for row in ledger.trial_balance(as_of=date(2026, 3, 31)).rows} == {"6000", "2300"}
    read = ok(member, "listJournals", {"entryId": entry.pk})["items"][0]
    assert read["reversedBy"] == reversal["id"]

    assert "reversed already" in refused(member, "reverseJournal", {"entryId": entry.pk})
    assert "not a manual journal" in refused(member, "reverseJournal", {"entryId": reversal["id"]})
    assert "before the journal's date" in refused(
        member, "reverseJournal", {"entryId": manual_journal(member).pk, "on": "2026-03-30"}
    )
    invoice = issued(member)
    message = refused(member, "reverseJournal", {"entryId": invoice.entry_id})
    assert "not a manual journal (posted by invoice:" in message and "manageInvoice" in message
    assert "listJournals" in refused(member, "reverseJournal", {"entryId": 999_999})


def test_an_accrual_reverses_itself_on_the_day_given(people):
    posted = ok(
        people["member"],
        "postJournal",
        {"on": "2026-03-31", "narration": "Accrued audit fee", "lines": ACCRUAL, "reverseOn": "2026-04-01"},
    )

    reversal = posted["reversal"]
    assert (reversal["date"], reversal["reverses"], posted["reversedBy"]) == (
        "2026-04-01",
        posted["id"],
        reversal["id"],
    )
    assert balances() == {}
    assert ledger.balance_of(ledger.accounts_by_code(["2300"])["2300"], as_of=date(2026, 3, 31)) == Decimal(
        -1200
    )


def test_journal_entries_are_listed_with_their_lines(people):
    member = people["member"]
    manual_journal(member, narration="Rent prepaid")
    issued(member)

    every = ok(people["viewer"], "listJournals", {})
    assert every["total"] == 2
    manual = ok(people["viewer"], "listJournals", {"manual": True})
    assert [item["narration"] for item in manual["items"]] == ["Rent prepaid"]
    on_sales = ok(people["viewer"], "listJournals", {"account": "4000"})
    assert [item["journal"] for item in on_sales["items"]] == ["SAL"]
    assert ok(people["viewer"], "listJournals", {"end": "2026-03-01"})["total"] == 0
