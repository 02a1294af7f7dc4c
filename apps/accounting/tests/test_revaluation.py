"""Revaluation of open foreign-currency balances (revalueForeignCurrency): a dry run lists it, the
real run posts one unrealised FX entry at the day's rates and its reversal on the next day, once
per day; refused in a locked period."""

from datetime import date
from decimal import Decimal

import pytest

from apps.accounting.lib import ledger
from apps.accounting.models import JournalEntry, PurchaseBill
from apps.accounting.services import bank as bank_services
from apps.accounting.services import payments, sales
from apps.accounting.tests.factories import credited, issued, posted_bill
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.accounting.tests.samples import started
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without, text_of

pytestmark = pytest.mark.django_db


def balances(as_of: date | None = None) -> dict[str, Decimal]:
    return {row.code: row.debit - row.credit for row in ledger.trial_balance(as_of=as_of).rows}


def euro_books(owner) -> dict:
    """An invoice of 1200 EUR (1000 net) and a bill of 600 EUR booked at 0.85, 200 EUR of the
    invoice paid into a euro bank account at 0.86; 0.87 recorded for 31 March."""
    for day, rate in (("2026-03-02", "0.85"), ("2026-03-10", "0.86"), ("2026-03-31", "0.87")):
        ok(owner, "recordExchangeRate", {"source": "EUR", "rate": rate, "on": day})
    invoice = issued(owner, currency="EUR", customer="Lyon Bistro", lines=[("Catering", "1000", "UK-STD")])
    bill = posted_bill(
        owner,
        supplier="Paris Linen",
        reference="PL-77",
        net="500",
        currency="EUR",
        tax_code="UK-STD",
        day=date(2026, 3, 2),
    )
    euros = bank_services.bank_account_create(actor=owner, name="Euro account", currency="EUR")
    sales.record_payment(
        actor=owner,
        document=invoice,
        amount=Decimal("200"),
        day=date(2026, 3, 10),
        bank_account=euros.account.code,
    )
    return {"invoice": invoice, "bill": bill, "bank": euros}


def test_a_dry_run_lists_what_the_revaluation_would_post_and_posts_nothing(people):
    owner = people["owner"]
    books = euro_books(owner)
    entries = JournalEntry.objects.count()

    answer = ok(owner, "revalueForeignCurrency", {"on": "2026-03-31", "dryRun": True})
    assert (answer["dryRun"], answer["entryId"], answer["alreadyPosted"]) == (True, None, False)
    assert answer["rates"] == [{"currency": "EUR", "rate": "0.87", "day": "2026-03-31"}]
    rows = {(item["kind"], item["id"]): item for item in answer["items"]}
    invoice = rows[("invoice", books["invoice"].pk)]
    assert (invoice["openAmount"], invoice["carried"], invoice["revalued"], invoice["difference"]) == (
        "1000.00",
        "850.00",
        "870.00",
        "20.00",
    )
    bill = rows[("bill", books["bill"].pk)]
    assert (bill["openAmount"], bill["carried"], bill["revalued"], bill["difference"]) == (
        "600.00",
        "-510.00",
        "-522.00",
        "-12.00",
    )
    bank = rows[("bank", books["bank"].pk)]
    assert (bank["openAmount"], bank["carried"], bank["revalued"], bank["difference"]) == (
        "200.00",
        "172.00",
        "174.00",
        "2.00",
    )
    assert answer["gain"] == "10.00"
    assert JournalEntry.objects.count() == entries


def test_the_revaluation_posts_an_unrealised_gain_and_reverses_it_the_next_day(people):
    owner = people["owner"]
    books = euro_books(owner)
    before = balances()
    bank_code = books["bank"].account.code

    answer = ok(owner, "revalueForeignCurrency", {"on": "2026-03-31"})
    assert answer["gain"] == "10.00" and answer["entryId"] and answer["reversalId"]
    entry = JournalEntry.objects.get(pk=answer["entryId"])
    reversal = JournalEntry.objects.get(pk=answer["reversalId"])
    assert (entry.date, entry.journal.code, entry.source, entry.currency) == (
        date(2026, 3, 31),
        "GEN",
        "fx-revaluation",
        "GBP",
    )
    assert (reversal.date, reversal.reverses_id) == (date(2026, 4, 1), entry.pk)
    assert all(line.amount == 0 for line in entry.lines.all())  # no foreign money moves

    at_month_end = balances(date(2026, 3, 31))
    assert at_month_end["1100"] - before["1100"] == Decimal("20.00")
    assert at_month_end["2100"] - before["2100"] == Decimal("-12.00")
    assert at_month_end[bank_code] - before[bank_code] == Decimal("2.00")
    assert at_month_end["7900"] - before.get("7900", Decimal(0)) == Decimal("-10.00")
    assert balances() == before  # the next day it is undone
    trial = ledger.trial_balance(as_of=date(2026, 3, 31))
    assert trial.total_debit == trial.total_credit

    # Once per day: asked again, it answers the same entries and posts nothing.
    again = ok(owner, "revalueForeignCurrency", {"on": "2026-03-31"})
    assert (again["alreadyPosted"], again["entryId"], again["reversalId"]) == (
        True,
        answer["entryId"],
        answer["reversalId"],
    )
    assert JournalEntry.objects.filter(source="fx-revaluation").count() == 2


def test_a_later_payment_still_realises_against_the_invoices_own_rate(people):
    owner = people["owner"]
    books = euro_books(owner)
    ok(owner, "revalueForeignCurrency", {"on": "2026-03-31"})
    ok(owner, "recordExchangeRate", {"source": "EUR", "rate": "0.88", "on": "2026-04-10"})
    payment = sales.record_payment(
        actor=owner, document=books["invoice"], amount=Decimal("1000"), day=date(2026, 4, 10)
    )
    assert payment.fx_gain == Decimal("30.00")  # 1000 x (0.88 - 0.85), the realised gain
    assert balances().get("1100", Decimal(0)) == Decimal(0)


def test_nothing_foreign_is_nothing_to_post_and_bad_input_is_refused(people):
    owner = people["owner"]
    issued(owner)  # in pounds: not revalued
    answer = ok(owner, "revalueForeignCurrency", {"on": "2026-03-31"})
    assert (answer["items"], answer["entryId"], answer["gain"]) == ([], None, "0.00")
    assert "`on`: Input should be a valid date" in refused(
        owner, "revalueForeignCurrency", {"on": "31/03/2026"}
    )
    assert JournalEntry.objects.filter(source="fx-revaluation").count() == 0


def test_a_locked_day_is_refused_before_the_confirmation(people):
    owner = people["owner"]
    euro_books(owner)
    ok(owner, "setLockDate", {"lockDate": "2026-03-31"})
    asked = call(owner, "revalueForeignCurrency", {"on": "2026-03-30"}, session=started(owner))
    assert asked["isError"] is True and "Confirmation required" not in text_of(asked)
    assert "2026-03-30 is in a locked period" in text_of(asked)
    assert "2026-03-31 is in a locked period" in refused(
        owner, "revalueForeignCurrency", {"on": "2026-03-31", "dryRun": True}
    )
    assert JournalEntry.objects.filter(source="fx-revaluation").count() == 0
    with pytest.raises(ToolNotFound):
        call(
            person_without("accounting.post", email="no-revalue@acme.example"),
            "revalueForeignCurrency",
            {"on": "2026-03-31"},
            session=MemorySession(),
        )


def test_what_is_open_is_read_as_of_the_day_payments_after_it_do_not_count(people):
    """Revalued late (in April, for 31 March), the invoice and bill paid in full on 5 April are
    still open on 31 March, as the books were at the month's end; a day after the payments, they
    are not."""
    owner = people["owner"]
    books = euro_books(owner)
    ok(owner, "recordExchangeRate", {"source": "EUR", "rate": "0.88", "on": "2026-04-05"})
    invoice, bill = books["invoice"], books["bill"]
    sales.record_payment(
        actor=owner,
        document=invoice,
        amount=Decimal("1000"),
        day=date(2026, 4, 5),
        bank_account=books["bank"].account.code,
    )
    payments.pay_bill(
        actor=owner, bill=PurchaseBill.objects.get(pk=bill.pk), amount=Decimal("600"), day=date(2026, 4, 5)
    )
    invoice.refresh_from_db()
    assert (invoice.status, invoice.amount_due) == ("paid", Decimal("0.00"))
    assert PurchaseBill.objects.get(pk=bill.pk).status == "paid"

    answer = ok(owner, "revalueForeignCurrency", {"on": "2026-03-31", "dryRun": True})
    rows = {(item["kind"], item["id"]): item for item in answer["items"]}
    assert (rows[("invoice", invoice.pk)]["openAmount"], rows[("invoice", invoice.pk)]["difference"]) == (
        "1000.00",
        "20.00",
    )
    assert (rows[("bill", bill.pk)]["openAmount"], rows[("bill", bill.pk)]["difference"]) == (
        "600.00",
        "-12.00",
    )
    assert answer["gain"] == "10.00"  # as before the payments: the bank's 200 EUR too

    later = ok(owner, "revalueForeignCurrency", {"on": "2026-04-06", "dryRun": True})
    kinds = {item["kind"] for item in later["items"]}
    assert kinds == {"bank"}  # paid on 5 April: nothing open on the 6th but the euro account


def test_a_credit_note_dated_after_the_day_does_not_count_on_it(people):
    """A credit note of 300 EUR dated 2 April settles 300 of the invoice on its approval: on 31 March
    the invoice was still open by 1000, on 2 April by 700."""
    owner = people["owner"]
    books = euro_books(owner)
    ok(owner, "recordExchangeRate", {"source": "EUR", "rate": "0.88", "on": "2026-04-02"})
    invoice = books["invoice"]
    credited(owner, invoice, price="250", day=date(2026, 4, 2))
    invoice.refresh_from_db()
    assert invoice.amount_due == Decimal("700.00")

    def open_invoice(on: str) -> str:
        answer = ok(owner, "revalueForeignCurrency", {"on": on, "dryRun": True})
        return next(item["openAmount"] for item in answer["items"] if item["kind"] == "invoice")

    assert open_invoice("2026-03-31") == "1000.00"
    assert open_invoice("2026-04-02") == "700.00"
