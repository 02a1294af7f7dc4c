"""What the books refuse: totals beyond the ledger's columns, negative invoices, lines on control
accounts, credit notes that do not fit their invoice; and what void and settled invoices show."""

from datetime import date
from decimal import Decimal

import pytest

from apps.accounting.models import Charge, JournalEntry, PurchaseBill, SalesDocument
from apps.accounting.services import sales
from apps.accounting.tests.factories import draft, issued
from apps.accounting.tests.samples import INVOICE_FIELDS, started
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.catalogue.testing import call, text_of

pytestmark = pytest.mark.django_db

HUGE = {
    "description": "A large order",
    "quantity": "1000000",
    "unitPrice": "9999999999999",
    "taxType": "UK-STD",
}


def test_totals_beyond_the_ledger_are_refused_before_anything_is_written(people):
    owner = people["owner"]
    documents = SalesDocument.objects.count()

    message = refused(owner, "createInvoice", {"invoice": INVOICE_FIELDS, "lines": [HUGE]})
    assert "more than the ledger holds" in message and "EUR" in message
    assert SalesDocument.objects.count() == documents
    priced = {name: value for name, value in HUGE.items() if name != "description"}
    assert "more than the ledger holds" in refused(owner, "previewTaxBreakdown", {"lines": [priced]})

    charge = ok(
        owner,
        "createCharge",
        {
            "charge": {
                "description": "A large order",
                "customerName": "Northwind Traders",
                "quantity": HUGE["quantity"],
                "unitPrice": HUGE["unitPrice"],
                "taxType": "UK-STD",
            }
        },
    )
    message = refused(owner, "manageCharge", {"action": "invoice", "chargeIds": [charge["id"]]})
    assert "more than the ledger holds" in message
    assert SalesDocument.objects.count() == documents
    assert Charge.objects.get(pk=charge["id"]).status == Charge.Status.UNCLAIMED

    # Just within the columns: accepted.
    fits = {**HUGE, "quantity": "1", "unitPrice": "1000000000000"}
    assert ok(owner, "createInvoice", {"invoice": INVOICE_FIELDS, "lines": [fits]})["total"] == (
        "1200000000000.00"
    )


def test_a_negative_invoice_is_not_approved_but_pointed_to_a_credit_note(people):
    owner = people["owner"]
    made = ok(
        owner,
        "createInvoice",
        {
            "invoice": INVOICE_FIELDS,
            "lines": [{"description": "Returned", "quantity": "-2", "unitPrice": "10", "taxType": "UK-STD"}],
        },
    )
    assert made["total"] == "-24.00"
    message = refused(owner, "approveInvoice", {"invoiceId": made["id"]})
    assert "credit note" in message
    document = SalesDocument.objects.get(pk=made["id"])
    assert (document.status, document.number, document.entry_id) == ("draft", "", None)
    assert not JournalEntry.objects.filter(source=f"invoice:{made['id']}").exists()


@pytest.mark.parametrize("code", ["1100", "2100", "1200", "2200"])
def test_document_lines_are_not_coded_to_control_or_bank_accounts(people, code):
    owner = people["owner"]
    line = {"description": "Consulting", "unitPrice": "100", "taxType": "UK-STD", "account": code}
    assert "control" in refused(owner, "createInvoice", {"invoice": INVOICE_FIELDS, "lines": [line]})
    invoice = draft(owner)
    assert "control" in refused(owner, "updateInvoice", {"invoiceId": invoice.pk, "lines": [line]})

    bill = PurchaseBill.objects.create(
        supplier_name="Office Supplies Ltd", reference="OS-1", currency="GBP", created_by=owner
    )
    bill_line = {"description": "Paper", "unitPrice": "10", "account": code}
    assert "control" in refused(
        owner, "validatePurchaseInvoiceProposal", {"billId": bill.pk, "lines": [bill_line]}
    )
    assert not bill.lines.exists()


def test_a_credit_note_keeps_its_invoices_currency_and_is_not_dated_before_it(people):
    owner = people["owner"]
    invoice = issued(owner, currency="GBP", issue_date=date(2026, 3, 2))
    note = ok(owner, "manageInvoice", {"invoiceId": invoice.pk, "action": "credit"})["created"]

    message = refused(owner, "updateInvoice", {"invoiceId": note["id"], "invoice": {"currency": "EUR"}})
    assert "GBP" in message and "credit note" in message
    message = refused(
        owner, "updateInvoice", {"invoiceId": note["id"], "invoice": {"issueDate": "2026-03-01"}}
    )
    assert "2026-03-02" in message

    # A note changed behind the tools' back is refused at approval, and nothing is posted.
    SalesDocument.objects.filter(pk=note["id"]).update(currency="EUR")
    assert "GBP" in refused(owner, "approveInvoice", {"invoiceId": note["id"]})
    SalesDocument.objects.filter(pk=note["id"]).update(currency="GBP", issue_date=date(2026, 2, 1))
    assert "2026-03-02" in refused(owner, "approveInvoice", {"invoiceId": note["id"]})
    assert SalesDocument.objects.get(pk=note["id"]).status == "draft"
    invoice.refresh_from_db()
    assert invoice.amount_due == Decimal("120.00")


def test_a_void_invoice_has_nothing_due(people):
    owner = people["owner"]
    invoice = issued(owner)
    voided = ok(owner, "manageInvoice", {"invoiceId": invoice.pk, "action": "void"})["document"]
    assert (voided["status"], voided["amountDue"]) == ("void", "0.00")
    assert ok(owner, "getInvoice", {"invoiceId": invoice.pk})["amountDue"] == "0.00"


def test_unmatched_lines_show_what_is_still_due_after_payments_and_credit_notes(people):
    owner = people["owner"]
    invoice = issued(
        owner, lines=[("Consulting", "100.00", "UK-STD"), ("Travel", "50.00", "UK-STD")]
    )  # 120 + 60
    ok(owner, "recordPayment", {"invoiceId": invoice.pk, "amount": "130", "on": "2026-03-02"})
    rows = ok(people["viewer"], "getUnmatchedInvoiceLines", {"invoiceId": invoice.pk})["items"]
    assert sum(Decimal(row["open"]) for row in rows) == Decimal("50.00")
    assert [(row["line"], row["open"]) for row in rows] == [(2, "50.00")]

    credited = issued(owner)  # 120
    note = sales.credit_note_for(actor=owner, invoice=credited)
    sales.document_update(
        actor=owner,
        document=note,
        fields={},
        lines=[sales.LineData("Part refund", Decimal("25.00"), "UK-STD")],
    )
    sales.document_approve(actor=owner, document=note)  # 30 credited
    rows = ok(people["viewer"], "getUnmatchedInvoiceLines", {"invoiceId": credited.pk})["items"]
    assert [row["open"] for row in rows] == ["90.00"]


def test_a_payment_that_cannot_be_recorded_is_refused_before_anyone_is_asked_to_confirm_it(people):
    owner = people["owner"]
    invoice = issued(owner, issue_date=date(2026, 3, 1), lines=[("Work", "100", "UK-STD")])
    arguments = {"invoiceId": invoice.pk, "amount": "120", "on": "2026-03-02"}
    session = started(owner)

    asked = call(owner, "recordPayment", arguments, session=session)
    too_much = call(owner, "recordPayment", {**arguments, "amount": "121"}, session=session)
    too_early = call(owner, "recordPayment", {**arguments, "on": "2026-02-27"}, session=session)
    not_a_bank = call(owner, "recordPayment", {**arguments, "bankAccount": "4000"}, session=session)

    assert "Confirmation required" in text_of(asked)
    assert "more than the 120.00 GBP due" in text_of(too_much)
    assert "before the invoice's issue date" in text_of(too_early)
    assert "not a bank account" in text_of(not_a_bank)
    for answer in (too_much, too_early, not_a_bank):
        assert answer["isError"] is True and "Confirmation required" not in text_of(answer)
    invoice.refresh_from_db()
    assert invoice.amount_paid == 0
