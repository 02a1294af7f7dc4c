"""Quotes, invoices and credit notes through the tools: drafts, gap-free numbers at approval,
postings, voids and payments with realised FX; per tool a normal call, bad input and a refusal."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.db import transaction

from apps.accounting.lib import ledger
from apps.accounting.models import Account, JournalEntry, NumberSeries, SalesDocument
from apps.accounting.services import sales
from apps.accounting.tests.factories import draft, issued
from apps.accounting.tests.samples import LINES
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without

pytestmark = pytest.mark.django_db

PERMISSIONS = {
    "createInvoice": "accounting.edit",
    "getInvoice": "accounting.view",
    "updateInvoice": "accounting.edit",
    "deleteInvoice": "accounting.delete",
    "duplicateInvoice": "accounting.edit",
    "approveInvoice": "accounting.post",
    "searchInvoices": "accounting.view",
    "manageInvoice": "accounting.post",
    "recordPayment": "accounting.post",
    "createQuote": "accounting.edit",
    "getQuote": "accounting.view",
    "updateQuote": "accounting.edit",
    "deleteQuote": "accounting.delete",
    "searchQuotes": "accounting.view",
    "manageQuote": "accounting.post",
}


def assert_trial_balance_is_zero():
    balance = ledger.trial_balance()
    assert balance.total_debit == balance.total_credit


@pytest.mark.parametrize("name", sorted(PERMISSIONS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    person = person_without(PERMISSIONS[name], email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, {}, session=MemorySession())


@pytest.mark.parametrize("name", ["createInvoice", "approveInvoice", "recordPayment", "deleteQuote"])
def test_viewers_may_not_change_the_books(people, name):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], name, {})


def test_numbers_are_gap_free_even_when_an_approval_is_rolled_back(people):
    owner = people["owner"]
    first, second, third = draft(owner), draft(owner), draft(owner)

    assert ok(owner, "approveInvoice", {"invoiceId": first.pk})["number"] == "INV-0001"
    with pytest.raises(RuntimeError), transaction.atomic():
        sales.document_approve(actor=owner, document=second)
        raise RuntimeError("the approving transaction fails after taking a number")
    assert ok(owner, "approveInvoice", {"invoiceId": third.pk})["number"] == "INV-0002"
    second.refresh_from_db()
    assert second.number == "" and second.status == "draft"
    assert ok(owner, "approveInvoice", {"invoiceId": second.pk})["number"] == "INV-0003"
    assert NumberSeries.objects.get(key="invoice").next_number == 4
    assert_trial_balance_is_zero()


def test_quote_to_invoice_to_payment_with_an_fx_gain(people):
    owner = people["owner"]
    quote = ok(
        owner,
        "createQuote",
        {
            "quote": {"customerName": "Initech GmbH", "currency": "EUR", "issueDate": "2026-03-02"},
            "lines": LINES,
        },
    )
    assert (quote["kind"], quote["number"], quote["total"]) == ("quote", "", "1440.00")
    ok(owner, "manageQuote", {"quoteId": quote["id"], "action": "approve"})
    ok(owner, "manageQuote", {"quoteId": quote["id"], "action": "accept"})
    made = ok(owner, "manageQuote", {"quoteId": quote["id"], "action": "invoice"})["created"]
    assert made["kind"] == "invoice" and made["originId"] == quote["id"] and made["status"] == "draft"
    assert ok(owner, "getQuote", {"quoteId": quote["id"]})["status"] == "invoiced"

    # Made today; dated back to the day the work was done.
    ok(owner, "updateInvoice", {"invoiceId": made["id"], "invoice": {"issueDate": "2026-03-02"}})
    invoice = ok(owner, "approveInvoice", {"invoiceId": made["id"]})
    assert invoice["number"] == "INV-0001" and Decimal(invoice["rate"]) > 0
    entry = JournalEntry.objects.get(source=f"invoice:{made['id']}")
    assert entry.currency == "EUR" and entry.rate == Decimal(invoice["rate"])
    assert_trial_balance_is_zero()

    # Paid in part on a day the euro is worth more in pounds: a realised gain.
    payment = ok(owner, "recordPayment", {"invoiceId": made["id"], "amount": "1000", "on": "2026-10-30"})
    gain = Decimal(payment["fxGain"])
    # In the base currency's minor units, as every amount of money in an answer ("-7.18", never
    # "-7.1800").
    assert payment["fxGain"] == str(gain.quantize(Decimal("0.01")))
    expected = (Decimal(1000) * (Decimal(payment["rate"]) - entry.rate)).quantize(Decimal("0.01"))
    assert abs(gain - expected) <= Decimal("0.01") and gain != 0
    assert payment["invoice"]["status"] == "part_paid" and payment["invoice"]["amountDue"] == "440.00"
    fx = ledger.balance_of(ledger.account(Account.Role.FX))
    assert fx == -gain
    assert_trial_balance_is_zero()

    paid = ok(owner, "recordPayment", {"invoiceId": made["id"], "amount": "440", "on": "2026-10-30"})
    assert paid["invoice"]["status"] == "paid" and paid["invoice"]["amountDue"] == "0.00"
    # Everything owed in euros was cleared at the invoice's rate: the receivable is back at zero.
    assert ledger.balance_of(ledger.account(Account.Role.RECEIVABLE)) == 0
    assert_trial_balance_is_zero()
    assert "an approved or sent invoice with an amount due" in refused(
        owner, "recordPayment", {"invoiceId": made["id"], "amount": "1", "on": "2026-10-30"}
    )


def test_an_issued_invoice_is_never_edited_or_deleted_but_voided_or_credited(people):
    owner = people["owner"]
    invoice = issued(owner)

    assert "only drafts" in refused(
        owner, "updateInvoice", {"invoiceId": invoice.pk, "invoice": {"reference": "x"}}
    )
    assert "only drafts" in refused(owner, "deleteInvoice", {"invoiceId": invoice.pk})
    credit = ok(owner, "manageInvoice", {"invoiceId": invoice.pk, "action": "credit"})["created"]
    assert credit["kind"] == "credit_note" and credit["originId"] == invoice.pk
    note = ok(owner, "approveInvoice", {"invoiceId": credit["id"]})
    assert note["number"] == "CN-0001"
    assert ledger.balance_of(ledger.account(Account.Role.RECEIVABLE)) == 0
    # The credit note settles the invoice it corrects: nothing is left to chase or to pay.
    invoice.refresh_from_db()
    assert (invoice.status, invoice.amount_due) == ("paid", 0)
    corrected = SalesDocument.objects.get(pk=credit["id"])
    assert (corrected.status, corrected.amount_due) == ("paid", 0)
    assert "an approved or sent invoice with an amount due" in refused(
        owner, "recordPayment", {"invoiceId": invoice.pk, "amount": "1", "on": "2026-10-30"}
    )

    # A partial credit leaves the rest due; a credit larger than what is due stays open as credit.
    part_paid = issued(owner)
    ok(
        owner,
        "recordPayment",
        {"invoiceId": part_paid.pk, "amount": "50", "on": part_paid.issue_date.isoformat()},
    )
    partial = ok(owner, "manageInvoice", {"invoiceId": part_paid.pk, "action": "credit"})["created"]
    partial_note = SalesDocument.objects.get(pk=partial["id"])
    ok(owner, "approveInvoice", {"invoiceId": partial_note.pk})
    part_paid.refresh_from_db()
    partial_note.refresh_from_db()
    assert part_paid.amount_due == 0 and part_paid.status == "paid"
    assert partial_note.amount_due == 50 and partial_note.status == "part_paid"

    other = issued(owner)
    voided = ok(owner, "manageInvoice", {"invoiceId": other.pk, "action": "void"})
    assert voided["document"]["status"] == "void"
    assert JournalEntry.objects.filter(reverses=other.entry).exists()
    assert "approved or sent, with nothing paid" in refused(
        owner, "manageInvoice", {"invoiceId": other.pk, "action": "void"}
    )
    assert_trial_balance_is_zero()


def test_drafts_are_created_updated_duplicated_searched_and_deleted(people):
    owner = people["owner"]
    created = ok(
        owner,
        "createInvoice",
        {"invoice": {"customerName": "Hooli", "customerVatNumber": "GB 980 7806 84"}, "lines": LINES},
    )
    assert (created["currency"], created["net"], created["tax"], created["total"]) == (
        "GBP",
        "1200.00",
        "240.00",
        "1440.00",
    )
    assert created["customerVatNumber"] == "GB980780684"
    # The books' payment terms (30 days) give the due date.
    assert date.fromisoformat(created["dueDate"]) - date.fromisoformat(created["issueDate"]) == timedelta(
        days=30
    )

    updated = ok(owner, "updateInvoice", {"invoiceId": created["id"], "invoice": {"pricesIncludeTax": True}})
    assert updated["document"]["total"] == "1200.00" and "prices_include_tax" in updated["changed"]
    copy = ok(owner, "duplicateInvoice", {"invoiceId": created["id"]})
    assert copy["id"] != created["id"] and copy["lines"] == updated["document"]["lines"]

    found = ok(owner, "searchInvoices", {"query": "hooli consulting"})
    assert {item["id"] for item in found["items"]} == {created["id"], copy["id"]}
    assert ok(owner, "deleteInvoice", {"invoiceId": copy["id"]})["deleted"] is True
    assert "is deleted" in refused(owner, "getInvoice", {"invoiceId": copy["id"]})
    assert ok(owner, "searchInvoices", {"status": "draft"})["total"] >= 1


def test_overdue_invoices_are_found(people):
    late = issued(people["owner"], issue_date=date(2025, 1, 2))
    issued(people["owner"], issue_date=date(2099, 1, 2))

    answer = ok(people["member"], "searchInvoices", {"overdue": True})
    assert [item["id"] for item in answer["items"]] == [late.pk]


@pytest.mark.parametrize(
    ("name", "arguments", "problem"),
    [
        (
            "createInvoice",
            {"invoice": {"customerName": "X"}, "lines": [{**LINES[0], "taxType": "VAT99"}]},
            "no tax type VAT99",
        ),
        ("createInvoice", {"invoice": {"customerName": "X", "currency": "XAU"}, "lines": LINES}, "ISO 4217"),
        (
            "createInvoice",
            {"invoice": {"customerName": "X", "customerVatNumber": "DE123"}, "lines": LINES},
            "not a valid VAT number",
        ),
        ("createInvoice", {"invoice": {}, "lines": LINES}, "customerName"),
        (
            "createInvoice",
            {
                "invoice": {"customerName": "X", "issueDate": "2026-03-02", "dueDate": "2026-03-01"},
                "lines": LINES,
            },
            "dueDate",
        ),
        (
            "createInvoice",
            {"invoice": {"customerName": "X"}, "lines": [{**LINES[0], "account": "9999"}]},
            "no account 9999",
        ),
        ("getInvoice", {"invoiceId": 999999}, "Invoice 999999 was not found"),
        ("getQuote", {"quoteId": 999999}, "searchQuotes"),
        ("recordPayment", {"invoiceId": 999999, "amount": "1"}, "not found"),
        ("manageQuote", {"quoteId": 999999, "action": "launch"}, "action"),
    ],
)
def test_bad_input_is_named(people, name, arguments, problem):
    assert problem in refused(people["owner"], name, arguments)


def test_a_document_in_a_locked_period_is_not_approved(people):
    ledger.books_update(actor=people["owner"], lock_date=date(2026, 3, 31))
    invoice = draft(people["owner"], issue_date=date(2026, 3, 15))

    assert "locked period" in refused(people["owner"], "approveInvoice", {"invoiceId": invoice.pk})
    invoice.refresh_from_db()
    assert invoice.number == "" and not JournalEntry.objects.exists()


def test_payments_refuse_what_does_not_tie(people):
    invoice = issued(people["owner"])
    assert "more than the 120.00 GBP due" in refused(
        people["owner"], "recordPayment", {"invoiceId": invoice.pk, "amount": "500", "on": "2026-03-05"}
    )
    assert "before the invoice's issue date" in refused(
        people["owner"], "recordPayment", {"invoiceId": invoice.pk, "amount": "5", "on": "2026-01-01"}
    )
    assert "bankAccount" in refused(
        people["owner"], "recordPayment", {"invoiceId": invoice.pk, "amount": "5", "bankAccount": "4000"}
    )
    quote = draft(people["owner"], kind="quote")
    assert "Invoice" in refused(people["owner"], "getInvoice", {"invoiceId": quote.pk})
    assert SalesDocument.objects.get(pk=invoice.pk).amount_paid == 0


def test_an_amount_with_more_decimals_than_the_currency_says_it_was_rounded(people):
    member = people["member"]
    lines = [
        {"description": "Widgets", "quantity": "3", "unitPrice": "0.3333", "taxType": "UK-STD"},
        {"description": "Consulting", "quantity": "2", "unitPrice": "50", "taxType": "UK-STD"},
    ]
    created = ok(member, "createInvoice", {"invoice": {"customerName": "Initech"}, "lines": lines})
    assert created["rounded"] == ["line 1: 3 x 0.3333 is 0.9999, rounded to 1.00 GBP"]
    assert ok(member, "getInvoice", {"invoiceId": created["id"]})["rounded"] == created["rounded"]
    yen = ok(
        member,
        "createInvoice",
        {
            "invoice": {"customerName": "Initech", "currency": "JPY"},
            "lines": [{**lines[1], "unitPrice": "50.4"}],
        },
    )
    assert yen["rounded"] == ["line 1: 2 x 50.4 is 100.8, rounded to 101 JPY"]

    invoice = issued(member)
    paid = ok(member, "recordPayment", {"invoiceId": invoice.pk, "amount": "10.005", "on": "2026-03-10"})
    assert (paid["amount"], paid["rounded"]) == ("10.01", ["amount 10.005 rounded to 10.01 GBP"])
    exact = ok(member, "recordPayment", {"invoiceId": invoice.pk, "amount": "10", "on": "2026-03-10"})
    assert exact["rounded"] == []


def test_a_void_is_dated_as_asked_not_before_the_invoice_nor_in_a_locked_period(people):
    member = people["member"]
    invoice = issued(member, issue_date=date(2026, 3, 2))

    before = refused(member, "manageInvoice", {"invoiceId": invoice.pk, "action": "void", "on": "2026-03-01"})
    assert "`on`: is before the issue date 2026-03-02" in before
    ledger.books_update(actor=people["owner"], lock_date=date(2026, 3, 31))
    locked = refused(member, "manageInvoice", {"invoiceId": invoice.pk, "action": "void", "on": "2026-03-31"})
    assert "2026-03-31 is in a locked period" in locked
    assert SalesDocument.objects.get(pk=invoice.pk).status == "approved"

    voided = ok(member, "manageInvoice", {"invoiceId": invoice.pk, "action": "void", "on": "2026-04-01"})
    assert voided["document"]["status"] == "void"
    reversal = JournalEntry.objects.get(reverses_id=invoice.entry_id)
    assert reversal.date == date(2026, 4, 1)
    assert ledger.trial_balance().rows == []
