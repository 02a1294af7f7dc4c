"""Credit applied and refunded, payments removed and reconciled with bank lines, bills paid
without a bank line and voided, supplier credit notes: through the tools, each with its
refusals, the books tying after every step (the receivable and payable are the amounts due)."""

from datetime import date
from decimal import Decimal

import pytest
from django.db.models import Sum

from apps.accounting.lib import ledger
from apps.accounting.models import JournalEntry, JournalLine, Payment, PurchaseBill, SalesDocument
from apps.accounting.tests.factories import bank_line, credited, issued, paid, posted_bill
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.accounting.tests.samples import started
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without, text_of

pytestmark = pytest.mark.django_db

PERMISSIONS = {
    "allocateCreditNote": "accounting.post",
    "refundCreditNote": "accounting.post",
    "removePayment": "accounting.delete",
    "recordBillPayment": "accounting.post",
    "createSupplierCreditNote": "accounting.edit",
    "voidBill": "accounting.post",
}


def _sum(rows) -> Decimal:
    return rows.aggregate(total=Sum("amount"))["total"] or Decimal(0)


def assert_books_tie() -> None:
    """Debits equal credits; per currency, the receivable is what invoices are owed less the
    credit left on credit notes, and the payable what bills are owed."""
    balance = ledger.trial_balance()
    assert balance.total_debit == balance.total_credit
    for currency in ("GBP", "EUR"):
        lines = JournalLine.objects.filter(entry__currency=currency)
        documents = SalesDocument.objects.filter(currency=currency).exclude(status__in=("draft",))
        owed = sum((d.amount_due for d in documents.filter(kind="invoice")), Decimal(0))
        credit = sum((d.amount_due for d in documents.filter(kind="credit_note")), Decimal(0))
        assert _sum(lines.filter(account__role="receivable")) == owed - credit
        bills = PurchaseBill.objects.filter(currency=currency).exclude(status__in=("proposal", "validated"))
        assert -_sum(lines.filter(account__role="payable")) == sum((b.amount_due for b in bills), Decimal(0))


def bank_balance() -> Decimal:
    return _sum(JournalLine.objects.filter(account__role="bank"))


@pytest.mark.parametrize("name", sorted(PERMISSIONS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    person = person_without(PERMISSIONS[name], email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, {}, session=MemorySession())


# --- credit: applied to another invoice, refunded ------------------------------------------------


def test_credit_left_on_a_paid_invoice_is_applied_to_another_open_invoice_of_the_customer(people):
    owner = people["owner"]
    first = issued(owner)
    paid(owner, first)
    note = credited(owner, first)  # 60.00: the invoice was paid, so all of it is left
    second = issued(owner, issue_date=date(2026, 3, 4))
    assert note.amount_due == Decimal("60.00")

    made = ok(
        owner, "allocateCreditNote", {"creditNoteId": note.pk, "invoiceId": second.pk, "on": "2026-03-10"}
    )

    assert (made["amount"], made["fxGain"]) == ("60.00", "0.00")
    assert (made["creditNote"]["amountDue"], made["creditNote"]["status"]) == ("0.00", "paid")
    assert (made["invoice"]["amountDue"], made["invoice"]["status"]) == ("60.00", "part_paid")
    assert_books_tie()
    # Nothing is left to apply or to pay back.
    assert "credit left" in refused(
        owner, "allocateCreditNote", {"creditNoteId": note.pk, "invoiceId": second.pk}
    )
    assert "credit left" in refused(owner, "refundCreditNote", {"creditNoteId": note.pk, "amount": "1"})


def test_credit_is_applied_only_within_what_both_allow_and_to_the_same_customer_and_currency(people):
    owner = people["owner"]
    first = issued(owner)
    paid(owner, first)
    note = credited(owner, first)
    other_customer = issued(owner, customer="Globex")
    in_euros = issued(owner, currency="EUR")
    small = issued(owner, lines=[("Stamps", "10.00", "UK-STD")])  # 12.00 due

    assert "the same customer's invoices" in refused(
        owner, "allocateCreditNote", {"creditNoteId": note.pk, "invoiceId": other_customer.pk}
    )
    assert "EUR" in refused(owner, "allocateCreditNote", {"creditNoteId": note.pk, "invoiceId": in_euros.pk})
    assert "more than the 12.00 GBP due" in refused(
        owner, "allocateCreditNote", {"creditNoteId": note.pk, "invoiceId": small.pk, "amount": "13"}
    )
    assert "before 2026-03-02" in refused(
        owner, "allocateCreditNote", {"creditNoteId": note.pk, "invoiceId": small.pk, "on": "2026-03-01"}
    )
    assert "credit note" in refused(
        owner, "allocateCreditNote", {"creditNoteId": first.pk, "invoiceId": small.pk}
    )
    # By default, as much as the invoice takes; the rest stays on the note.
    made = ok(
        owner, "allocateCreditNote", {"creditNoteId": note.pk, "invoiceId": small.pk, "on": "2026-03-10"}
    )
    assert (made["amount"], made["creditNote"]["amountDue"], made["invoice"]["status"]) == (
        "12.00",
        "48.00",
        "paid",
    )
    assert_books_tie()


def test_credit_between_documents_posted_at_different_rates_realises_the_difference(people):
    owner = people["owner"]
    first = issued(owner, currency="EUR", issue_date=date(2026, 3, 2))
    paid(owner, first, day=date(2026, 3, 9))
    note = credited(owner, first)
    second = issued(owner, currency="EUR", issue_date=date(2026, 6, 1))
    assert note.rate != second.rate

    made = ok(
        owner, "allocateCreditNote", {"creditNoteId": note.pk, "invoiceId": second.pk, "on": "2026-06-02"}
    )

    entry = JournalEntry.objects.get(source=f"allocation:{note.pk}")
    fx = sum(line.base_amount for line in entry.lines.filter(account__role="fx"))
    assert fx != 0 and Decimal(made["fxGain"]) == -fx
    assert_books_tie()


def test_credit_is_refunded_out_of_the_bank_after_its_confirmation(people):
    owner = people["owner"]
    invoice = issued(owner)
    paid(owner, invoice)
    note = credited(owner, invoice)
    before = bank_balance()
    arguments = {"creditNoteId": note.pk, "amount": "20", "on": "2026-03-10", "reference": "RF-1"}

    # Without a way to ask, a possible refund asks for confirmation; an impossible one is refused
    # before anyone is asked.
    session = started(owner)
    asked = call(owner, "refundCreditNote", arguments, session=session)
    assert asked["isError"] is True and "Confirmation required" in text_of(asked)
    too_much = call(owner, "refundCreditNote", {**arguments, "amount": "61"}, session=session)
    assert "more than the 60.00 GBP due" in text_of(too_much)
    assert "Confirmation required" not in text_of(too_much)
    assert bank_balance() == before

    refund = ok(owner, "refundCreditNote", arguments)

    assert (refund["payment"]["amount"], refund["creditNote"]["amountDue"]) == ("20.00", "40.00")
    assert refund["creditNote"]["status"] == "part_paid" and refund["fxGain"] == "0.00"
    assert bank_balance() == before - Decimal("20.00")
    assert_books_tie()
    assert "before the credit note's issue date" in refused(
        owner, "refundCreditNote", {**arguments, "on": "2026-03-01"}
    )
    assert "not a bank account" in refused(owner, "refundCreditNote", {**arguments, "bankAccount": "4000"})
    assert "credit note" in refused(owner, "refundCreditNote", {**arguments, "creditNoteId": invoice.pk})
    listed = ok(owner, "getInvoice", {"invoiceId": note.pk})["payments"]
    assert [(p["amount"], p["reference"], p["removed"]) for p in listed] == [("20.00", "RF-1", False)]


# --- payments removed, and reconciled against bank lines ------------------------------------------


def test_a_payment_is_removed_by_a_reversing_entry_and_the_amount_is_due_again(people):
    owner = people["owner"]
    invoice = issued(owner)
    payment = paid(owner, invoice, amount="50")
    posted = list(JournalLine.objects.filter(entry=payment.entry).values_list("amount", "base_amount"))

    removed = ok(owner, "removePayment", {"paymentId": payment.pk})

    assert removed["payment"]["removed"] is True and removed["bill"] is None
    assert (removed["invoice"]["amountDue"], removed["invoice"]["status"]) == ("120.00", "approved")
    payment.refresh_from_db()
    assert payment.reversal is not None and payment.reversal.reverses_id == payment.entry_id
    assert (
        list(JournalLine.objects.filter(entry=payment.entry).values_list("amount", "base_amount")) == posted
    )
    assert_books_tie()
    assert "was removed" in refused(owner, "removePayment", {"paymentId": payment.pk})
    assert "not found" in refused(owner, "removePayment", {"paymentId": 999999})
    # The invoice can be paid again, or voided now that nothing is paid.
    assert (
        ok(owner, "manageInvoice", {"invoiceId": invoice.pk, "action": "void"})["document"]["status"]
        == "void"
    )
    assert_books_tie()


def test_a_payment_recorded_first_is_reconciled_by_its_bank_line_without_paying_twice(people):
    owner = people["owner"]
    invoice = issued(owner)
    payment = paid(owner, invoice)
    line = bank_line(owner, "120.00", day=date(2026, 3, 10), reference="Northwind")
    entries = JournalEntry.objects.count()

    # Matched to the invoice's lines, it would pay the invoice again: refused.
    assert "is paid" in refused(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [line.pk], "lines": [{"invoiceId": invoice.pk}]},
    )
    made = ok(
        owner, "matchPurchaseInvoiceLineToFinancial", {"financialIds": [line.pk], "paymentIds": [payment.pk]}
    )

    assert [(p["id"], p["reconciled"]) for p in made["payments"]] == [(payment.pk, True)]
    assert made["lines"] == [] and made["total"] == "120.00"
    assert JournalEntry.objects.count() == entries  # nothing posted again
    invoice.refresh_from_db()
    assert (invoice.amount_paid, invoice.amount_due) == (Decimal("120.00"), Decimal("0.00"))
    assert_books_tie()
    # Reconciled: not twice, and not removed until the match is undone.
    again = bank_line(owner, "120.00", day=date(2026, 3, 11), description="again")
    assert "reconciled already" in refused(
        owner, "matchPurchaseInvoiceLineToFinancial", {"financialIds": [again.pk], "paymentIds": [payment.pk]}
    )
    assert "unmatchPurchaseInvoiceLine" in refused(owner, "removePayment", {"paymentId": payment.pk})
    ok(owner, "unmatchPurchaseInvoiceLine", {"matchId": made["id"]})
    payment.refresh_from_db()
    assert payment.reconciled_by_id is None and payment.removed_at is None
    invoice.refresh_from_db()
    assert invoice.amount_due == 0
    ok(owner, "removePayment", {"paymentId": payment.pk})
    assert_books_tie()


def test_a_bank_line_reconciles_a_payment_only_when_the_amounts_tie(people):
    owner = people["owner"]
    payment = paid(owner, issued(owner), amount="100")
    line = bank_line(owner, "120.00")

    text = refused(
        owner, "matchPurchaseInvoiceLineToFinancial", {"financialIds": [line.pk], "paymentIds": [payment.pk]}
    )
    assert "120.00" in text and "100.00" in text
    assert "at least one" in refused(
        owner, "matchPurchaseInvoiceLineToFinancial", {"financialIds": [line.pk]}
    )
    assert Payment.objects.get(pk=payment.pk).reconciled_by_id is None


def test_a_payment_made_by_a_bank_match_is_removed_by_undoing_the_match(people):
    owner = people["owner"]
    invoice = issued(owner)
    line = bank_line(owner, "120.00")
    ok(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [line.pk], "lines": [{"invoiceId": invoice.pk}]},
    )
    payment = Payment.objects.get(document=invoice)

    session = started(owner)
    answer = call(owner, "removePayment", {"paymentId": payment.pk}, session=session)
    assert answer["isError"] is True and "Confirmation required" not in text_of(answer)
    assert "reconciled with a bank line" in text_of(answer)


# --- supplier credit notes ---------------------------------------------------------------------------


def test_a_supplier_credit_note_settles_its_bill_and_a_refund_settles_what_is_left(people):
    owner = people["owner"]
    bill = posted_bill(owner, net="100.00")
    ok(owner, "recordBillPayment", {"billId": bill.pk, "amount": "100", "on": "2026-03-06"})
    drafted = ok(
        owner,
        "createSupplierCreditNote",
        {
            "billId": bill.pk,
            "reference": "SCN-1",
            "issueDate": "2026-03-07",
            "lines": [{"description": "Damaged chairs", "unitPrice": "30", "taxType": "NONE"}],
        },
    )
    assert drafted["problems"] == [] and drafted["bill"]["status"] == "validated"
    assert (drafted["bill"]["total"], drafted["bill"]["originId"]) == ("-30.00", bill.pk)

    posted = ok(owner, "postPurchaseInvoice", {"billId": drafted["bill"]["id"]})

    # The bill was paid: the whole credit is the supplier's to refund.
    assert posted["amountDue"] == "-30.00"
    assert_books_tie()
    refund = bank_line(owner, "30.00", day=date(2026, 3, 12), description="Office Supplies refund")
    settled = ok(
        owner, "applyPurchaseCreditToFinancial", {"creditId": drafted["bill"]["id"], "financialId": refund.pk}
    )
    assert settled["total"] == "30.00"
    credit = PurchaseBill.objects.get(pk=drafted["bill"]["id"])
    assert (credit.amount_due, credit.status) == (Decimal("0.00"), "paid")
    assert_books_tie()


def test_a_supplier_credit_on_an_unpaid_bill_lowers_what_is_due(people):
    owner = people["owner"]
    bill = posted_bill(owner, net="100.00")
    drafted = ok(
        owner,
        "createSupplierCreditNote",
        {"billId": bill.pk, "reference": "SCN-2", "issueDate": "2026-03-06"},
    )
    assert (
        drafted["bill"]["total"] == "-100.00" and drafted["problems"] == []
    )  # the bill's lines, all credited
    ok(
        owner,
        "validatePurchaseInvoiceProposal",
        {
            "billId": drafted["bill"]["id"],
            "lines": [{"description": "Part", "unitPrice": "25", "taxType": "NONE"}],
        },
    )
    posted = ok(owner, "postPurchaseInvoice", {"billId": drafted["bill"]["id"]})

    bill.refresh_from_db()
    assert (bill.amount_due, bill.status, posted["amountDue"]) == (Decimal("75.00"), "part_paid", "0.00")
    assert_books_tie()
    # A bill with a posted credit is not voided.
    assert "nothing paid or credited" in refused(owner, "voidBill", {"billId": bill.pk})


def test_a_supplier_credit_follows_the_rules_of_a_credit_note(people):
    owner = people["owner"]
    bill = posted_bill(owner, net="100.00")

    assert "before the bill's issue date 2026-03-05" in refused(
        owner,
        "createSupplierCreditNote",
        {"billId": bill.pk, "reference": "SCN-3", "issueDate": "2026-03-04"},
    )
    too_much = ok(
        owner,
        "createSupplierCreditNote",
        {
            "billId": bill.pk,
            "reference": "SCN-4",
            "issueDate": "2026-03-06",
            "lines": [{"description": "Everything and more", "unitPrice": "150", "taxType": "NONE"}],
        },
    )
    assert any("not credited yet" in problem for problem in too_much["problems"])
    assert "cannot be posted yet" in refused(owner, "postPurchaseInvoice", {"billId": too_much["bill"]["id"]})
    other_currency = ok(
        owner,
        "validatePurchaseInvoiceProposal",
        {"billId": too_much["bill"]["id"], "bill": {"currency": "EUR"}},
    )
    assert any("its bill's currency, GBP" in problem for problem in other_currency["problems"])
    assert "a posted bill, not a credit" in refused(
        owner, "createSupplierCreditNote", {"billId": too_much["bill"]["id"], "reference": "SCN-5"}
    )
    assert not PurchaseBill.objects.filter(reference="SCN-3").exists()


# --- bills paid without a bank line, and voided -------------------------------------------------------


def test_a_bill_is_paid_without_a_bank_line_then_the_payment_removed_and_the_bill_voided(people):
    owner = people["owner"]
    bill = posted_bill(owner, net="100.00")
    before = bank_balance()

    payment = ok(owner, "recordBillPayment", {"billId": bill.pk, "amount": "40", "on": "2026-03-10"})

    assert (payment["bill"]["amountDue"], payment["bill"]["status"]) == ("60.00", "part_paid")
    assert bank_balance() == before - Decimal("40.00")
    assert_books_tie()
    assert "more than the 60.00 GBP due" in refused(
        owner, "recordBillPayment", {"billId": bill.pk, "amount": "61", "on": "2026-03-10"}
    )
    assert "before the bill's issue date" in refused(
        owner, "recordBillPayment", {"billId": bill.pk, "amount": "1", "on": "2026-03-01"}
    )
    assert "nothing paid" in refused(owner, "voidBill", {"billId": bill.pk})

    removed = ok(owner, "removePayment", {"paymentId": payment["payment"]["id"]})
    assert (removed["bill"]["amountDue"], removed["bill"]["status"], removed["invoice"]) == (
        "100.00",
        "posted",
        None,
    )
    voided = ok(owner, "voidBill", {"billId": bill.pk})

    assert (voided["status"], voided["amountDue"]) == ("void", "0.00")
    assert bank_balance() == before
    assert_books_tie()
    assert "void" in refused(owner, "voidBill", {"billId": bill.pk})
    assert "posted, with an amount due" in refused(
        owner, "recordBillPayment", {"billId": bill.pk, "amount": "1"}
    )


def test_a_bill_paid_first_is_reconciled_by_its_bank_line(people):
    owner = people["owner"]
    bill = posted_bill(owner, net="35.50")
    payment = ok(owner, "recordBillPayment", {"billId": bill.pk, "amount": "35.50", "on": "2026-03-06"})
    line = bank_line(owner, "-35.50", day=date(2026, 3, 8))
    entries = JournalEntry.objects.count()

    made = ok(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [line.pk], "paymentIds": [payment["payment"]["id"]]},
    )

    assert made["total"] == "-35.50" and JournalEntry.objects.count() == entries
    assert_books_tie()
