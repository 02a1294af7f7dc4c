"""Bills typed in by hand (createBill): made validated under the rules of a bill read from a
document, refused whole when one fails, and posted through postPurchaseInvoice."""

from decimal import Decimal

import pytest

from apps.accounting.lib import ledger
from apps.accounting.models import JournalEntry, PurchaseBill
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without

pytestmark = pytest.mark.django_db

PLUMBER = {"supplierName": "Hill Plumbing", "reference": "HP-311", "issueDate": "2026-03-04"}
REPAIR = [{"description": "Boiler repair", "unitPrice": "240", "taxType": "UK-STD", "account": "6000"}]


def balances() -> dict[str, Decimal]:
    return {row.code: row.debit - row.credit for row in ledger.trial_balance().rows}


def test_a_bill_typed_in_is_validated_and_posted_as_a_payable(people):
    member = people["member"]

    made = ok(
        member,
        "createBill",
        {
            "bill": {**PLUMBER, "dueDate": "2026-04-03"},
            "lines": [
                *REPAIR,
                {"description": "Parts", "quantity": "2", "unitPrice": "12.50", "taxType": "UK-STD"},
            ],
        },
    )
    bill = made["bill"]
    assert made["problems"] == []
    assert (bill["status"], bill["source"], bill["supplierName"], bill["reference"]) == (
        "validated",
        "manual",
        "Hill Plumbing",
        "HP-311",
    )
    assert (bill["net"], bill["tax"], bill["total"], bill["currency"]) == ("265.00", "53.00", "318.00", "GBP")
    assert [line["account"] for line in bill["lines"]] == ["6000", "5000"]  # the default: purchases
    assert (bill["issueDate"], bill["dueDate"], bill["fileId"]) == ("2026-03-04", "2026-04-03", None)
    assert JournalEntry.objects.count() == 0  # typed in, not posted

    posted = ok(member, "postPurchaseInvoice", {"billId": bill["id"]})
    assert posted["status"] == "posted"
    assert balances() == {
        "2100": Decimal("-318.00"),
        "2200": Decimal("53.00"),
        "5000": Decimal("25.00"),
        "6000": Decimal("240.00"),
    }


def test_a_typed_bill_without_a_due_date_takes_the_suppliers_terms_and_its_currency(people):
    owner = people["owner"]
    made = ok(
        owner,
        "createBill",
        {"bill": {**PLUMBER, "currency": "eur"}, "lines": [{"description": "Call-out", "unitPrice": "80"}]},
    )["bill"]
    assert (made["currency"], made["dueDate"], made["total"]) == ("EUR", "2026-04-03", "96.00")


def test_what_a_bill_may_not_be_is_refused_and_writes_nothing(people):
    owner = people["owner"]
    ok(owner, "createBill", {"bill": PLUMBER, "lines": REPAIR})
    made = PurchaseBill.objects.count()

    again = refused(owner, "createBill", {"bill": {**PLUMBER, "reference": "hp-311"}, "lines": REPAIR})
    assert "already has the reference HP-311" in again and "searchPurchaseInvoices" in again
    on_control = refused(
        owner,
        "createBill",
        {"bill": {**PLUMBER, "reference": "HP-312"}, "lines": [{**REPAIR[0], "account": "2100"}]},
    )
    assert "Account 2100 (Accounts payable) is a control or bank account" in on_control
    on_bank = refused(
        owner,
        "createBill",
        {"bill": {**PLUMBER, "reference": "HP-312"}, "lines": [{**REPAIR[0], "account": "1200"}]},
    )
    assert "control or bank account" in on_bank
    on_income = refused(
        owner,
        "createBill",
        {"bill": {**PLUMBER, "reference": "HP-312"}, "lines": [{**REPAIR[0], "account": "4000"}]},
    )
    assert "line 1: 4000 is not an expense or asset account" in on_income
    negative = refused(
        owner,
        "createBill",
        {"bill": {**PLUMBER, "reference": "HP-313"}, "lines": [{**REPAIR[0], "unitPrice": "-240"}]},
    )
    assert "totals -288.00 GBP, less than zero" in negative and "createSupplierCreditNote" in negative
    too_large = refused(
        owner,
        "createBill",
        {
            "bill": {**PLUMBER, "reference": "HP-314"},
            "lines": [{**REPAIR[0], "quantity": "1000000000", "unitPrice": "9999999999999"}],
        },
    )
    assert "more than the ledger holds" in too_large
    due_before = refused(
        owner,
        "createBill",
        {"bill": {**PLUMBER, "reference": "HP-315", "dueDate": "2026-03-01"}, "lines": REPAIR},
    )
    assert "`dueDate`: is before the issue date" in due_before
    unknown_tax = refused(
        owner,
        "createBill",
        {"bill": {**PLUMBER, "reference": "HP-316"}, "lines": [{**REPAIR[0], "taxType": "NOPE"}]},
    )
    assert "NOPE" in unknown_tax

    ok(owner, "setLockDate", {"lockDate": "2026-03-31"})
    locked = refused(owner, "createBill", {"bill": {**PLUMBER, "reference": "HP-317"}, "lines": REPAIR})
    assert "2026-03-04 is in a locked period" in locked
    assert PurchaseBill.objects.count() == made
    assert JournalEntry.objects.count() == 0


def test_a_void_or_discarded_bill_frees_its_reference(people):
    owner = people["owner"]
    first = ok(owner, "createBill", {"bill": PLUMBER, "lines": REPAIR})["bill"]
    ok(owner, "discardPurchaseInvoiceProposal", {"billId": first["id"]})
    second = ok(owner, "createBill", {"bill": PLUMBER, "lines": REPAIR})["bill"]
    assert second["id"] != first["id"]
    # Another supplier may use the same number.
    ok(owner, "createBill", {"bill": {**PLUMBER, "supplierName": "Dale Electrics"}, "lines": REPAIR})
    assert PurchaseBill.objects.filter(reference="HP-311", deleted_at__isnull=True).count() == 2


def test_creating_a_bill_needs_the_right_to_edit(acme):
    person = person_without("accounting.edit", email="no-createbill@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, "createBill", {"bill": PLUMBER, "lines": REPAIR}, session=MemorySession())
    assert PurchaseBill.objects.count() == 0
