"""Purchase bills through the tools: read from a PDF and from a scan (OCR), the supplier's
defaults, validation, totals, reconciliation, posting the payable and duplicate detection; per
tool a normal call, bad input and a refusal."""

import io
import json
from datetime import date
from decimal import Decimal

import pytest

from apps.accounting.lib import ledger
from apps.accounting.models import Account, JournalEntry, PurchaseBill, SupplierDefaults
from apps.accounting.services import bills
from apps.accounting.tests.bills_data import bill_pdf, bill_text, proposal, scan_of, stored, validated
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without

pytestmark = pytest.mark.django_db

PERMISSIONS = {
    "extractPurchaseBillDocument": "accounting.edit",
    "getSupplierDefaults": "accounting.view",
    "validatePurchaseInvoiceProposal": "accounting.edit",
    "previewPurchaseInvoiceTotals": "accounting.view",
    "reconcilePurchaseInvoiceTotal": "accounting.edit",
    "postPurchaseInvoice": "accounting.post",
    "searchPurchaseInvoices": "accounting.view",
}


def assert_trial_balance_is_zero():
    balance = ledger.trial_balance()
    assert balance.total_debit == balance.total_credit


@pytest.mark.parametrize("name", sorted(PERMISSIONS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    person = person_without(PERMISSIONS[name], email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, {}, session=MemorySession())


def test_a_bill_pdf_is_read_into_a_proposal_validated_reconciled_and_posted(people):
    member = people["member"]
    file = bill_pdf(member)

    extracted = ok(member, "extractPurchaseBillDocument", {"fileId": file.pk})
    bill = extracted["bill"]
    assert bill["status"] == "proposal" and bill["source"] == "text" and bill["fileId"] == file.pk
    assert (bill["supplierName"], bill["reference"], bill["currency"]) == (
        "Northwind Supplies Ltd",
        "NW-20417",
        "GBP",
    )
    assert (bill["issueDate"], bill["dueDate"]) == ("2026-03-02", "2026-04-01")
    assert bill["supplierVatNumber"] == "GB980780684"
    assert [
        (line["description"], line["quantity"], line["unitPrice"], line["taxType"]) for line in bill["lines"]
    ] == [
        ("Printer paper A4 box", "10", "24.5", "UK-STD"),
        ("Toner cartridge", "2", "87.25", "UK-STD"),
    ]
    assert (bill["net"], bill["tax"], bill["total"], bill["statedTotal"]) == (
        "419.50",
        "83.90",
        "503.40",
        "503.40",
    )
    assert {"reference", "total", "lines"} <= set(extracted["found"]) and extracted["problems"] == []

    checked = ok(member, "validatePurchaseInvoiceProposal", {"billId": bill["id"]})
    assert checked["problems"] == [] and checked["bill"]["status"] == "validated"
    totals = ok(member, "previewPurchaseInvoiceTotals", {"billId": bill["id"]})
    assert totals["taxes"] == [{"taxType": "UK-STD", "net": "419.50", "tax": "83.90"}]
    assert (totals["difference"], totals["baseCurrency"], totals["baseTotal"]) == ("0.00", "GBP", "503.40")
    tied = ok(member, "reconcilePurchaseInvoiceTotal", {"billId": bill["id"]})
    assert tied["tied"] is True and tied["difference"] == "0.00"

    posted = ok(member, "postPurchaseInvoice", {"billId": bill["id"]})

    assert posted["status"] == "posted" and posted["amountDue"] == "503.40" and posted["rate"] == "1"
    entry = JournalEntry.objects.get(pk=posted["entryId"])
    amounts = {line.account.code: line.amount for line in entry.lines.select_related("account")}
    assert amounts == {"2100": Decimal("-503.40"), "5000": Decimal("419.50"), "2200": Decimal("83.90")}
    assert entry.journal.code == "PUR" and entry.source == f"bill:{bill['id']}"
    assert_trial_balance_is_zero()
    assert ok(people["viewer"], "getAccountingSummary")["payable"] == "503.40"
    learned = SupplierDefaults.objects.get(key="northwind supplies")
    assert (learned.bills_posted, learned.payment_terms_days, learned.vat_number) == (1, 30, "GB980780684")


def test_the_same_bill_twice_is_refused_and_a_different_reference_is_not(people):
    owner = people["owner"]
    first = validated(owner)
    bills.bill_post(actor=owner, bill=first)
    again = proposal(owner)

    checked = ok(owner, "validatePurchaseInvoiceProposal", {"billId": again.pk})
    assert checked["bill"]["status"] == "proposal"
    assert any(f"bill {first.pk} is the same bill" in problem for problem in checked["problems"])
    message = refused(owner, "postPurchaseInvoice", {"billId": again.pk})
    assert "DUPLICATE_BILL" in message or "already posted" in message
    assert PurchaseBill.objects.get(pk=again.pk).entry_id is None

    fixed = ok(
        owner, "validatePurchaseInvoiceProposal", {"billId": again.pk, "bill": {"reference": "NW-20418"}}
    )
    assert fixed["problems"] == []
    assert ok(owner, "postPurchaseInvoice", {"billId": again.pk})["status"] == "posted"
    assert_trial_balance_is_zero()


def test_a_stated_total_that_does_not_tie_is_an_error_and_rounding_can_be_booked(people):
    member = people["member"]
    bill = proposal(member, total="503.41")
    assert any("reconcile the total" in problem for problem in bills.problems_of(bill))

    gap = ok(member, "reconcilePurchaseInvoiceTotal", {"billId": bill.pk})
    assert (gap["tied"], gap["difference"]) == (False, "0.01")
    booked = ok(member, "reconcilePurchaseInvoiceTotal", {"billId": bill.pk, "adjust": True})
    assert booked["tied"] is True and booked["bill"]["total"] == "503.41"
    assert bills.bill_get(actor=member, bill_id=bill.pk).lines.filter(account__code="7950").count() == 1

    far = proposal(member, total="600.00", reference="NW-30000")
    message = refused(member, "reconcilePurchaseInvoiceTotal", {"billId": far.pk, "adjust": True})
    assert "states a total of 600.00 GBP but its lines add up to 503.40 GBP" in message
    corrected = ok(member, "reconcilePurchaseInvoiceTotal", {"billId": far.pk, "statedTotal": "503.40"})
    assert corrected["tied"] is True


def test_a_scanned_bill_is_read_with_ocr(people):
    member = people["member"]
    rows = bill_text(reference="SC-7781", supplier="Harbour Stationers")
    png = stored(member, "scan.png", scan_of(rows))
    scanned_pdf = stored(member, "scan.pdf", scan_of(rows, fmt="PDF"))

    for file in (png, scanned_pdf):
        bill = ok(member, "extractPurchaseBillDocument", {"fileId": file.pk})["bill"]
        assert bill["source"] == "ocr"
        assert "Harbour Stationers" in bill["supplierName"] and bill["reference"] == "SC-7781"
        assert bill["statedTotal"] == "503.40" and bill["issueDate"] == "2026-03-02"


def test_extraction_refuses_what_is_not_a_bill_and_says_when_ocr_is_missing(people, settings):
    member = people["member"]
    text_file = stored(member, "notes.txt", b"just some notes")
    assert "is not a PDF or an image" in refused(
        member, "extractPurchaseBillDocument", {"fileId": text_file.pk}
    )
    assert "listFiles" in refused(member, "extractPurchaseBillDocument", {"fileId": 987654321})
    broken = stored(member, "broken.png", b"\x89PNG\r\n\x1a\n not really")
    assert "could not be read" in refused(member, "extractPurchaseBillDocument", {"fileId": broken.pk})

    settings.ATRIUM_ACCOUNTING_TESSERACT = "no-such-tesseract"
    scan = stored(member, "scan.png", scan_of(["Anything"]))
    message = refused(member, "extractPurchaseBillDocument", {"fileId": scan.pk})
    assert "tesseract-ocr" in message and "not installed" in message
    # A PDF with a text layer needs no OCR.
    assert (
        ok(member, "extractPurchaseBillDocument", {"fileId": bill_pdf(member).pk})["bill"]["source"] == "text"
    )


def test_supplier_defaults_start_from_the_books_and_learn_from_posted_bills(people):
    member = people["member"]
    fresh = ok(member, "getSupplierDefaults", {"supplier": "Globex Parts"})
    assert (fresh["known"], fresh["currency"], fresh["account"], fresh["taxType"]) == (
        False,
        "GBP",
        "5000",
        "UK-STD",
    )
    assert "name the supplier" in refused(member, "getSupplierDefaults", {})

    bill = proposal(member, supplier="Globex Parts Ltd")
    ok(
        member,
        "validatePurchaseInvoiceProposal",
        {
            "billId": bill.pk,
            "bill": {"dueDate": "2026-03-16"},
            "lines": [
                {
                    "description": "Software licence",
                    "unitPrice": "419.50",
                    "taxType": "UK-STD",
                    "account": "6300",
                }
            ],
        },
    )
    bills.bill_post(actor=member, bill=bills.bill_get(actor=member, bill_id=bill.pk, action="change"))

    learned = ok(member, "getSupplierDefaults", {"supplier": "GLOBEX PARTS"})
    assert (learned["known"], learned["account"], learned["paymentTermsDays"]) == (True, "6300", 14)
    # The next bill from them starts there.
    assert (
        proposal(member, supplier="Globex Parts Ltd", reference="GP-2").lines.first().account.code == "6300"
    )


def test_validation_names_what_is_wrong_and_refuses_bad_values(people):
    member = people["member"]
    bill = proposal(member, reference="")
    ledger.books_update(actor=people["owner"], lock_date=date(2026, 3, 31))

    checked = ok(member, "validatePurchaseInvoiceProposal", {"billId": bill.pk})
    problems = " | ".join(checked["problems"])
    assert "no supplier reference" in problems and "locked up to 2026-03-31" in problems
    assert "there is no tax type XX" in refused(
        member,
        "validatePurchaseInvoiceProposal",
        {"billId": bill.pk, "lines": [{"description": "x", "unitPrice": "1", "taxType": "XX"}]},
    )
    assert "there is no account 9999" in refused(
        member,
        "validatePurchaseInvoiceProposal",
        {"billId": bill.pk, "lines": [{"description": "x", "unitPrice": "1", "account": "9999"}]},
    )
    on_sales = ok(
        member,
        "validatePurchaseInvoiceProposal",
        {"billId": bill.pk, "lines": [{"description": "x", "unitPrice": "1", "account": "4000"}]},
    )
    assert any("not an expense or asset account" in problem for problem in on_sales["problems"])
    assert "VAT" in refused(
        member, "validatePurchaseInvoiceProposal", {"billId": bill.pk, "bill": {"supplierVatNumber": "GB123"}}
    )
    message = refused(member, "postPurchaseInvoice", {"billId": bill.pk})
    assert "cannot be posted yet" in message and "locked up to 2026-03-31" in message
    assert JournalEntry.objects.filter(source=f"bill:{bill.pk}").count() == 0


def test_a_bill_in_a_currency_without_a_rate_is_not_posted(people):
    member = people["member"]
    bill = proposal(member)
    checked = ok(member, "validatePurchaseInvoiceProposal", {"billId": bill.pk, "bill": {"currency": "KPW"}})
    assert checked["bill"]["status"] == "proposal"
    assert any("KPW" in problem for problem in checked["problems"])
    assert "cannot be posted yet" in refused(member, "postPurchaseInvoice", {"billId": bill.pk})
    assert "greater than or equal to 1" in refused(member, "previewPurchaseInvoiceTotals", {"billId": 0})


def test_a_posted_bill_is_not_changed_and_search_finds_bills(people):
    member = people["member"]
    bill = validated(member, reference="FIND-4410", supplier="Searchable Supplier Co")
    bills.bill_post(actor=member, bill=bill)
    proposal(member, reference="OTHER-1", supplier="Someone Else", vat_number="none")

    message = refused(
        member, "validatePurchaseInvoiceProposal", {"billId": bill.pk, "bill": {"reference": "X"}}
    )
    assert "Posted" in message or "posted" in message
    found = ok(member, "searchPurchaseInvoices", {"query": "Searchable", "unpaid": True})
    assert [item["reference"] for item in found["items"]] == ["FIND-4410"]
    assert ok(member, "searchPurchaseInvoices", {"status": "proposal", "query": "Someone"})["total"] == 1
    assert "status" in refused(member, "searchPurchaseInvoices", {"status": "lost"})
    assert Account.objects.get(code="2100").lines.count() >= 1


def test_a_sole_trader_supplier_is_exported_and_erased_but_the_posted_bill_stays(acme, people):
    from apps.contacts.services import contact_create
    from apps.datarights.personal_data import personal_data_erase, personal_data_export

    owner, email = people["owner"], "sam.trader@example.org"
    contact, _conflicts = contact_create(
        actor=owner, fields={"first_name": "Sam", "last_name": "Trader", "email": email}
    )
    bill = proposal(owner, supplier="Sam Trader", vat_number="none")
    ok(owner, "validatePurchaseInvoiceProposal", {"billId": bill.pk, "bill": {"contactId": contact.pk}})
    posted = bills.bill_post(actor=owner, bill=bills.bill_get(actor=owner, bill_id=bill.pk, action="change"))
    assert posted.entry_id is not None

    out = io.BytesIO()
    personal_data_export(workspace=acme, email=email, out=out, performed_by="test")
    records = json.loads(out.getvalue())["records"]
    assert records["accounting.purchasebill"][0]["supplier_name"] == "Sam Trader"
    assert records["accounting.supplierdefaults"][0]["supplier_name"] == "Sam Trader"

    counts = personal_data_erase(workspace=acme, email=email, performed_by="test")

    kept = PurchaseBill.objects.get(pk=bill.pk)
    assert counts["accounting.purchasebill"] == 1 and kept.supplier_name == "(erased)"
    assert (kept.total, kept.entry_id, kept.extracted_text) == (Decimal("503.40"), posted.entry_id, "")
    assert not SupplierDefaults.objects.filter(supplier_name="Sam Trader").exists()
    assert_trial_balance_is_zero()


def test_a_duplicate_names_the_tool_that_discards_it_and_discarding_posts_nothing(people):
    owner = people["owner"]
    first = validated(owner)
    bills.bill_post(actor=owner, bill=first)
    again = proposal(owner)

    message = refused(owner, "postPurchaseInvoice", {"billId": again.pk})
    assert "discardPurchaseInvoiceProposal" in message and "Delete the proposal" not in message

    entries = JournalEntry.objects.count()
    assert ok(owner, "discardPurchaseInvoiceProposal", {"billId": again.pk}) == {
        "id": again.pk,
        "discarded": True,
    }
    assert PurchaseBill.objects.get(pk=again.pk).deleted_at is not None
    assert JournalEntry.objects.count() == entries
    found = ok(owner, "searchPurchaseInvoices", {"query": "Northwind"})
    assert [item["id"] for item in found["items"]] == [first.pk]
    assert "is deleted" in refused(owner, "discardPurchaseInvoiceProposal", {"billId": again.pk})

    posted = refused(owner, "discardPurchaseInvoiceProposal", {"billId": first.pk})
    assert "is posted" in posted and PurchaseBill.objects.get(pk=first.pk).deleted_at is None


def test_discarding_a_bill_needs_the_right_to_delete(acme):
    person = person_without("accounting.delete", email="no-discard@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, "discardPurchaseInvoiceProposal", {"billId": 1}, session=MemorySession())


def test_a_bill_line_with_more_decimals_than_the_currency_says_it_was_rounded(people):
    bill = proposal(people["member"])
    answer = ok(
        people["member"],
        "validatePurchaseInvoiceProposal",
        {
            "billId": bill.pk,
            "lines": [
                {
                    "description": "Screws",
                    "quantity": "3",
                    "unitPrice": "0.3333",
                    "taxType": "UK-STD",
                    "account": "6000",
                }
            ],
        },
    )
    assert answer["bill"]["rounded"] == ["line 1: 3 x 0.3333 is 0.9999, rounded to 1.00 GBP"]
